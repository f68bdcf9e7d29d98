"""What an answer rests on, said in one short line each: assumptions and the combined price.

Issue 17 "keep it honest": a plan must never rest on a silent default. The engine
records every default it took as an ``assumed_*`` finding (``Plan.assumptions``); the
ones that stand for something the user would know and the price hangs on (how many
users, which training method) join the confirmation line ("收到：推理 · Qwen2.5 7B ·
假设 4 路并发"), so the first card stays one glance long; technical defaults (context,
prompt lengths, LoRA rank) stay in the /why view.

A train-then-serve plan prices two machines: the training job once and the serving
machine by the month. The combined line adds them the way seed 000 §5 does (training
A100 ¥2,800 for a third of a month ≈ ¥933 plus a T4 at ¥900 ≈ ¥1,833 in that month):
the job's own price plus the first month of serving, then serving alone. It is said
when someone asks the price of such a plan; the first card already shows both prices.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.engine.results import Plan

SAID_BY_USER = ("assumed_concurrency", "assumed_method")
"""Defaults that stand in for a requirement the user did not give, in the order said."""


def assumed_items(lang: str, plan: Plan) -> list[str]:
    """ "假设 4 路并发" / "assuming 4 concurrent users": one item per default the user would know."""
    found = {f.id: f.values for f in plan.assumptions}
    return [locales.t(lang, f"honest.{key}", **found[key]) for key in SAID_BY_USER if key in found]


def combined_line(lang: str, plan: Plan) -> str | None:
    """The first month of a train-then-serve plan: the training job plus a month of serving."""
    train, serve = plan.recommendation, plan.serving
    if plan.task != "both" or train is None or serve is None:
        return None
    job, month = train.cost, serve.monthly_cost
    if job.currency != month.currency:
        return None
    return locales.t(
        lang,
        "honest.combined",
        total=locales.money(lang, job.amount + month.amount, job.currency),
        train=locales.money(lang, job.amount, job.currency),
        serve=locales.money(lang, month.amount, month.currency),
    )
