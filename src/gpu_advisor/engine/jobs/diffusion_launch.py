"""The command that starts the tool people run a diffusion model with, as one string.

- ComfyUI: ``python main.py --listen 0.0.0.0 --port 8188`` with the memory flag that matches
  the offload (``--lowvram`` keeps only the active model on the card, ``--novram`` streams
  its layers; ``--highvram`` keeps everything resident when nothing is offloaded) and
  ``--fp8_e4m3fn-unet`` / ``--fp8_e4m3fn-text-enc`` for FP8 weights (ComfyUI's
  ``comfy/cli_args.py``). GGUF/NF4 checkpoints load through their custom nodes
  (ComfyUI-GGUF), so no flag changes.
- Forge: ``./webui.sh --listen --port 7860`` (``--always-offload-from-vram`` with offload).
- diffusers: a one-line script that loads the pipeline (the diffusers-format release where the
  model's own checkpoint is not one) in its dtype, with
  ``enable_model_cpu_offload()`` / ``enable_sequential_cpu_offload()`` as asked.
- Wan / HunyuanVideo repositories: their ``generate.py`` / ``sample_video.py`` with
  ``torchrun --nproc_per_node=N`` and the xDiT Ulysses degree for several cards, as their
  READMEs show.
- Trainers: kohya-ss sd-scripts' ``accelerate launch`` of the model's LoRA script, or
  ai-toolkit's ``python run.py`` on a copy of its example config for the model.
"""

from __future__ import annotations

from gpu_advisor.engine.jobs.diffusion import DiffusionSpec, Run

COMFY_MEMORY = {"none": "--highvram", "model": "--lowvram", "sequential": "--novram"}
# Wan's and HunyuanVideo's own checkpoints are laid out for their repositories' scripts (no
# model_index.json), so DiffusionPipeline.from_pretrained cannot load them; diffusers loads the
# diffusers-format releases its pipeline pages name: https://huggingface.co/docs/diffusers/api/pipelines/wan
# (Wan-AI/Wan2.1-T2V-14B-Diffusers, -1.3B-Diffusers, Wan2.2-T2V-A14B-Diffusers, Wan2.2-TI2V-5B-Diffusers)
# and https://huggingface.co/docs/diffusers/api/pipelines/hunyuan_video (hunyuanvideo-community/HunyuanVideo).
DIFFUSERS_FORMAT = {
    "Wan-AI/Wan2.1-T2V-14B": "Wan-AI/Wan2.1-T2V-14B-Diffusers",
    "Wan-AI/Wan2.1-T2V-1.3B": "Wan-AI/Wan2.1-T2V-1.3B-Diffusers",
    "Wan-AI/Wan2.2-T2V-A14B": "Wan-AI/Wan2.2-T2V-A14B-Diffusers",
    "Wan-AI/Wan2.2-TI2V-5B": "Wan-AI/Wan2.2-TI2V-5B-Diffusers",
    "tencent/HunyuanVideo": "hunyuanvideo-community/HunyuanVideo",
}


def diffusion_command(spec: DiffusionSpec, run: Run, tool: str, gpus: int = 1) -> str:
    """The launch line for ``tool`` running ``spec`` as ``run`` says."""
    if tool == "forge":
        offload = " --always-offload-from-vram" if run.offload != "none" else ""
        return f"./webui.sh --listen --port 7860{offload}"
    if tool == "diffusers":
        return _diffusers(spec, run)
    if tool == "wan":
        return _wan(spec, run, gpus)
    if tool == "hunyuanvideo":
        return _hunyuan(run, gpus)
    return _comfy(run)


def _comfy(run: Run) -> str:
    flags = ["--listen 0.0.0.0", "--port 8188", COMFY_MEMORY[run.offload]]
    if run.format == "fp8":
        flags += ["--fp8_e4m3fn-unet", "--fp8_e4m3fn-text-enc"]
    return "python main.py " + " ".join(flags)


def _diffusers(spec: DiffusionSpec, run: Run) -> str:
    dtype = "float16" if run.format == "fp16" else "bfloat16"
    place = {
        "none": ".to('cuda')",
        "model": ".enable_model_cpu_offload()",
        "sequential": ".enable_sequential_cpu_offload()",
    }[run.offload]
    frames = f", num_frames={run.frames}" if spec.kind == "video" else ""
    call = f"p(prompt, num_inference_steps={run.steps}, height={run.height}, width={run.width}{frames})"
    return (
        'python -c "import torch; from diffusers import DiffusionPipeline; '
        f"p = DiffusionPipeline.from_pretrained('{DIFFUSERS_FORMAT.get(spec.repo, spec.repo)}', "
        f"torch_dtype=torch.{dtype}); p{place}; "
        f"prompt = 'a photo of a cat'; out = {call}\""
    )


def wan_task(spec: DiffusionSpec) -> str:
    """The ``--task`` the model's own repository names it by: its checkpoint's name after the
    version, the kind lower-cased (``Wan2.1-T2V-1.3B`` is ``t2v-1.3B``, ``Wan2.2-T2V-A14B`` is
    ``t2v-A14B``, ``Wan2.2-TI2V-5B`` is ``ti2v-5B``; the keys of ``WAN_CONFIGS``)."""
    kind, _, size = spec.repo.split("/")[-1].split("-", 1)[1].partition("-")
    return f"{kind.lower()}-{size}"


def _wan(spec: DiffusionSpec, run: Run, gpus: int) -> str:
    task = wan_task(spec)
    size = f"{run.width}*{run.height}"
    common = f"generate.py --task {task} --size {size} --frame_num {run.frames} --sample_steps {run.steps}"
    ckpt = f" --ckpt_dir ./{spec.repo.split('/')[-1]}"
    if gpus > 1:
        return f"torchrun --nproc_per_node={gpus} {common}{ckpt} --dit_fsdp --t5_fsdp --ulysses_size {gpus}"
    offload = " --offload_model True --t5_cpu" if run.offload != "none" else ""
    return f"python {common}{ckpt}{offload}"


def _hunyuan(run: Run, gpus: int) -> str:
    args = (
        f"sample_video.py --video-size {run.height} {run.width} --video-length {run.frames} "
        f"--infer-steps {run.steps} --flow-reverse"
    )
    if gpus > 1:
        return f"torchrun --nproc_per_node={gpus} {args} --ulysses-degree {gpus} --ring-degree 1"
    offload = " --use-cpu-offload" if run.offload != "none" else ""
    return f"python3 {args}{offload}"


# The training script of each model line, (network/LoRA, full): kohya-ss sd-scripts' top-level
# scripts (https://github.com/kohya-ss/sd-scripts: train_network.py, fine_tune.py,
# sdxl_train_network.py, sdxl_train.py, sd3_train_network.py, sd3_train.py, flux_train_network.py,
# flux_train.py) and diffusers' examples/dreambooth (train_dreambooth_lora.py,
# train_dreambooth.py, train_dreambooth_lora_sdxl.py, train_dreambooth_lora_sd3.py,
# train_dreambooth_sd3.py, train_dreambooth_lora_flux.py, train_dreambooth_flux.py). SD 3.5 has
# its own scripts; it is not Flux.
KOHYA_FLUX = ("flux_train_network.py", "flux_train.py")
DIFFUSERS_FLUX = ("train_dreambooth_lora_flux.py", "train_dreambooth_flux.py")
KOHYA_SCRIPTS = {
    "sd15": ("train_network.py", "fine_tune.py"),
    "sdxl": ("sdxl_train_network.py", "sdxl_train.py"),
    "sd35-medium": ("sd3_train_network.py", "sd3_train.py"),
    "sd35-large": ("sd3_train_network.py", "sd3_train.py"),
    "flux1-dev": KOHYA_FLUX,
    "flux1-schnell": KOHYA_FLUX,
}
DIFFUSERS_SCRIPTS = {
    "sd15": ("train_dreambooth_lora.py", "train_dreambooth.py"),
    "sdxl": ("train_dreambooth_lora_sdxl.py", "train_dreambooth_lora_sdxl.py"),
    "sd35-medium": ("train_dreambooth_lora_sd3.py", "train_dreambooth_sd3.py"),
    "sd35-large": ("train_dreambooth_lora_sd3.py", "train_dreambooth_sd3.py"),
    "flux1-dev": DIFFUSERS_FLUX,
    "flux1-schnell": DIFFUSERS_FLUX,
}
# ai-toolkit trains from a YAML config; the README's way is to copy one of config/examples/ and
# edit it (https://github.com/ostris/ai-toolkit at 27a03a9, knowledge/job_flags.yaml). The example
# each model starts from, and the model id it is switched to where the example is its sibling's
# (SD 3.5 Medium from the Large example: same architecture, same keys). Its examples are LoRA
# configs; its full fine-tune examples are for Flex and Lumina only.
AI_TOOLKIT_EXAMPLES = {
    "flux1-dev": ("train_lora_flux_24gb.yaml", None),
    "flux1-schnell": ("train_lora_flux_schnell_24gb.yaml", None),
    "sd35-large": ("train_lora_sd35_large_24gb.yaml", None),
    "sd35-medium": (
        "train_lora_sd35_large_24gb.yaml",
        ("stabilityai/stable-diffusion-3.5-large", "stabilityai/stable-diffusion-3.5-medium"),
    ),
}


def trainer_command(spec: DiffusionSpec, tool: str, method: str, config: str = "config.toml") -> str | None:
    """The trainer's launch line: kohya-ss sd-scripts, ai-toolkit or a diffusers example; None
    where the trainer ships nothing for the model (Kolors and HunyuanDiT have no script in
    sd-scripts, diffusers' examples/dreambooth or ai-toolkit; ai-toolkit's configs are LoRA and
    cover Flux and SD 3.5) rather than another model's script, which would load the wrong
    architecture. The diffusers DreamBooth scripts require the images and the instance prompt
    (``--instance_prompt`` is required by their parsers), so the line names both. diffusers has no
    full-weight SDXL DreamBooth script; SDXL trains its LoRA there."""
    full = 1 if method == "full" else 0
    if tool == "ai-toolkit":
        return _ai_toolkit(spec) if not full else None
    if tool == "diffusers":
        if spec.id not in DIFFUSERS_SCRIPTS:
            return None
        return (
            f"accelerate launch {DIFFUSERS_SCRIPTS[spec.id][full]} "
            f"--pretrained_model_name_or_path={spec.repo} --instance_data_dir=./images "
            "--instance_prompt='a photo of sks' --output_dir=./output --mixed_precision=bf16"
        )
    if spec.id not in KOHYA_SCRIPTS:
        return None
    return f"accelerate launch --mixed_precision bf16 {KOHYA_SCRIPTS[spec.id][full]} --config_file {config}"


def _ai_toolkit(spec: DiffusionSpec) -> str | None:
    """Copy the model's example config, switch its model id where needed, run it."""
    if spec.id not in AI_TOOLKIT_EXAMPLES:
        return None
    example, switch = AI_TOOLKIT_EXAMPLES[spec.id]
    steps = [f"cp config/examples/{example} config/train_lora.yaml"]
    if switch:
        steps.append(f"sed -i 's#{switch[0]}#{switch[1]}#' config/train_lora.yaml")
    return " && ".join([*steps, "python run.py config/train_lora.yaml"])
