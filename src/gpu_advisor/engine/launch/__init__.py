"""What to run on the machine the plan rents: launch commands and config files.

Every number comes from the plan's pick (``Option``) or the setup it was sized with
(``ServeSetup``/``TrainSetup``, the runtime's memory share); nothing is re-derived, so the
command runs what was sized. The modules:

- ``spec``: ``LaunchSpec`` (argv, env, config files, the numbers it carries, the release whose
  flags it was checked against) and how a model is named on the command line;
- ``weights``: which published checkpoint a serving command loads, or the quantize/convert
  steps that make the planned format when none is published (``knowledge/checkpoints.yaml``);
- ``serving``: vLLM, SGLang, TensorRT-LLM, llama.cpp and (for GGUF plans) Ollama commands;
  ``training``: LLaMA-Factory, ms-swift and torchrun; ``torchtune``: torchtune's ``tune run``.

Commands are written for NVIDIA (CUDA) cards; an Ascend card gets vLLM through the vLLM-Ascend
plugin (``_on_ascend``; a plan in a format vLLM-Ascend cannot load says its command is for NVIDIA
cards) and training commands that say they are for NVIDIA cards; an AMD card the same commands,
with a note that they run on the ROCm builds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_advisor.engine import usable
from gpu_advisor.engine.checkpoints import Checkpoints
from gpu_advisor.engine.launch.serving import serving
from gpu_advisor.engine.launch.spec import MODEL_PLACEHOLDER, RELEASES, LaunchSpec, Setting, hf_repo
from gpu_advisor.engine.launch.training import deepspeed_config, llama_factory_yaml, training

if TYPE_CHECKING:
    from gpu_advisor.engine.defaults import ServeSetup
    from gpu_advisor.engine.memory import TrainSetup
    from gpu_advisor.engine.results import Option
    from gpu_advisor.engine.specs import GpuSpec, ModelArch, RuntimeProfile

__all__ = [
    "DEFAULT_SHARE",
    "MODEL_PLACEHOLDER",
    "RELEASES",
    "LaunchSpec",
    "Setting",
    "deepspeed_config",
    "for_option",
    "hf_repo",
    "llama_factory_yaml",
]

DEFAULT_SHARE = 0.9  # a command for an option with no runtime on record: vLLM's default
NO_CHECKPOINTS = Checkpoints()


def for_option(
    o: Option,
    arch: ModelArch,
    serve: ServeSetup | None,
    train: TrainSetup | None,
    rt: RuntimeProfile | None,
    gpu: GpuSpec,
    weights: Checkpoints = NO_CHECKPOINTS,
) -> list[LaunchSpec]:
    """The commands for ``o``: the steps its weights need, its own runtime, then the others.

    Every serving command claims the memory share the plan was sized with: the pick's runtime's
    on this card and TP group (``usable.share``); ``weights`` is the published-checkpoint table.
    """
    specs: list[LaunchSpec] = []
    if o.task == "infer" and serve is not None:
        group = (o.tensor_parallel or 1, serve.attention_dp)
        util = usable.share(gpu, serve.configured(rt, gpu), group=group) if rt else DEFAULT_SHARE
        specs = serving(o, arch, serve, util, weights)
        if gpu.vendor == "huawei":
            specs = _on_ascend(specs, o)
    elif o.task == "train" and train is not None:
        specs = training(o, arch, train)
    vendor_need = {"huawei": "nvidia_only", "amd": "rocm_build"}.get(gpu.vendor)
    if vendor_need and (o.task == "train" or gpu.vendor == "amd"):
        specs = [s.model_copy(update={"needs": [*s.needs, vendor_need]}) for s in specs]
    first = ["model_repo"] if hf_repo(arch) == MODEL_PLACEHOLDER else []
    return [s.model_copy(update={"needs": [*first, *s.needs]}) for s in specs] if first else specs


def _on_ascend(specs: list[LaunchSpec], o: Option) -> list[LaunchSpec]:
    """An Ascend card runs no CUDA: vLLM through the vLLM-Ascend plugin on CANN, nothing else.

    vLLM-Ascend 0.11.0 is the plugin release for vLLM 0.11.0 (CANN >= 8.3.RC1, torch-npu 2.7.1;
    its docs/source/installation.md) and keeps ``vllm serve``'s arguments; the cards are chosen
    with ``ASCEND_RT_VISIBLE_DEVICES``; SGLang's and llama.cpp's CUDA builds do not run (MindIE is
    Huawei's own server for the same weights). Its only quantization is its own W8A8 made by
    ModelSlim (``--quantization ascend``, docs/source/user_guide/feature_guide/quantization.md at
    v0.11.0): AWQ/GPTQ, llm-compressor's W8A8, FP8 and MXFP4 weights are CUDA kernels' formats, so
    a plan in one of them says its command is for NVIDIA cards (``ascend_format``) rather than
    print a command that fails on the NPU. A quantize step stays: it runs on any machine.
    """
    sixteen_bit = o.weight_dtype in ("fp16", "bf16") and not any(
        n.startswith("served_as_published") for s in specs for n in s.needs
    )
    out = []
    for spec in specs:
        if spec.role == "serve" and spec.runtime != "vllm":
            continue
        rename = {"CUDA_VISIBLE_DEVICES": "ASCEND_RT_VISIBLE_DEVICES"}
        env = {rename.get(k, k): v for k, v in spec.env.items()}
        needs = spec.needs
        if spec.role == "serve":
            needs = [*needs, "cann_toolkit", "vllm_ascend", *([] if sixteen_bit else ["ascend_format"])]
        out.append(LaunchSpec(**{**spec.model_dump(), "env": env, "needs": needs, "shell": ""}))
    return out
