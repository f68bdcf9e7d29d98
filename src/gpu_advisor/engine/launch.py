"""What to run on the machine the plan rents: launch commands and config files.

Every number comes from the plan's pick (``Option``) or the setup it was sized with
(``ServeSetup``/``TrainSetup``, the runtime's ``memory_utilization``); nothing is
re-derived, so the command runs what was sized. Each spec is structured — ``argv``,
``env``, ``config_files`` — and ``shell`` is ``shlex.join(argv)`` behind the env.

Serving flags, spelled as each runtime documents them:

- vLLM ``vllm serve`` (docs.vllm.ai, "Engine Arguments" and "Parallelism and
  Scaling"): ``--tensor-parallel-size`` (GPUs per node), ``--pipeline-parallel-size``
  (nodes), ``--data-parallel-size`` (replicas in one server), ``--max-model-len``,
  ``--gpu-memory-utilization``, ``--max-num-seqs``, ``--max-num-batched-tokens`` (when the
  user set a token budget), ``--quantization``,
  ``--kv-cache-dtype``; multi-node runs need ``--distributed-executor-backend ray``
  over a Ray cluster (``ray start --head`` / ``ray start --address``).
- SGLang ``python -m sglang.launch_server`` (docs.sglang.io, "Server Arguments"):
  ``--model-path``, ``--tp``, ``--dp``, ``--pp-size``, ``--context-length``,
  ``--mem-fraction-static``, ``--max-running-requests``, ``--chunked-prefill-size`` (the
  user's token budget), ``--quantization``, ``--nnodes``/``--node-rank``/``--dist-init-addr``
  across machines.
- llama.cpp ``llama-server`` (tools/server/README.md, docs/multi-gpu.md): ``-m``,
  ``-c`` (the context is shared by the slots: each of ``-np`` slots gets ``c / np``,
  ggml-org/llama.cpp#11681, so ``-c`` is context × slots), ``-ngl 99`` (all layers on
  GPU), ``--split-mode layer`` (layers across GPUs, the default multi-GPU mode), ``-np``.

Training: ``torchrun --nproc_per_node --nnodes`` (PyTorch "torchrun") with a DeepSpeed
JSON (deepspeed.ai "DeepSpeed Configuration JSON": ``train_micro_batch_size_per_gpu``,
``gradient_accumulation_steps``, ``bf16.enabled``, ``zero_optimization.stage``), or a
LLaMA-Factory YAML (``llamafactory-cli train``; examples/train_lora, train_qlora:
``finetuning_type``, ``lora_rank``, ``lora_target``, ``quantization_bit``,
``per_device_train_batch_size``, ``gradient_accumulation_steps``, ``cutoff_len``,
``disable_gradient_checkpointing``, ``deepspeed``; ``FORCE_TORCHRUN=1`` for many GPUs).
"""

from __future__ import annotations

import json
import re
import shlex
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine import usable
from gpu_advisor.engine.defaults import GGUF_FORMATS, grad_accumulation

if TYPE_CHECKING:
    from gpu_advisor.engine.defaults import ServeSetup
    from gpu_advisor.engine.memory import TrainSetup
    from gpu_advisor.engine.results import Option
    from gpu_advisor.engine.specs import GpuSpec, ModelArch, RuntimeProfile

Setting = int | float | str | bool

# Formats vLLM/SGLang quantize on load from a 16-bit checkpoint (``--quantization fp8``).
DEFAULT_SHARE = 0.9  # a command for an option with no runtime on record: vLLM's default
ONLINE_QUANT = {"fp8": "fp8"}
# Formats that need a checkpoint already quantized that way; the runtime reads it from its config.
PREQUANTIZED = {"awq": "awq", "gptq": "gptq", "int4": "awq", "int8": "w8a8"}
GGUF_TAG = {"q4_k_m": "Q4_K_M", "q4_0": "Q4_0", "q8_0": "Q8_0", "fp16": "F16"}
HF_REPO = re.compile(r"huggingface\.co/([^/\s]+/[^/\s]+)")
# Stands for a model with no published repository (one sized from "13B" or a pasted config.json):
# the command must not name a template model, nor an id no hub knows; the text says to replace it.
MODEL_PLACEHOLDER = "YOUR_MODEL"
SERVE_RUNTIMES = ("vllm", "sglang", "llama_cpp")


class LaunchSpec(BaseModel):
    """One command that runs the plan's pick, with the files it reads and the numbers it carries."""

    model_config = ConfigDict(frozen=True)

    runtime: str = Field(description="vllm | sglang | llama_cpp | torchrun_deepspeed | llama_factory")
    role: str = Field(description="serve | train")
    option: str = Field(description="which option it runs: pick or serving")
    primary: bool = Field(description="the runtime (or method) the plan was sized for")
    argv: list[str]
    env: dict[str, str] = Field(default_factory=dict)
    config_files: dict[str, str] = Field(default_factory=dict)
    settings: dict[str, Setting] = Field(default_factory=dict, description="the plan's numbers it uses")
    needs: list[str] = Field(
        default_factory=list, description="what to prepare first: awq_checkpoint, gguf_file, ray_cluster…"
    )
    shell: str = ""

    def model_post_init(self, _: object) -> None:
        if not self.shell:
            env = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()]
            object.__setattr__(self, "shell", " ".join([*env, shlex.join(self.argv)]))


def hf_repo(arch: ModelArch) -> str:
    """``org/name`` from the model's config.json source on Hugging Face, else ``YOUR_MODEL``.

    A model built from a bare size borrows a template's shape (and cites its config), and one
    from a pasted config.json has no repository: neither may name one (their ids start ``custom``).
    """
    found = HF_REPO.search(arch.source) if not _unpublished(arch) else None
    return found.group(1) if found else MODEL_PLACEHOLDER


def _unpublished(arch: ModelArch) -> bool:
    return arch.id.startswith("custom")


def _model_needs(arch: ModelArch) -> list[str]:
    return ["model_repo"] if hf_repo(arch) == MODEL_PLACEHOLDER else []


def for_option(
    o: Option,
    arch: ModelArch,
    serve: ServeSetup | None,
    train: TrainSetup | None,
    rt: RuntimeProfile | None,
    gpu: GpuSpec,
) -> list[LaunchSpec]:
    """The commands for ``o``: its own runtime first, then the others that run its format.

    Every command claims the memory share the plan was sized with: the pick's runtime's
    on this card and TP group (``RuntimeProfile.memory_share``).
    """
    specs: list[LaunchSpec] = []
    if o.task == "infer" and serve is not None:
        group = (o.tensor_parallel or 1, serve.attention_dp)
        util = usable.share(gpu, serve.configured(rt, gpu), group=group) if rt else DEFAULT_SHARE
        specs = _serving(o, arch, serve, util)
        if gpu.vendor == "huawei":
            specs = _on_ascend(specs)
    elif o.task == "train" and train is not None:
        specs = _training(o, arch, train)
    first = _model_needs(arch)
    return [s.model_copy(update={"needs": [*first, *s.needs]}) for s in specs] if first else specs


# --- serving ----------------------------------------------------------------------


def _on_ascend(specs: list[LaunchSpec]) -> list[LaunchSpec]:
    """An Ascend card runs no CUDA: vLLM through the vLLM-Ascend plugin on CANN, nothing else.

    vLLM-Ascend keeps ``vllm serve``'s arguments (docs.vllm.ai/projects/ascend); the
    cards are chosen with ``ASCEND_RT_VISIBLE_DEVICES``; SGLang's and llama.cpp's CUDA
    builds do not run (MindIE is Huawei's own server for the same weights).
    """
    out = []
    for spec in specs:
        if spec.runtime != "vllm":
            continue
        env = {
            ("ASCEND_RT_VISIBLE_DEVICES" if k == "CUDA_VISIBLE_DEVICES" else k): v
            for k, v in spec.env.items()
        }
        needs = [*spec.needs, "cann_toolkit", "vllm_ascend"]
        out.append(spec.model_copy(update={"env": env, "needs": needs, "shell": ""}))
    return [LaunchSpec(**o.model_dump()) for o in out]


def _layout(o: Option, serve: ServeSetup) -> dict[str, Setting]:
    tp = o.tensor_parallel or 1
    pp = o.machines_per_replica or 1
    per_machine = max(1, o.count // tp) if pp == 1 else 1
    return {
        "tensor_parallel": tp,
        "pipeline_parallel": pp,
        "data_parallel": min(per_machine, o.replicas or 1),
        "context_len": serve.context_len,
        "max_seqs": o.batch or 1,
        "machines": o.machines,
    }


def _serving(o: Option, arch: ModelArch, serve: ServeSetup, util: float) -> list[LaunchSpec]:
    s = _layout(o, serve)
    if o.weight_dtype in GGUF_FORMATS:
        return [_llama_cpp(o, arch, s, util, primary=True)]
    builders = {"vllm": _vllm, "sglang": _sglang}
    own = o.runtime if o.runtime in builders else "vllm"
    specs = [builders[own](o, arch, serve, s, util, True)]
    specs += [b(o, arch, serve, s, util, False) for name, b in builders.items() if name != own]
    if o.weight_dtype in ("fp16", "bf16") and o.count * o.machines <= 8:
        specs.append(_llama_cpp(o, arch, s, 0.0, primary=False))
    return specs


def _needs(o: Option, serve: ServeSetup, s: dict[str, Setting]) -> list[str]:
    needs = [f"{PREQUANTIZED[o.weight_dtype]}_checkpoint"] if o.weight_dtype in PREQUANTIZED else []
    return [*needs, "multi_node"] if int(s["pipeline_parallel"]) > 1 else needs


def _vllm(
    o: Option, arch: ModelArch, serve: ServeSetup, s: dict[str, Setting], util: float, primary: bool
) -> LaunchSpec:
    argv = ["vllm", "serve", hf_repo(arch)]
    argv += ["--tensor-parallel-size", str(s["tensor_parallel"])]
    if int(s["pipeline_parallel"]) > 1:
        argv += ["--pipeline-parallel-size", str(s["pipeline_parallel"])]
        argv += ["--distributed-executor-backend", "ray"]
    if int(s["data_parallel"]) > 1:
        argv += ["--data-parallel-size", str(s["data_parallel"])]
    argv += ["--max-model-len", str(s["context_len"]), "--gpu-memory-utilization", f"{util:g}"]
    argv += ["--max-num-seqs", str(s["max_seqs"])]
    if serve.max_num_batched_tokens:
        argv += ["--max-num-batched-tokens", str(serve.max_num_batched_tokens)]
    if o.weight_dtype in ONLINE_QUANT:
        argv += ["--quantization", ONLINE_QUANT[o.weight_dtype]]
    if serve.kv_dtype == "fp8":
        argv += ["--kv-cache-dtype", "fp8"]
    needs = _needs(o, serve, s)
    needs = [*needs, "ray_cluster"] if int(s["pipeline_parallel"]) > 1 else needs
    return _serve_spec("vllm", o, primary, argv, {**s, "memory_fraction": util}, needs)


def _sglang(
    o: Option, arch: ModelArch, serve: ServeSetup, s: dict[str, Setting], util: float, primary: bool
) -> LaunchSpec:
    argv = ["python", "-m", "sglang.launch_server", "--model-path", hf_repo(arch)]
    argv += ["--tp", str(s["tensor_parallel"])]
    pp = int(s["pipeline_parallel"])
    if pp > 1:
        argv += ["--pp-size", str(pp), "--nnodes", str(pp), "--node-rank", "0"]
        argv += ["--dist-init-addr", "HEAD_IP:50000"]
    if int(s["data_parallel"]) > 1:
        argv += ["--dp", str(s["data_parallel"])]
    argv += ["--context-length", str(s["context_len"]), "--mem-fraction-static", f"{util:g}"]
    argv += ["--max-running-requests", str(s["max_seqs"])]
    if serve.max_num_batched_tokens:
        argv += ["--chunked-prefill-size", str(serve.max_num_batched_tokens)]
    if o.weight_dtype in ONLINE_QUANT:
        argv += ["--quantization", ONLINE_QUANT[o.weight_dtype]]
    if serve.kv_dtype == "fp8":
        argv += ["--kv-cache-dtype", "fp8_e4m3"]
    return _serve_spec("sglang", o, primary, argv, {**s, "memory_fraction": util}, _needs(o, serve, s))


def _llama_cpp(o: Option, arch: ModelArch, s: dict[str, Setting], util: float, primary: bool) -> LaunchSpec:
    """One llama-server per replica; its GPUs split the layers (``--split-mode layer``)."""
    slots = int(s["max_seqs"])
    gpus = max(1, o.count // max(1, int(s["data_parallel"])))
    tag = GGUF_TAG.get(o.weight_dtype, o.weight_dtype.upper())
    name = arch.id if hf_repo(arch) != MODEL_PLACEHOLDER else MODEL_PLACEHOLDER
    argv = ["llama-server", "-m", f"{name}-{tag}.gguf", "-c", str(int(s["context_len"]) * slots)]
    argv += ["-ngl", "99"]
    if gpus > 1:
        argv += ["--split-mode", "layer"]
    argv += ["-np", str(slots), "--host", "0.0.0.0", "--port", "8080"]
    env = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(gpus))} if o.count > 1 else {}
    settings = {**s, "gpus_per_server": gpus, "servers_per_machine": int(s["data_parallel"])}
    return LaunchSpec(
        runtime="llama_cpp",
        role="serve",
        option=o.kind,
        primary=primary,
        argv=argv,
        env=env,
        settings=settings,
        needs=["gguf_file"],
    )


def _serve_spec(
    runtime: str, o: Option, primary: bool, argv: list[str], s: dict[str, Setting], needs: list[str]
) -> LaunchSpec:
    return LaunchSpec(
        runtime=runtime, role="serve", option=o.kind, primary=primary, argv=argv, settings=s, needs=needs
    )


# --- training ---------------------------------------------------------------------


def _train_settings(o: Option, train: TrainSetup) -> dict[str, Setting]:
    s: dict[str, Setting] = {
        "method": o.method or train.method,
        "gpus_per_machine": o.count,
        "machines": o.machines,
        "zero_stage": o.zero_stage if o.zero_stage is not None else train.zero_stage,
        "micro_batch": train.batch_size,
        "grad_accumulation": grad_accumulation(train.batch_size),
        "seq_len": train.seq_len,
        "gradient_checkpointing": bool(o.gradient_checkpointing),
        "bf16": o.weight_dtype == "bf16",
    }
    if s["method"] != "full":
        s["lora_rank"] = train.lora_rank
    return s


def _training(o: Option, arch: ModelArch, train: TrainSetup) -> list[LaunchSpec]:
    s = _train_settings(o, train)
    factory = _llama_factory(o, arch, s)
    if s["method"] != "full":
        return [factory]
    return [_torchrun(o, arch, s), factory]


def deepspeed_config(s: dict[str, Setting]) -> dict[str, object]:
    """The DeepSpeed JSON for the plan's ZeRO stage, micro-batch and accumulation."""
    dtype = "bf16" if s["bf16"] else "fp16"
    return {
        "train_micro_batch_size_per_gpu": s["micro_batch"],
        "gradient_accumulation_steps": s["grad_accumulation"],
        dtype: {"enabled": True},
        "zero_optimization": {"stage": s["zero_stage"], "overlap_comm": True},
        "gradient_clipping": 1.0,
    }


def _torchrun_prefix(o: Option) -> list[str]:
    argv = ["torchrun", "--nproc_per_node", str(o.count)]
    if o.machines > 1:
        argv += ["--nnodes", str(o.machines), "--node_rank", "0"]
        argv += ["--master_addr", "HEAD_IP", "--master_port", "29500"]
    return argv


def _torchrun(o: Option, arch: ModelArch, s: dict[str, Setting]) -> LaunchSpec:
    argv = [*_torchrun_prefix(o), "train.py", "--model_name_or_path", hf_repo(arch)]
    argv += ["--deepspeed", "ds_config.json"]
    argv += ["--per_device_train_batch_size", str(s["micro_batch"])]
    argv += ["--gradient_accumulation_steps", str(s["grad_accumulation"])]
    argv += ["--max_seq_length", str(s["seq_len"])]
    if s["gradient_checkpointing"]:
        argv += ["--gradient_checkpointing"]
    argv += ["--bf16" if s["bf16"] else "--fp16"]
    config = json.dumps(deepspeed_config(s), indent=2)
    return LaunchSpec(
        runtime="torchrun_deepspeed",
        role="train",
        option=o.kind,
        primary=True,
        argv=argv,
        config_files={"ds_config.json": config},
        settings=s,
        needs=["train_script"] + (["multi_node"] if o.machines > 1 else []),
    )


def llama_factory_yaml(repo: str, s: dict[str, Setting]) -> str:
    """LLaMA-Factory's SFT config (its examples/train_lora/llama3_lora_sft.yaml, keys as there)."""
    lines = [
        f"model_name_or_path: {repo}",
        "stage: sft",
        "do_train: true",
        f"finetuning_type: {'full' if s['method'] == 'full' else 'lora'}",
    ]
    if s["method"] != "full":
        lines += [f"lora_rank: {s['lora_rank']}", "lora_target: all"]
    if s["method"] == "qlora":
        lines += ["quantization_bit: 4"]
    if int(s["zero_stage"]) > 0:
        lines += ["deepspeed: ds_config.json"]
    lines += [
        "dataset: YOUR_DATASET",
        "template: default",
        f"cutoff_len: {s['seq_len']}",
        "output_dir: saves/run",
        f"per_device_train_batch_size: {s['micro_batch']}",
        f"gradient_accumulation_steps: {s['grad_accumulation']}",
        f"{'bf16' if s['bf16'] else 'fp16'}: true",
    ]
    if not s["gradient_checkpointing"]:
        lines += ["disable_gradient_checkpointing: true"]
    return "\n".join(lines) + "\n"


def _llama_factory(o: Option, arch: ModelArch, s: dict[str, Setting]) -> LaunchSpec:
    files = {"train.yaml": llama_factory_yaml(hf_repo(arch), s)}
    if int(s["zero_stage"]) > 0:
        files["ds_config.json"] = json.dumps(deepspeed_config(s), indent=2)
    env = {"FORCE_TORCHRUN": "1"} if o.count * o.machines > 1 else {}
    if o.machines > 1:
        env |= {"NNODES": str(o.machines), "NODE_RANK": "0", "MASTER_ADDR": "HEAD_IP"}
    return LaunchSpec(
        runtime="llama_factory",
        role="train",
        option=o.kind,
        primary=s["method"] != "full",
        argv=["llamafactory-cli", "train", "train.yaml"],
        env=env,
        config_files=files,
        settings=s,
        needs=["dataset"] + (["multi_node"] if o.machines > 1 else []),
    )
