"""Which weights a serving command loads: a published checkpoint in the planned format, or the
steps that make one.

- The format the model ships in (FP8 for DeepSeek-V3/R1, MXFP4 for gpt-oss, BF16 for most) is
  served from the model's own repository: no conversion.
- A deployment serves the chat/instruct checkpoint (``kind: instruct`` in
  ``knowledge/checkpoints.yaml``) where ``models.yaml`` cites the base model's config.
- A quantized format names a published checkpoint of that form (AWQ, GPTQ/W4A16, W8A8, FP8); vLLM
  and SGLang read the method from its ``quantization_config``, so no ``--quantization`` flag.
- FP8 with no published checkpoint is quantized on load (``--quantization fp8``: vLLM and SGLang
  both do it from 16-bit weights).
- Anything else gets a ``prepare`` step first: an llm-compressor one-shot script (``oneshot`` with
  ``AWQModifier``, ``GPTQModifier``, SmoothQuant + GPTQ for W8A8, or NVFP4; the calibration set is
  llm-compressor's registered ``open_platypus``) that writes a local folder the server then loads,
  or, for GGUF, llama.cpp's ``convert_hf_to_gguf.py`` and ``llama-quantize``.

The script's imports, ``oneshot`` arguments and dataset name were checked in the llmcompressor
0.8.1 wheel (``llmcompressor.oneshot``; ``modifiers.awq.AWQModifier``,
``modifiers.quantization.GPTQModifier``/``QuantizationModifier``,
``modifiers.smoothquant.SmoothQuantModifier``; ``open_platypus`` registered in
transformers/finetune/data), the schemes in compressed-tensors 0.12.2's ``PRESET_SCHEMES``
(W4A16, W4A16_ASYM, W8A8, NVFP4); the need sentence pins ``llmcompressor==0.8.1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gpu_advisor.engine.launch.spec import MODEL_PLACEHOLDER, LaunchSpec, hf_repo

if TYPE_CHECKING:
    from gpu_advisor.engine.checkpoints import Checkpoints
    from gpu_advisor.engine.results import Option
    from gpu_advisor.engine.specs import ModelArch

# Published forms that hold each planned format, best first (all 4-bit weight-only forms use the
# same ~4.25 bits per weight the plan sized with, so any of them fits).
PUBLISHED_FORMS: dict[str, tuple[str, ...]] = {
    "awq": ("awq", "w4a16", "gptq"),
    "int4": ("awq", "w4a16", "gptq"),
    "gptq": ("gptq", "w4a16", "awq"),
    "int8": ("w8a8",),
    "fp8": ("fp8",),
}
# MXFP4 of a model published in 16 bits: no such checkpoint is published and llm-compressor has no
# MXFP4 scheme, so the plan is served as AWQ, which takes the same 4.25 bits per weight (dtypes.py)
SAME_SIZE = {"mxfp4": "awq"}
ONLINE_QUANT = {"fp8": "fp8"}  # vLLM and SGLang quantize these on load from a 16-bit checkpoint
# llm-compressor recipes (name for the output folder, modifier lines of the recipe).
RECIPES: dict[str, tuple[str, list[str]]] = {
    "awq": ("AWQ", ['AWQModifier(targets=["Linear"], scheme="W4A16_ASYM", ignore=["lm_head"])']),
    "int4": ("AWQ", ['AWQModifier(targets=["Linear"], scheme="W4A16_ASYM", ignore=["lm_head"])']),
    "gptq": ("W4A16", ['GPTQModifier(targets="Linear", scheme="W4A16", ignore=["lm_head"])']),
    "int8": (
        "W8A8",
        [
            "SmoothQuantModifier(smoothing_strength=0.8)",
            'GPTQModifier(targets="Linear", scheme="W8A8", ignore=["lm_head"])',
        ],
    ),
    "nvfp4": ("NVFP4", ['QuantizationModifier(targets="Linear", scheme="NVFP4", ignore=["lm_head"])']),
}
IMPORTS = {
    "AWQModifier": "from llmcompressor.modifiers.awq import AWQModifier",
    "GPTQModifier": "from llmcompressor.modifiers.quantization import GPTQModifier",
    "QuantizationModifier": "from llmcompressor.modifiers.quantization import QuantizationModifier",
    "SmoothQuantModifier": "from llmcompressor.modifiers.smoothquant import SmoothQuantModifier",
}
GGUF_TAG = {"q4_k_m": "Q4_K_M", "q4_0": "Q4_0", "q8_0": "Q8_0", "fp16": "F16", "bf16": "BF16"}


@dataclass(frozen=True)
class ServedWeights:
    """What the server loads and what has to happen before it can."""

    path: str  # a repository id, or the local folder/file a prepare step writes
    form: str  # native | instruct | <published kind> | online_<fmt> | quantized_here | not_in_planned_format
    quantization: str | None = None  # the --quantization value, only for on-load quantization
    prepare: list[LaunchSpec] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)


def chat_repo(arch: ModelArch, table: Checkpoints) -> str:
    """The repository a deployment serves: the instruct checkpoint where the table names one."""
    repo = hf_repo(arch)
    row = table.find(arch.id, "instruct") if repo != MODEL_PLACEHOLDER else None
    return row.repo if row else repo


def serving_weights(o: Option, arch: ModelArch, table: Checkpoints) -> ServedWeights:
    """The weights a vLLM/SGLang command for ``o`` loads (see the module docstring for the order)."""
    fmt, repo = o.weight_dtype, chat_repo(arch, table)
    if fmt == arch.native_dtype or fmt in ("bf16", "fp16"):
        # a 16-bit plan of a model published only in FP8/MXFP4 serves the published weights
        upcast = fmt != arch.native_dtype and arch.native_dtype not in ("bf16", "fp16", "fp32")
        needs = [f"served_as_published_{arch.native_dtype}"] if upcast else []
        return ServedWeights(repo, "native" if repo == hf_repo(arch) else "instruct", needs=needs)
    if fmt in SAME_SIZE:  # the plan's format is never published for this model: its twin is
        return _with_need(serving_weights(_as(o, SAME_SIZE[fmt]), arch, table), f"{fmt}_as_{SAME_SIZE[fmt]}")
    if repo != MODEL_PLACEHOLDER:
        for kind in PUBLISHED_FORMS.get(fmt, ()):
            row = table.find(arch.id, kind)
            if row is not None:
                return ServedWeights(row.repo, kind)
    if fmt in ONLINE_QUANT:
        return ServedWeights(repo, f"online_{fmt}", quantization=ONLINE_QUANT[fmt])
    if fmt in RECIPES:
        step = quantize_step(o, repo, fmt)
        return ServedWeights(str(step.settings["output_dir"]), "quantized_here", prepare=[step])
    # no published checkpoint and no tool here makes one (FP32, a format added later): the
    # command loads what is published and says it is not the planned format
    return ServedWeights(repo, "not_in_planned_format", needs=["no_weights_in_format"])


def _as(o: Option, fmt: str) -> Option:
    return o.model_copy(update={"weight_dtype": fmt})


def _with_need(w: ServedWeights, need: str) -> ServedWeights:
    return replace(w, needs=[*w.needs, need])


def quantize_step(o: Option, repo: str, fmt: str) -> LaunchSpec:
    """llm-compressor's one-shot quantization of ``repo`` into ``./<name>-<SCHEME>``."""
    scheme, modifiers = RECIPES[fmt]
    name = "model" if repo == MODEL_PLACEHOLDER else repo.rsplit("/", 1)[-1]
    out = f"./{name}-{scheme}"  # a local folder: the server loads it, the hub is not asked
    used = sorted({IMPORTS[name] for name in IMPORTS if any(m.startswith(name) for m in modifiers)})
    script = [
        "from llmcompressor import oneshot",
        *used,
        "",
        f"recipe = [{', '.join(modifiers)}]",
        "oneshot(",
        f'    model="{repo}",',
        '    dataset="open_platypus",',
        "    recipe=recipe,",
        f'    output_dir="{out}",',
        "    max_seq_length=2048,",
        "    num_calibration_samples=512,",
        ")",
    ]
    return LaunchSpec(
        runtime="llm_compressor",
        role="prepare",
        option=o.kind,
        primary=True,
        argv=["python", "quantize.py"],
        config_files={"quantize.py": "\n".join(script) + "\n"},
        settings={"weight_format": fmt, "scheme": scheme, "source_repo": repo, "output_dir": out},
        needs=[f"quantize_{fmt if fmt != 'int4' else 'awq'}"],
    )


def gguf_step(o: Option, repo: str) -> tuple[str, LaunchSpec]:
    """The GGUF file llama-server loads, and the steps that make it from the repository's weights."""
    tag = GGUF_TAG.get(o.weight_dtype, o.weight_dtype.upper())
    name = repo.rsplit("/", 1)[-1]
    f16, out = f"{name}-F16.gguf", f"{name}-{tag}.gguf"
    lines = [
        "set -e",
        f"huggingface-cli download {repo} --local-dir {name}",
        f"python llama.cpp/convert_hf_to_gguf.py {name} --outtype f16 --outfile {f16}",
    ]
    if tag != "F16":
        lines.append(f"llama-quantize {f16} {out} {tag}")
    else:
        out = f16
    step = LaunchSpec(
        runtime="gguf_convert",
        role="prepare",
        option=o.kind,
        primary=True,
        argv=["bash", "convert.sh"],
        config_files={"convert.sh": "\n".join(lines) + "\n"},
        settings={"weight_format": o.weight_dtype, "gguf_type": tag, "source_repo": repo, "output": out},
        needs=["gguf_convert"],
    )
    return out, step
