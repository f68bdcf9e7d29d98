"""Every job plan's command uses only options its tool's pinned release accepts, and names weights
that exist (issue 46, "Flags the runtime knows", for the non-LLM families).

The options are read out of each tool's own source at a pinned release
(``knowledge/job_flags.yaml``): ComfyUI's ``cli_args.py``, Wan's and HunyuanVideo's argparse,
kohya sd-scripts, diffusers' DreamBooth trainers and ``accelerate launch``,
text-embeddings-inference's clap ``Args``, Ultralytics' ``default.yaml`` keys, faster-whisper's
``WhisperModel``/``transcribe`` parameters and ffmpeg's NVENC AVOptions. A plan is built for a
spread of requests of every family, each command is split into the programs it runs, and every
option (with its value, where the tool checks a list) is looked up in its program's row; the
options a program requires must be there too.

Tools whose argument lists are not pinned yet are listed in ``NOT_PINNED``; a plan whose tool is
in neither table fails, so a new tool cannot slip past the check.
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import get_args

import pytest

from gpu_advisor.engine.jobs import embedding, encoding, image, image_train, speech, video, vision
from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.jobs.diffusion_launch import DIFFUSERS_FORMAT
from gpu_advisor.engine.jobs.plan import JobFamily, JobPlan
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge import job_flags
from gpu_advisor.knowledge.job_speeds import load_jobs
from gpu_advisor.knowledge.jobs import diffusion

# Commands whose tool has no pinned argument list in knowledge/job_flags.yaml yet (issue 46).
# (diffusers is pinned for its DreamBooth training scripts; its generation one-liners are a
# ``python -c`` of DiffusionPipeline, whose keyword arguments are not checked yet.)
NOT_PINNED = {"forge", "ai-toolkit", "openai-whisper", "whisper.cpp", "funasr", "torchvision", "tensorrt"}


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


def _python_calls(code: str) -> Iterator[Invocation]:
    """The faster-whisper calls of a ``python -c`` one-liner, by class and method."""
    classes: dict[str, str] = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and isinstance(node.targets[0], ast.Name):
                classes[node.targets[0].id] = func.id
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("WhisperModel", "BatchedInferencePipeline"):
            program = func.id
        elif (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in classes
        ):
            program = f"{classes[func.value.id]}.{func.attr}"
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
        if head in ("python", "python3") and tokens[1] == "-c":
            yield from _python_calls(tokens[2])
        elif head in ("python", "python3"):
            yield Invocation(tokens[1], _dash_options(tokens[2:]))
        elif head in ("torchrun", "accelerate"):  # the launcher's own flags come before the script
            script = next(i for i, t in enumerate(tokens) if t.endswith(".py"))
            if head == "accelerate":
                yield Invocation("accelerate launch", _dash_options(tokens[2:script]), tool="accelerate")
            yield Invocation(tokens[script], _dash_options(tokens[script + 1 :]))
        elif head == "docker":
            image_at = next(i for i, t in enumerate(tokens) if "text-embeddings-inference:" in t)
            yield Invocation("text-embeddings-router", _dash_options(tokens[image_at + 1 :]))
        elif head == "yolo":
            pairs = tuple((k, v) for k, _, v in (t.partition("=") for t in tokens[2:]))
            yield Invocation("yolo", (("mode", tokens[1]), *pairs))
        else:
            yield Invocation(head, _dash_options(tokens[1:]))


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
    }
    assert all(row.release and "https://" in row.source for row in table.values())


def test_every_family_is_in_the_spread(plans: list[JobPlan]) -> None:
    assert {p.family for p in plans} >= set(get_args(JobFamily))


def test_every_tool_is_pinned_or_named_as_not_yet(plans: list[JobPlan]) -> None:
    pinned = {tool for tool, _ in job_flags.load()}
    assert {p.tool for p in plans} - pinned - NOT_PINNED == set()


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
            ckpt = dict(next(invocations(command)).options)["--ckpt_dir"] or ""
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
