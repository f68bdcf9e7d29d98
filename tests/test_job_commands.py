"""Every job plan's command uses only options its tool's pinned release accepts, and names weights
that exist (issue 46, "Flags the runtime knows", for the non-LLM families).

The options are read out of each tool's own source at a pinned release
(``knowledge/job_flags.yaml``): ComfyUI's ``cli_args.py``, Wan's and HunyuanVideo's argparse,
kohya sd-scripts, diffusers' DreamBooth trainers and ``accelerate launch``,
text-embeddings-inference's clap ``Args``, Ultralytics' ``default.yaml`` keys, faster-whisper's
``WhisperModel``/``transcribe`` parameters, ffmpeg's NVENC AVOptions, Forge's ``cmd_args.py``,
ai-toolkit's ``run.py``, whisper.cpp's ``whisper-cli``, openai-whisper's CLI, FunASR's
``AutoModel``, ``trtexec``, ``torchrun``, torchvision's reference ``train.py`` and the keyword
arguments of the diffusers one-liner's calls (the pipeline class each repository loads is in
``knowledge/diffusers_pipelines.yaml``). A plan is built for a
spread of requests of every family, each command is split into the programs it runs, and every
option (with its value, where the tool checks a list) is looked up in its program's row; the
options a program requires must be there too.

Every tool a plan names must have a row: a new tool cannot slip past the check.
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import get_args

import pytest

from gpu_advisor.engine.jobs import embedding, encoding, image, image_train, speech, video, vision
from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.jobs.diffusion_launch import AI_TOOLKIT_EXAMPLES, DIFFUSERS_FORMAT, trainer_command
from gpu_advisor.engine.jobs.plan import JobFamily, JobPlan
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge import job_flags
from gpu_advisor.knowledge.job_speeds import load_jobs
from gpu_advisor.knowledge.jobs import diffusion
from gpu_advisor.knowledge.reading import yaml_load

# Shell steps around a tool's own program (ai-toolkit copies its example config and edits it).
SHELL_STEPS = {"cp", "sed"}
# The launchers whose own options come before the script they run, by the row they are checked in.
LAUNCHERS = {"accelerate": ("accelerate", "accelerate launch"), "torchrun": ("torchrun", "torchrun")}


@dataclass(frozen=True)
class Invocation:
    """One program a command runs, with the options it passes: ``(name, value or None)``."""

    program: str
    options: tuple[tuple[str, str | None], ...]
    positional: tuple[str, ...] = ()
    tool: str | None = None  # a launcher's own row (accelerate), else the plan's tool


def _dash_options(tokens: list[str]) -> tuple[tuple[str, str | None], ...]:
    out: list[tuple[str, str | None]] = []
    for i, token in enumerate(tokens):
        if not token.startswith("-") or token[1:2].isdigit():
            continue
        name, eq, value = token.partition("=")
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        out.append((name, value if eq else (nxt if nxt is not None and not nxt.startswith("-") else None)))
    return tuple(out)


def _pipelines() -> dict[str, str]:
    """The diffusers pipeline class each repository's ``model_index.json`` names."""
    text = resources.files("gpu_advisor.knowledge").joinpath("diffusers_pipelines.yaml").read_text("utf-8")
    return {row["repo"]: row["pipeline"] for row in yaml_load(text)}


def _class_of(node: ast.expr) -> str | None:
    """``Class`` for ``Class(...)`` or ``Class.from_pretrained(...)`` (a capitalised name)."""
    if isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) and node.id[:1].isupper() else None


def _python_calls(code: str) -> Iterator[Invocation]:
    """The library calls of a ``python -c`` one-liner, each named ``Class`` or ``Class.method``.

    A variable bound to ``Class(...)`` or ``Class.from_pretrained(...)`` is of that class; calling
    a diffusers pipeline is its ``__call__``, of the class its repository loads as."""
    classes: dict[str, str] = {}
    called: dict[str, str] = {}
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            target, cls = node.targets[0], _class_of(node.value.func)
            if isinstance(target, ast.Name) and cls:
                classes[target.id] = cls
                first = node.value.args[0] if node.value.args else None
                repo = str(first.value) if isinstance(first, ast.Constant) else ""
                called[target.id] = _pipelines().get(repo, cls)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        owner = func.value if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Name) and func.id in called:
            program = f"{called[func.id]}.__call__"
        elif isinstance(func, ast.Name) and _class_of(func):
            program = func.id
        elif isinstance(func, ast.Attribute) and isinstance(owner, ast.Name) and owner.id in classes:
            program = f"{classes[owner.id]}.{func.attr}"
        elif isinstance(func, ast.Attribute) and _class_of(func):
            program = f"{_class_of(func)}.{func.attr}"
        else:
            continue
        options = tuple((k.arg or "**", ast.unparse(k.value).strip("'")) for k in node.keywords)
        positional = tuple(ast.unparse(a).strip("'") for a in node.args)
        yield Invocation(program, options, positional)


def invocations(command: str) -> Iterator[Invocation]:
    """The programs ``command`` runs (``&&``-chained), each with its options."""
    for part in command.split(" && "):
        tokens = shlex.split(part)
        head = tokens[0]
        if head in SHELL_STEPS:
            continue
        if head in ("python", "python3") and tokens[1] == "-c":
            yield from _python_calls(tokens[2])
        elif head in ("python", "python3"):
            yield Invocation(tokens[1], _dash_options(tokens[2:]))
        elif head in LAUNCHERS:  # the launcher's own flags come before the script
            script = next(i for i, t in enumerate(tokens) if t.endswith(".py"))
            tool, program = LAUNCHERS[head]
            own = tokens[2:script] if head == "accelerate" else tokens[1:script]
            yield Invocation(program, _dash_options(own), tool=tool)
            yield Invocation(tokens[script], _dash_options(tokens[script + 1 :]))
        elif head == "docker":
            image_at = next(i for i, t in enumerate(tokens) if "text-embeddings-inference:" in t)
            yield Invocation("text-embeddings-router", _dash_options(tokens[image_at + 1 :]))
        elif head == "yolo":
            pairs = tuple((k, v) for k, _, v in (t.partition("=") for t in tokens[2:]))
            yield Invocation("yolo", (("mode", tokens[1]), *pairs))
        else:  # a binary or script run by path: ./webui.sh, ./build/bin/whisper-cli
            yield Invocation(head.rpartition("/")[2], _dash_options(tokens[1:]))


def _program(tool: str, inv: Invocation) -> str:
    if tool == "wan":  # the checkpoint directory names the repository: ./Wan2.1-T2V-14B
        ckpt = dict(inv.options)["--ckpt_dir"] or ""
        return f"generate.py ({ckpt.removeprefix('./').split('-')[0]})"
    return inv.program


def unknown_options(plan: JobPlan) -> list[str]:
    """Every option (or listed value) of the plan's command that its tool's release lacks, and
    every option the program requires that the command leaves out."""
    assert plan.command is not None and plan.tool is not None
    bad: list[str] = []
    for inv in invocations(plan.command):
        tool = inv.tool or plan.tool
        row = job_flags.load().get((tool, _program(tool, inv)))
        if row is None:
            bad.append(f"{_program(tool, inv)}: no such program in {tool}'s pinned release")
            continue
        for name, value in inv.options:
            if name not in row.flags and not (row.style == "key=value" and name == "mode"):
                bad.append(f"{row.program}: {name}")
            elif name in row.choices and value not in row.choices[name]:
                bad.append(f"{row.program}: {name} {value}")
        names = {name for name, _ in inv.options}
        bad += [f"{row.program}: {flag} missing" for flag in sorted(row.required - names)]
        first = row.flags & {"model_size_or_path"}
        if first and inv.positional and inv.positional[0] not in row.choices["model_size_or_path"]:
            bad.append(f"{row.program}: model {inv.positional[0]}")
    return bad


# A spread of requests of every family (the defaults, every model, the runtimes, offload, FP8,
# several cards per clip, each codec, preset and tuning, raw input).
@pytest.fixture(scope="module")
def book() -> DiffusionBook:
    return diffusion()


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def image_plans(kb: Knowledge, book: DiffusionBook) -> Iterator[JobPlan]:
    for spec in book.models.values():
        if spec.kind != "image":
            continue
        for tool in ("comfyui", "diffusers", "forge"):
            if tool not in spec.tools:
                continue
            for offload in ("none", "model", "sequential"):
                yield image.plan(image.ImageGenJob(model=spec.id, tool=tool, offload=offload), kb, book)
            yield image.plan(image.ImageGenJob(model=spec.id, tool=tool, format="fp8"), kb, book)


def video_plans(kb: Knowledge, book: DiffusionBook) -> Iterator[JobPlan]:
    for spec in book.models.values():
        if spec.kind != "video":
            continue
        for tool in ("comfyui", "diffusers", "wan", "hunyuanvideo"):
            if tool not in spec.tools:
                continue
            for gpus in (None, 2, 8):
                yield video.plan(video.VideoGenJob(model=spec.id, tool=tool, gpus=gpus), kb, book)
            yield video.plan(video.VideoGenJob(model=spec.id, tool=tool, offload="model"), kb, book)
        for other in ("wan", "hunyuanvideo"):  # another model's repository asked for by name
            yield video.plan(video.VideoGenJob(model=spec.id, tool=other), kb, book)


def train_plans(kb: Knowledge, book: DiffusionBook) -> Iterator[JobPlan]:
    for spec in book.models.values():
        if spec.kind != "image":
            continue
        for tool in ("kohya", "ai-toolkit", "diffusers"):
            for method in ("lora", "dreambooth", "full"):
                yield image_train.plan(
                    image_train.ImageTrainJob(model=spec.id, tool=tool, method=method), kb, book
                )


def light_plans(kb: Knowledge, jobs: JobKnowledge) -> Iterator[JobPlan]:
    for model in jobs.speech.models:
        yield speech.plan(speech.SpeechRequest(model=model.id, audio_hours=100), kb, jobs)
        yield speech.plan(speech.SpeechRequest(model=model.id, live_streams=10), kb, jobs)
        for runtime in ("faster-whisper", "openai-whisper", "whisper.cpp"):
            if model.relative_speed is not None:
                yield speech.plan(
                    speech.SpeechRequest(model=model.id, runtime=runtime, audio_hours=1), kb, jobs
                )
    for emb in jobs.embedding.models:
        yield embedding.plan(embedding.EmbeddingRequest(model=emb.id, documents=1_000_000), kb, jobs)
    for gpu in ("t4", "rtx4090", "a100-80g-sxm", "h100-sxm"):
        yield embedding.plan(embedding.EmbeddingRequest(qps=50, gpu=gpu), kb, jobs)
    for vis in jobs.vision.models:
        yield vision.plan_train(vision.VisionTrainRequest(model=vis.id, images=10_000), kb, jobs)
        yield vision.plan_infer(vision.VisionInferRequest(model=vis.id, images_per_s=500, batch=8), kb, jobs)
    for codec in ("h264", "hevc", "av1"):
        for preset in ("p1", "p4", "p7"):
            for tuning in ("hq", "ll"):
                yield encoding.plan(
                    encoding.EncodeRequest(codec=codec, preset=preset, tuning=tuning, streams=20), kb, jobs
                )
        yield encoding.plan(encoding.EncodeRequest(codec=codec, source_codec=None, streams=4), kb, jobs)


@pytest.fixture(scope="module")
def plans(kb: Knowledge, jobs: JobKnowledge, book: DiffusionBook) -> list[JobPlan]:
    built = [*image_plans(kb, book), *video_plans(kb, book), *train_plans(kb, book), *light_plans(kb, jobs)]
    return [p for p in built if p.command is not None]


def test_the_table_loads_with_a_release_and_a_source_for_every_program() -> None:
    table = job_flags.load()
    assert {tool for tool, _ in table} == {
        "comfyui",
        "accelerate",
        "kohya",
        "diffusers",
        "wan",
        "hunyuanvideo",
        "text-embeddings-inference",
        "ultralytics",
        "faster-whisper",
        "ffmpeg",
        "forge",
        "ai-toolkit",
        "whisper.cpp",
        "openai-whisper",
        "funasr",
        "tensorrt",
        "torchrun",
        "torchvision",
    }
    assert all(row.release and "https://" in row.source for row in table.values())


def test_every_family_is_in_the_spread(plans: list[JobPlan]) -> None:
    assert {p.family for p in plans} >= set(get_args(JobFamily))


def test_every_tool_a_plan_names_is_pinned(plans: list[JobPlan]) -> None:
    assert {p.tool for p in plans} - {tool for tool, _ in job_flags.load()} == set()


def test_every_pinned_tool_is_checked_by_some_plan(plans: list[JobPlan]) -> None:
    launchers = {inv.tool for p in plans if p.command for inv in invocations(p.command)} - {None}
    assert {tool for tool, _ in job_flags.load()} <= {p.tool for p in plans} | launchers


def test_every_option_of_every_command_exists_in_its_tools_release(plans: list[JobPlan]) -> None:
    pinned = {tool for tool, _ in job_flags.load()}
    bad = {p.command: unknown_options(p) for p in plans if p.tool in pinned}
    assert {command: found for command, found in bad.items() if found} == {}


def test_an_option_the_release_lacks_is_caught() -> None:
    plan = JobPlan(
        family="image_gen", model="sdxl", sized=False, command="python main.py --vram-low", tool="comfyui"
    )
    assert unknown_options(plan) == ["main.py: --vram-low"]


def test_a_script_the_release_does_not_ship_is_caught() -> None:
    command = "accelerate launch --mixed_precision bf16 train.py --config_file config.toml"
    plan = JobPlan(family="image_train", model="sd15", sized=False, command=command, tool="kohya")
    assert unknown_options(plan) == ["train.py: no such program in kohya's pinned release"]


def test_a_value_outside_the_tools_list_is_caught() -> None:
    command = "ffmpeg -i in.mp4 -c:v h264_nvenc -preset p8 -tune hq out.mp4"
    plan = JobPlan(family="video_encode", model="h264", sized=False, command=command, tool="ffmpeg")
    assert unknown_options(plan) == ["ffmpeg: -preset p8"]


def test_a_wan22_checkpoint_is_launched_with_the_wan22_task_name(plans: list[JobPlan]) -> None:
    wan22 = [p.command or "" for p in plans if p.tool == "wan" and "Wan2.2-T2V-A14B" in (p.command or "")]
    assert wan22 and all("--task t2v-A14B" in c for c in wan22)


def test_diffusion_commands_name_a_checkpoint_of_the_models_table(
    plans: list[JobPlan], book: DiffusionBook
) -> None:
    repos = {spec.repo for spec in book.models.values()}
    for plan in plans:
        command = plan.command or ""
        if plan.tool == "diffusers" and plan.family in ("image_gen", "video_gen"):
            loaded = {DIFFUSERS_FORMAT.get(repo, repo) for repo in repos}
            assert any(f"from_pretrained('{repo}'" in command for repo in loaded), command
        if plan.tool == "wan":
            script = next(inv for inv in invocations(command) if inv.program == "generate.py")
            ckpt = dict(script.options)["--ckpt_dir"] or ""
            assert any(repo.endswith("/" + ckpt.removeprefix("./")) for repo in repos), command


def test_light_commands_name_a_model_of_their_knowledge(plans: list[JobPlan], jobs: JobKnowledge) -> None:
    for plan in plans:
        command = plan.command or ""
        if plan.family == "embedding":
            model_id = dict(next(invocations(command)).options)["--model-id"]
            named = model_id is not None and any(
                f"huggingface.co/{model_id} " in m.source for m in jobs.embedding.models
            )
            assert named or model_id in embedding.PAPER_CHECKPOINTS.values(), command
        if plan.tool == "ultralytics":
            weights = {dict(inv.options)["model"] for inv in invocations(command)}
            ids = {m.id for m in jobs.vision.models}
            assert {w.rpartition(".")[0] for w in weights if w} <= ids, command


def test_diffusers_never_loads_a_checkpoint_laid_out_for_the_models_own_scripts(
    plans: list[JobPlan], book: DiffusionBook
) -> None:
    own_layout = {s.repo for s in book.models.values() if {"wan", "hunyuanvideo"} & set(s.tools)}
    loads = [p.command or "" for p in plans if p.tool == "diffusers" and p.family == "video_gen"]
    assert loads and not [c for c in loads if any(f"from_pretrained('{repo}'" in c for repo in own_layout)]


def test_an_option_the_script_requires_is_caught_when_left_out() -> None:
    command = "accelerate launch train_dreambooth_lora_sd3.py --pretrained_model_name_or_path=x/y"
    plan = JobPlan(family="image_train", model="sd35-large", sized=False, command=command, tool="diffusers")
    assert unknown_options(plan) == ["train_dreambooth_lora_sd3.py: --instance_prompt missing"]


def test_sd35_trains_with_the_sd3_scripts_not_flux(plans: list[JobPlan]) -> None:
    sd35 = [
        p.command or ""
        for p in plans
        if p.family == "image_train" and (p.model or "").startswith("Stable Diffusion 3.5")
    ]
    kohya_or_diffusers = [c for c in sd35 if "accelerate launch" in c]
    assert kohya_or_diffusers and all("sd3" in c and "flux" not in c for c in kohya_or_diffusers)


def test_every_diffusers_pipeline_call_is_checked_against_the_class_its_repository_loads(
    plans: list[JobPlan],
) -> None:
    one_liners = [
        p.command or "" for p in plans if p.tool == "diffusers" and "python -c" in (p.command or "")
    ]
    called = {inv.program for c in one_liners for inv in invocations(c) if inv.program.endswith(".__call__")}
    assert one_liners and "DiffusionPipeline.__call__" not in called
    assert called <= {program for _, program in job_flags.load()}


def test_a_pipeline_keyword_the_class_lacks_is_caught() -> None:
    command = (
        'python -c "from diffusers import DiffusionPipeline; '
        "p = DiffusionPipeline.from_pretrained('black-forest-labs/FLUX.1-dev'); p('x', num_frames=49)\""
    )
    plan = JobPlan(family="image_gen", model="flux1-dev", sized=False, command=command, tool="diffusers")
    assert unknown_options(plan) == ["FluxPipeline.__call__: num_frames"]


def test_a_whisper_cpp_model_its_download_script_lacks_is_caught() -> None:
    command = "./build/bin/whisper-cli -m models/ggml-turbo.bin -f audio.wav"
    plan = JobPlan(family="speech", model="whisper-turbo", sized=False, command=command, tool="whisper.cpp")
    assert unknown_options(plan) == ["whisper-cli: -m models/ggml-turbo.bin"]


def test_fp16_is_a_trtexec_option_of_the_pinned_tensorrt_10() -> None:
    command = "trtexec --onnx=resnet-50.onnx --fp16 --shapes=input:8x3x224x224 --int16"
    plan = JobPlan(family="vision_infer", model="resnet-50", sized=False, command=command, tool="tensorrt")
    assert unknown_options(plan) == ["trtexec: --int16"]


def test_torchruns_own_options_are_checked_before_the_script() -> None:
    command = "torchrun --nproc_per_node=2 --nodes=2 train.py --model resnet50 --amp"
    plan = JobPlan(family="vision_train", model="resnet-50", sized=False, command=command, tool="torchvision")
    assert unknown_options(plan) == ["torchrun: --nodes"]


def test_ai_toolkit_runs_a_copy_of_an_example_config_its_release_ships(plans: list[JobPlan]) -> None:
    lines = [p.command or "" for p in plans if p.tool == "ai-toolkit"]
    copied = {shlex.split(c)[1].removeprefix("config/examples/") for c in lines}
    assert lines and all(c.startswith("cp config/examples/") for c in lines)
    assert copied <= {example for example, _ in AI_TOOLKIT_EXAMPLES.values()}


def test_a_model_no_trainer_ships_a_script_for_gets_no_command(book: DiffusionBook) -> None:
    kolors = book.models["kolors"]
    assert {tool: trainer_command(kolors, tool, "lora") for tool in ("kohya", "diffusers", "ai-toolkit")} == {
        "kohya": None,
        "diffusers": None,
        "ai-toolkit": None,
    }
