"""Training commands: LLaMA-Factory's SFT config for the plan's method, batch, sequence length,
ZeRO stage and card count, launched by ``llamafactory-cli`` or by torchrun directly.

- LLaMA-Factory (examples/train_lora, train_qlora, train_full; keys as there): ``finetuning_type``,
  ``lora_rank``, ``lora_target``, ``quantization_bit``, ``per_device_train_batch_size``,
  ``gradient_accumulation_steps``, ``cutoff_len``, ``disable_gradient_checkpointing``,
  ``deepspeed``, ``template`` (the chat template of the model family). ``llamafactory-cli
  train`` starts torchrun itself with ``FORCE_TORCHRUN=1``, and across machines reads
  ``NNODES``, ``NODE_RANK``, ``MASTER_ADDR``, ``MASTER_PORT`` (its README, "Distributed training").
- ms-swift ``swift sft`` (3.8; its "Command Line Parameters" page): ``--train_type``,
  ``--lora_rank``, ``--target_modules all-linear``, ``--quant_method bnb --quant_bits 4``
  (QLoRA), ``--per_device_train_batch_size``, ``--gradient_accumulation_steps``, ``--max_length``,
  ``--gradient_checkpointing``, ``--deepspeed zeroN`` (its bundled ZeRO configs); across GPUs and
  machines it reads ``NPROC_PER_NODE``, ``NNODES``, ``NODE_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``.
- A full fine-tune also gets the explicit form: ``torchrun --nproc_per_node --nnodes
  --node_rank --master_addr --master_port -m llamafactory.launcher train.yaml`` (the module
  ``llamafactory-cli`` hands torchrun) with the DeepSpeed JSON (deepspeed.ai "DeepSpeed
  Configuration JSON": ``train_micro_batch_size_per_gpu``, ``gradient_accumulation_steps``,
  ``bf16.enabled``, ``zero_optimization.stage``).

- torchtune ``tune run`` (engine/launch/torchtune.py): the recipe and config it ships for the model,
  with the plan's numbers as overrides, after the config's own ``tune download``.

Only two values cannot be known here and stay placeholders, named for what they are:
``YOUR_DATASET`` (registered in LLaMA-Factory's data/dataset_info.json) and ``HEAD_IP`` (the
first machine's address, multi-machine runs only).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gpu_advisor.engine.defaults import grad_accumulation
from gpu_advisor.engine.launch.spec import RELEASES, LaunchSpec, Setting, hf_repo
from gpu_advisor.engine.launch.torchtune import torchtune

if TYPE_CHECKING:
    from gpu_advisor.engine.memory import TrainSetup
    from gpu_advisor.engine.results import Option
    from gpu_advisor.engine.specs import ModelArch

MASTER_PORT = "29500"
# The DeepSpeed release whose config keys ds_config.json is checked against (runtime_flags.yaml).
DEEPSPEED_RELEASE = "v0.19.5"
# LLaMA-Factory's chat templates by model family (its src/llamafactory/data/template.py names).
TEMPLATES = {
    "llama-2": "llama2",
    "llama-3": "llama3",
    "llama-3.1": "llama3",
    "llama-3.2": "llama3",
    "llama-3.3": "llama3",
    "qwen2.5": "qwen",
    "qwen3": "qwen3",
    "mistral": "mistral",
    "mixtral": "mistral",
    "gemma-2": "gemma",
    "gemma-3": "gemma3",
    "deepseek-r1-distill": "deepseekr1",
    "deepseek-v3": "deepseek3",
    "glm-4": "glm4",
    "phi-3": "phi",
    "phi-4": "phi4",
    "yi": "yi",
    "baichuan2": "baichuan2",
    "internlm2.5": "intern2",
}


def template(arch: ModelArch) -> str:
    """The model family's chat template, else LLaMA-Factory's ``default``."""
    return next((t for prefix, t in TEMPLATES.items() if arch.id.startswith(prefix)), "default")


def settings(o: Option, train: TrainSetup) -> dict[str, Setting]:
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


def training(o: Option, arch: ModelArch, train: TrainSetup) -> list[LaunchSpec]:
    s = settings(o, train)
    others = [_llama_factory(o, arch, s), _swift(o, arch, s), *torchtune(o, arch, s)]
    if s["method"] != "full":
        return others
    return [_torchrun(o, arch, s), *others]


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


def llama_factory_yaml(repo: str, s: dict[str, Setting], chat_template: str = "default") -> str:
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
        f"template: {chat_template}",
        f"cutoff_len: {s['seq_len']}",
        "output_dir: saves/run",
        f"per_device_train_batch_size: {s['micro_batch']}",
        f"gradient_accumulation_steps: {s['grad_accumulation']}",
        f"{'bf16' if s['bf16'] else 'fp16'}: true",
    ]
    if not s["gradient_checkpointing"]:
        lines += ["disable_gradient_checkpointing: true"]
    return "\n".join(lines) + "\n"


def _files(arch: ModelArch, s: dict[str, Setting]) -> dict[str, str]:
    files = {"train.yaml": llama_factory_yaml(hf_repo(arch), s, template(arch))}
    if int(s["zero_stage"]) > 0:
        files["ds_config.json"] = json.dumps(deepspeed_config(s), indent=2)
    return files


def _torchrun(o: Option, arch: ModelArch, s: dict[str, Setting]) -> LaunchSpec:
    argv = ["torchrun", "--nproc_per_node", str(o.count)]
    if o.machines > 1:
        argv += ["--nnodes", str(o.machines), "--node_rank", "0"]
        argv += ["--master_addr", "HEAD_IP", "--master_port", MASTER_PORT]
    argv += ["-m", "llamafactory.launcher", "train.yaml"]
    return LaunchSpec(
        runtime="torchrun_deepspeed",
        role="train",
        option=o.kind,
        primary=True,
        argv=argv,
        config_files=_files(arch, s),
        settings=s,
        needs=["dataset"] + (["multi_node"] if o.machines > 1 else []),
    )


def _rendezvous(o: Option) -> dict[str, str]:
    if o.machines == 1:
        return {}
    return {"NNODES": str(o.machines), "NODE_RANK": "0", "MASTER_ADDR": "HEAD_IP", "MASTER_PORT": MASTER_PORT}


def _swift(o: Option, arch: ModelArch, s: dict[str, Setting]) -> LaunchSpec:
    """The same run as ms-swift's ``swift sft``."""
    lora = s["method"] != "full"
    argv = ["swift", "sft", "--model", hf_repo(arch), "--train_type", "lora" if lora else "full"]
    if lora:
        argv += ["--lora_rank", str(s["lora_rank"]), "--target_modules", "all-linear"]
    if s["method"] == "qlora":
        argv += ["--quant_method", "bnb", "--quant_bits", "4"]
    argv += ["--dataset", "YOUR_DATASET", "--torch_dtype", "bfloat16" if s["bf16"] else "float16"]
    argv += ["--per_device_train_batch_size", str(s["micro_batch"])]
    argv += ["--gradient_accumulation_steps", str(s["grad_accumulation"]), "--max_length", str(s["seq_len"])]
    argv += ["--gradient_checkpointing", "true" if s["gradient_checkpointing"] else "false"]
    if int(s["zero_stage"]) > 0:
        argv += ["--deepspeed", f"zero{s['zero_stage']}"]
    argv += ["--output_dir", "output"]
    return LaunchSpec(
        runtime="ms_swift",
        role="train",
        option=o.kind,
        primary=False,
        argv=argv,
        env={"NPROC_PER_NODE": str(o.count)} | _rendezvous(o),
        settings=s,
        needs=["dataset_swift"] + (["multi_node"] if o.machines > 1 else []),
        release=RELEASES["ms_swift"],
    )


def _llama_factory(o: Option, arch: ModelArch, s: dict[str, Setting]) -> LaunchSpec:
    env = ({"FORCE_TORCHRUN": "1"} if o.count * o.machines > 1 else {}) | _rendezvous(o)
    return LaunchSpec(
        runtime="llama_factory",
        role="train",
        option=o.kind,
        primary=s["method"] != "full",
        argv=["llamafactory-cli", "train", "train.yaml"],
        env=env,
        config_files=_files(arch, s),
        settings=s,
        needs=["dataset"] + (["multi_node"] if o.machines > 1 else []),
        release=RELEASES["llama_factory"],
    )
