"""/cmd: the plan's launch commands as sections a user can paste into a shell.

Each ``engine.launch.LaunchSpec`` becomes one code section (``Section.code``): its
config files first, written by heredocs (``cat > train.yaml <<'EOF'``), then the
command itself, so the whole section is one valid shell script. What to prepare first
(a quantized checkpoint, a GGUF file, a Ray cluster, a dataset) goes in the summary, in words,
for every command shown.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Content, Section
from gpu_advisor.engine.launch import LaunchSpec
from gpu_advisor.engine.results import Plan


def script_lines(spec: LaunchSpec) -> list[str]:
    """The spec as shell lines: each config file by heredoc, then the command."""
    lines: list[str] = []
    for name, text in spec.config_files.items():
        lines += [f"cat > {name} <<'EOF'", *text.rstrip("\n").split("\n"), "EOF"]
    return [*lines, spec.shell]


def _heading(lang: str, spec: LaunchSpec) -> str:
    key = "launch.heading_primary" if spec.primary else "launch.heading_other"
    name = locales.t(lang, f"launch.runtime.{spec.runtime}")
    heading = locales.t(lang, key, runtime=name)
    return locales.t(lang, "launch.for_serving", heading=heading) if spec.option == "serving" else heading


def _needs(lang: str, specs: list[LaunchSpec]) -> list[str]:
    """What to prepare, once each: the planned runtime's first, then what only the other
    commands need (ms-swift's and torchtune's datasets), so every command's gap is explained."""
    ordered = sorted(specs, key=lambda spec: not spec.primary)
    wanted = dict.fromkeys(need for spec in ordered for need in spec.needs)
    return [locales.t(lang, f"launch.need.{need}") for need in wanted]


SERVING_RUNTIMES = frozenset({"vllm", "sglang", "llama_cpp", "ollama", "tensorrt_llm"})


def asked_only(specs: list[LaunchSpec], runtime: str | None) -> list[LaunchSpec]:
    """The runtime the user asked for ("怎么用 ollama 起") and the steps that prepare its
    weights, said as the command to run; all the plan's specs when it has none of that runtime."""
    if not any(s.runtime == runtime for s in specs):
        return specs
    return [
        s.model_copy(update={"primary": True}) if s.runtime == runtime else s
        for s in specs
        if s.runtime == runtime or s.runtime not in SERVING_RUNTIMES
    ]


def commands(lang: str, plan: Plan, only: str | None = None) -> Content:
    """Every launch spec of the plan, the planned runtime first; with ``only``, that runtime's."""
    if plan.recommendation is None or not plan.launch:
        return Content(title=locales.t(lang, "launch.none"))
    specs = asked_only(list(plan.launch), only)
    sections = [
        Section(id=f"launch_{i}", heading=_heading(lang, s), bullet="", code=True, lines=script_lines(s))
        for i, s in enumerate(specs)
    ]
    return Content(
        title=locales.t(lang, "launch.title"),
        summary=_needs(lang, specs),
        sections=sections,
        footer=[locales.t(lang, "launch.footer")],
    )
