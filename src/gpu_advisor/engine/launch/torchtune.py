"""torchtune's ``tune run`` for a training plan: the recipe and config torchtune 0.6.1 ships for the
model, with the plan's batch, accumulation, sequence length, activation checkpointing and LoRA rank
as command-line overrides (``key=value``, its "All About Configs" page).

- Recipes (its torchtune/_recipe_registry.py): ``full_finetune_distributed`` /
  ``full_finetune_single_device`` for a full fine-tune, ``lora_finetune_distributed`` /
  ``lora_finetune_single_device`` for LoRA and QLoRA; configs are ``FAMILY/SIZE_full``,
  ``_lora``, ``_qlora`` with ``_single_device`` on one card.
- Several cards: ``tune run --nproc_per_node N`` (torchrun's options, which ``tune run`` copies);
  several machines: ``--nnodes``, ``--rdzv_backend c10d``, ``--rdzv_endpoint HEAD_IP:29500``.
  torchtune shards with FSDP2 (every parameter, gradient and optimizer state, as ZeRO-3 does):
  there is no ZeRO stage to set.
- Weights: each config reads the checkpoint its header comment downloads (mostly the instruct
  model), so the line starts with that ``tune download``; ``TORCHTUNE_CONFIGS`` holds it per config,
  for the configs that take every override the line sets (``knowledge/runtime_flags.yaml``'s
  torchtune row holds the registry, the download lines and each config's keys; a test keeps the
  two equal).
- Precision: the recipes train in BF16 or FP32 only, so a card without BF16 gets no torchtune line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_advisor.engine.launch.spec import RELEASES, LaunchSpec, Setting

if TYPE_CHECKING:
    from gpu_advisor.engine.results import Option
    from gpu_advisor.engine.specs import ModelArch

MASTER_PORT = "29500"
# Our model ids' family prefix -> torchtune's config folder (the size follows the prefix).
FAMILIES = {
    "llama-2-": "llama2",
    "llama-3-": "llama3",
    "llama-3.1-": "llama3_1",
    "llama-3.2-": "llama3_2",
    "llama-3.3-": "llama3_3",
    "qwen2.5-": "qwen2_5",
    "mistral-": "mistral",
}
# Config -> what its header comment downloads (torchtune v0.6.1 recipes/configs): the repository
# (into tune download's default /tmp/<name>, the checkpoint_dir the config reads) and the files to skip.
TORCHTUNE_CONFIGS: dict[str, tuple[str, str | None]] = {
    "llama2/13B_full": ("meta-llama/Llama-2-13b-hf", "*.safetensors"),
    "llama2/13B_lora": ("meta-llama/Llama-2-13b-hf", "*.safetensors"),
    "llama2/13B_qlora_single_device": ("meta-llama/Llama-2-13b-hf", "*.safetensors"),
    "llama2/70B_lora": ("meta-llama/Llama-2-70b-hf", "*.safetensors"),
    "llama2/70B_qlora": ("meta-llama/Llama-2-70b-hf", "*.safetensors"),
    "llama2/7B_full": ("meta-llama/Llama-2-7b-hf", "*.safetensors"),
    "llama2/7B_lora": ("meta-llama/Llama-2-7b-hf", "*.safetensors"),
    "llama2/7B_lora_single_device": ("meta-llama/Llama-2-7b-hf", "*.safetensors"),
    "llama2/7B_qlora": ("meta-llama/Llama-2-7b-hf", "*.safetensors"),
    "llama2/7B_qlora_single_device": ("meta-llama/Llama-2-7b-hf", "*.safetensors"),
    "llama3/70B_full": ("meta-llama/Meta-Llama-3-70B-Instruct", "original/consolidated*"),
    "llama3/70B_lora": ("meta-llama/Meta-Llama-3-70B-Instruct", "original/consolidated*"),
    "llama3/8B_full": ("meta-llama/Meta-Llama-3-8B-Instruct", "*.safetensors"),
    "llama3/8B_full_single_device": ("meta-llama/Meta-Llama-3-8B-Instruct", "*.safetensors"),
    "llama3/8B_lora": ("meta-llama/Meta-Llama-3-8B-Instruct", "*.safetensors"),
    "llama3/8B_lora_single_device": ("meta-llama/Meta-Llama-3-8B-Instruct", "*.safetensors"),
    "llama3/8B_qlora_single_device": ("meta-llama/Meta-Llama-3-8B-Instruct", "*.safetensors"),
    "llama3_1/70B_full": ("meta-llama/Meta-Llama-3.1-70B-Instruct", "original/consolidated*"),
    "llama3_1/70B_lora": ("meta-llama/Meta-Llama-3.1-70B-Instruct", "original/consolidated*"),
    "llama3_1/8B_full": ("meta-llama/Meta-Llama-3.1-8B-Instruct", "original/consolidated.00.pth"),
    "llama3_1/8B_full_single_device": (
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "original/consolidated.00.pth",
    ),
    "llama3_1/8B_lora": ("meta-llama/Meta-Llama-3.1-8B-Instruct", "original/consolidated.00.pth"),
    "llama3_1/8B_lora_single_device": (
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "original/consolidated.00.pth",
    ),
    "llama3_1/8B_qlora_single_device": (
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "original/consolidated.00.pth",
    ),
    "llama3_2/1B_full": ("meta-llama/Llama-3.2-1B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/1B_full_single_device": ("meta-llama/Llama-3.2-1B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/1B_lora": ("meta-llama/Llama-3.2-1B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/1B_lora_single_device": ("meta-llama/Llama-3.2-1B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/1B_qlora_single_device": ("meta-llama/Llama-3.2-1B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/3B_full": ("meta-llama/Llama-3.2-3B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/3B_full_single_device": ("meta-llama/Llama-3.2-3B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/3B_lora": ("meta-llama/Llama-3.2-3B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/3B_lora_single_device": ("meta-llama/Llama-3.2-3B-Instruct", "original/consolidated.00.pth"),
    "llama3_2/3B_qlora_single_device": ("meta-llama/Llama-3.2-3B-Instruct", "original/consolidated.00.pth"),
    "llama3_3/70B_full": ("meta-llama/Llama-3.3-70B-Instruct", "original/consolidated*"),
    "llama3_3/70B_lora": ("meta-llama/Llama-3.3-70B-Instruct", "original/consolidated*"),
    "llama3_3/70B_qlora": ("meta-llama/Llama-3.3-70B-Instruct", "original/consolidated*"),
    "mistral/7B_full": ("mistralai/Mistral-7B-v0.1", "*.safetensors"),
    "mistral/7B_lora": ("mistralai/Mistral-7B-v0.1", "*.safetensors"),
    "mistral/7B_lora_single_device": ("mistralai/Mistral-7B-v0.1", "*.safetensors"),
    "mistral/7B_qlora_single_device": ("mistralai/Mistral-7B-v0.1", "*.safetensors"),
    "qwen2_5/0.5B_full": ("Qwen/Qwen2.5-0.5B-Instruct", None),
    "qwen2_5/0.5B_full_single_device": ("Qwen/Qwen2.5-0.5B-Instruct", None),
    "qwen2_5/0.5B_lora": ("Qwen/Qwen2.5-0.5B-Instruct", None),
    "qwen2_5/0.5B_lora_single_device": ("Qwen/Qwen2.5-0.5B-Instruct", None),
    "qwen2_5/1.5B_full": ("Qwen/Qwen2.5-1.5B-Instruct", None),
    "qwen2_5/1.5B_full_single_device": ("Qwen/Qwen2.5-1.5B-Instruct", None),
    "qwen2_5/1.5B_lora": ("Qwen/Qwen2.5-1.5B-Instruct", None),
    "qwen2_5/1.5B_lora_single_device": ("Qwen/Qwen2.5-1.5B-Instruct", None),
    "qwen2_5/14B_lora_single_device": ("Qwen/Qwen2.5-14B-Instruct", None),
    "qwen2_5/32B_lora": ("Qwen/Qwen2.5-32B-Instruct", None),
    "qwen2_5/3B_full": ("Qwen/Qwen2.5-3B-Instruct", None),
    "qwen2_5/3B_full_single_device": ("Qwen/Qwen2.5-3B-Instruct", None),
    "qwen2_5/3B_lora": ("Qwen/Qwen2.5-3B-Instruct", None),
    "qwen2_5/3B_lora_single_device": ("Qwen/Qwen2.5-3B-Instruct", None),
    "qwen2_5/72B_lora": ("Qwen/Qwen2.5-72B-Instruct", None),
    "qwen2_5/7B_full": ("Qwen/Qwen2.5-7B-Instruct", None),
    "qwen2_5/7B_full_single_device": ("Qwen/Qwen2.5-7B-Instruct", None),
    "qwen2_5/7B_lora": ("Qwen/Qwen2.5-7B-Instruct", None),
    "qwen2_5/7B_lora_single_device": ("Qwen/Qwen2.5-7B-Instruct", None),
}


def config_for(arch: ModelArch, method: str, distributed: bool) -> tuple[str, str] | None:
    """(recipe, config) torchtune ships for this model and method, or None."""
    folder = next(((p, f) for p, f in FAMILIES.items() if arch.id.startswith(p)), None)
    if folder is None:
        return None
    size = arch.id.removeprefix(folder[0]).upper()
    kind = "full" if method == "full" else ("qlora" if method == "qlora" else "lora")
    config = f"{folder[1]}/{size}_{kind}{'' if distributed else '_single_device'}"
    if config not in TORCHTUNE_CONFIGS:
        return None
    recipe = (
        f"{'full' if kind == 'full' else 'lora'}_finetune_{'distributed' if distributed else 'single_device'}"
    )
    return recipe, config


def download(config: str, o: Option) -> LaunchSpec:
    """The config's own ``tune download``: the weights it reads, into the folder it reads them from."""
    repo, skip = TORCHTUNE_CONFIGS[config]
    folder = f"/tmp/{repo.rsplit('/', 1)[-1]}"
    argv = ["tune", "download", repo, "--output-dir", folder, *(["--ignore-patterns", skip] if skip else [])]
    return LaunchSpec(
        runtime="torchtune_download",
        role="prepare",
        option=o.kind,
        primary=False,
        argv=argv,
        settings={"source_repo": repo, "output_dir": folder, "torchtune_config": config},
    )  # no release: the whole line is the config's own (tests compare it to the pinned comment)


def torchtune(o: Option, arch: ModelArch, s: dict[str, Setting]) -> list[LaunchSpec]:
    """The config's download, then the plan as ``tune run``; nothing where torchtune has no
    config for the model and method, or the card trains in FP16."""
    distributed = o.count * o.machines > 1
    found = config_for(arch, str(s["method"]), distributed)
    if found is None or not s["bf16"]:
        return []
    recipe, config = found
    argv = ["tune", "run"]
    if distributed:
        argv += ["--nproc_per_node", str(o.count)]
    if o.machines > 1:
        argv += ["--nnodes", str(o.machines), "--rdzv_backend", "c10d"]
        argv += ["--rdzv_endpoint", f"HEAD_IP:{MASTER_PORT}"]
    argv += [recipe, "--config", config]
    argv += [f"batch_size={s['micro_batch']}", f"gradient_accumulation_steps={s['grad_accumulation']}"]
    argv += [f"tokenizer.max_seq_len={s['seq_len']}"]
    argv += [f"enable_activation_checkpointing={bool(s['gradient_checkpointing'])}"]
    if s["method"] != "full":
        rank = int(s["lora_rank"])
        argv += [f"model.lora_rank={rank}", f"model.lora_alpha={2 * rank}"]
    run = LaunchSpec(
        runtime="torchtune",
        role="train",
        option=o.kind,
        primary=False,
        argv=argv,
        settings={**s, "torchtune_config": config, "torchtune_recipe": recipe},
        needs=["dataset_torchtune"] + (["multi_node"] if o.machines > 1 else []),
        release=RELEASES["torchtune"],
    )
    return [download(config, o), run]
