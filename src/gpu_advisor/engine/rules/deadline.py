"""A deadline binds: a training plan that finishes later is not offered as the pick.

The time a job takes is ``engine.training.training_hours``: the tokens to train, times
the FLOPs per token (6·N for a full fine-tune, Kaplan et al. 2020; 4·N with frozen
weights for LoRA/QLoRA), over the cards' peak FLOP/s at the engine's MFU (PaLM,
Chowdhery et al. 2022, appendix B). A user who says "一周内训完", "within 48 hours" or
"by Friday" has a constraint, not a preference: ``on_time`` keeps only the candidates
whose hours fit the deadline; when none does, the fastest are ranked first and
``deadline_missed`` says by how much even the fastest misses it. A candidate whose time
is unknown (no token count) is not judged. Layout: see ``engine/rules/__init__.py``.
"""

from __future__ import annotations

import math

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.hardware import PlanCheck
from gpu_advisor.engine.search_context import Context


def finishes_by(c: Candidate, deadline_hours: float) -> bool:
    """Whether a candidate finishes in time; one whose training time is unknown is not judged."""
    return c.training_hours is None or c.training_hours <= deadline_hours


def on_time(ctx: Context, ranked: list[Candidate]) -> list[Candidate]:
    """The ranked candidates that meet the deadline; when none does, all of them, fastest first."""
    deadline = ctx.workload.deadline_hours
    if deadline is None or ctx.task != "train":
        return ranked
    kept = [c for c in ranked if finishes_by(c, deadline)]
    return kept or sorted(ranked, key=lambda c: c.training_hours or math.inf)


def deadline_missed(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Even the pick (the fastest candidate, when nothing meets the deadline) finishes late."""
    deadline = ctx.workload.deadline_hours
    if deadline is None or pick is None or pick.task != "train" or finishes_by(pick, deadline):
        return None
    hours = pick.training_hours or 0.0
    return finding(
        "deadline_missed",
        "high",
        deadline_hours=round(deadline, 1),
        hours=round(hours, 1),
        ratio=round(hours / deadline, 1),
        gpus=pick.total_gpus,
        gpu=pick.gpu.name,
    )


RULES: tuple[Rule[PlanCheck], ...] = (
    Rule(
        id="deadline_missed",
        rank=80,
        check=deadline_missed,
        scenarios=(
            # A 70B full fine-tune on 1T tokens: ~4.2e23 FLOPs (6·N·D), months on any catalog
            # offer, never 48 hours.
            Scenario(
                workload={
                    "task": "train",
                    "params_b": 70,
                    "train_tokens": 1e12,
                    "deadline_hours": 48,
                },
                severity="high",
            ),
        ),
    ),
)
