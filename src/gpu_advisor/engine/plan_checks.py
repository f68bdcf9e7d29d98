"""Every candidate passes the plan's own checks before it can be the pick.

A plan whose own explanation calls it unworkable loses the customer: a 70B fine-tune
on 4 machines that scale at 7 %, a replica split over a network its own warning says
is too slow, a pretraining that would take decades, LoRA offered for pretraining.
``problems`` is the one function the planner calls on every candidate; it names what
is wrong with it:

- hard problems (``HARD``) make a candidate unworkable: it is the pick only when
  nothing workable exists, and the plan's status then says so;
- soft problems (``late``, ``over_budget``) are the user's limits: a candidate within
  them always ranks first, and when none is, ``rules.plans.limit_to_move`` says which
  limit to move and by how much; a pick that still misses the deadline has status ``late``.

The thresholds and the findings that explain each decision are in ``engine/rules/plans.py``.
Pretraining is read from ``Workload.pretrain`` or, unset, from a token count of at least
20 per parameter, the compute-optimal ratio of Hoffmann et al. 2022 (Chinchilla): no
fine-tune feeds a model that much text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.cost import to_currency
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.rules import plans
from gpu_advisor.engine.rules.deadline import finishes_by, on_time
from gpu_advisor.engine.rules.plans import EFFICIENCY_FLOOR, MAX_JOB_HOURS, Review, budget_amount
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.specs import ModelArch
from gpu_advisor.engine.workload import Workload

HARD = ("out_of_reach", "method_unfit", "below_efficiency_floor", "network_short")
LIGHTER = ("lora", "qlora")
PRETRAIN_TOKENS_PER_PARAM = 20.0
Key = Callable[[Candidate], Any]


def is_pretraining(w: Workload, arch: ModelArch) -> bool:
    """Training from scratch: said so, or at least 20 tokens per parameter with every weight trained."""
    if w.pretrain is not None:
        return w.pretrain
    tokens = w.train_tokens or 0.0
    return (
        w.task != "infer"
        and w.method in (None, "full")
        and tokens >= PRETRAIN_TOKENS_PER_PARAM * arch.params_b * 1e9
    )


def cost_cny(c: Candidate, ctx: Context) -> float:
    q = c.cost
    return to_currency(q.amount, q.currency, "CNY", ctx.kb.catalog.fx_to_cny) or q.amount


def within_budget(c: Candidate, ctx: Context) -> bool | None:
    """Whether ``c`` costs no more than the budget, in its currency and period; None without one."""
    b = ctx.workload.budget
    amount = budget_amount(c, ctx)
    return None if b is None or amount is None else amount <= b.amount


def problems(ctx: Context, c: Candidate) -> tuple[str, ...]:
    """What is wrong with ``c`` as a plan for ``ctx``: hard problems first, then the user's limits."""
    out: list[str] = []
    if c.task == "train":
        out += _training_problems(ctx, c)
    elif plans.network_short_gbps(ctx, c) is not None:
        out.append("network_short")
    if within_budget(c, ctx) is False:
        out.append("over_budget")
    return tuple(sorted(out, key=lambda p: HARD.index(p) if p in HARD else len(HARD)))


def _training_problems(ctx: Context, c: Candidate) -> list[str]:
    out: list[str] = []
    if c.machines > 1 and (c.scaling_efficiency or 1.0) < EFFICIENCY_FLOOR:
        out.append("below_efficiency_floor")
    if c.training_hours is not None and c.training_hours > MAX_JOB_HOURS:
        out.append("out_of_reach")
    if c.method in LIGHTER and is_pretraining(ctx.workload, ctx.arch):
        out.append("method_unfit")
    deadline = ctx.workload.deadline_hours
    if deadline is not None and not finishes_by(c, deadline):
        out.append("late")
    return out


def workable(ctx: Context, c: Candidate) -> bool:
    return not set(problems(ctx, c)) & set(HARD)


def rank(ctx: Context, candidates: list[Candidate], key: Key) -> list[Candidate]:
    """Workable candidates first, each group ranked by ``key`` and held to the deadline."""
    ranked = sorted(candidates, key=key)
    good = [c for c in ranked if workable(ctx, c)]
    kept = {id(c) for c in good}
    return [*on_time(ctx, good), *on_time(ctx, [c for c in ranked if id(c) not in kept])]


def lighter(ctx: Context, ranked: list[Candidate], key: Key) -> list[Candidate]:
    """When no full-training plan is workable, a workable LoRA (then QLoRA) plan goes first.

    Never for pretraining: there are no pretrained weights to freeze.
    """
    if ctx.task != "train" or ctx.train is None or ctx.searches is None or not ranked:
        return ranked
    if workable(ctx, ranked[0]) or ctx.train.method != "full" or is_pretraining(ctx.workload, ctx.arch):
        return ranked
    w = ctx.workload
    for method in LIGHTER:
        held = w.duration_hours or w.deadline_hours
        found = ctx.searches.train(replace(ctx.train, method=method), w.gpus, w.train_tokens, held, ctx.fixed)
        tried = rank(ctx, found, key)
        if tried and workable(ctx, tried[0]):
            return [*tried, *ranked]
    return ranked


def review(ctx: Context, pick: Candidate | None, ranked: list[Candidate], key: Key, **named: Any) -> Review:
    """What the checks decided, for the findings that explain it (``rules.plans``)."""
    top = min(ctx.candidates, key=key) if ctx.candidates else None
    set_aside = {}
    if top is not None and top is not pick:
        set_aside = {p: top for p in problems(ctx, top) if p in HARD}
    cheapest = ranked[0] if ranked and workable(ctx, ranked[0]) else None
    return Review(
        ctx=ctx,
        pick=pick,
        cheapest=cheapest,
        set_aside=set_aside,
        pick_problems=problems(ctx, pick) if pick else (),
        late_within_budget=_late_within_budget(ctx, key),
        pretraining=is_pretraining(ctx.workload, ctx.arch),
        **named,
    )


def _late_within_budget(ctx: Context, key: Key) -> Candidate | None:
    """The cheapest workable candidate within budget that misses the deadline (budget vs time)."""
    if ctx.workload.deadline_hours is None or ctx.workload.budget is None:
        return None
    fits = [c for c in ctx.candidates if workable(ctx, c) and within_budget(c, ctx) is not False]
    return min(fits, key=lambda c: c.training_hours or 0.0) if fits else None


def status(ctx: Context, pick: Candidate) -> str | None:
    """The plan's status when its pick has a hard problem (nothing workable exists) or misses the
    deadline (nothing finishes in time: ``late``, beside the ``deadline_missed`` finding), else None.

    A late pick is never "ok": the user's deadline is a constraint, and a plan that breaks it
    must say so where a program reads it, not only in a sentence (issue 47).
    """
    found = problems(ctx, pick)
    hard = [p for p in found if p in HARD]
    if hard:
        return hard[0]
    return "late" if "late" in found else None


def findings(r: Review) -> list[Finding]:
    """The plan checks' findings, in declaration order."""
    return [f for rule in plans.RULES if (f := rule.check(r)) is not None]
