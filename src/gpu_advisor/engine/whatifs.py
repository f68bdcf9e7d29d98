"""What-ifs: how the answer moves when one requirement changes.

Each re-runs the same search with one field changed and reports the new cost (and the
number that drove it), so a user sees the price of doubling traffic, of a longer
context, or of committing for a year before they ask. Searches go through the plan's
``Searches``, so one that repeats an earlier search reuses its candidates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from gpu_advisor.engine import cost, plan_checks
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, Value, finding
from gpu_advisor.engine.offer_search import Searches
from gpu_advisor.engine.reasoning import limits_rule_out_everything
from gpu_advisor.engine.rules.deadline import finishes_by
from gpu_advisor.engine.search_context import Context


def _cheapest(cands: list[Candidate], fx_to_cny: Mapping[str, float], ctx: Context) -> Candidate | None:
    """The cheapest workable candidate (``engine.plan_checks``), in CNY at the catalog's rates."""
    ok = [c for c in cands if c.meets_latency and plan_checks.workable(ctx, c)]
    return min(ok, key=lambda c: cost.in_cny(c.cost, fx_to_cny)) if ok else None


def _serve_variant(ctx: Context, **changes: object) -> Candidate | None:
    """Cheapest serving candidate with ``changes``; traffic-only changes reuse the memory layouts."""
    assert ctx.serve is not None
    assert ctx.searches is not None
    s = replace(ctx.serve, **changes)  # type: ignore[arg-type]
    memory_of = ctx.serve if set(changes) <= {"qps", "concurrency"} else s
    return ctx.searches.serve_cheapest(s, ctx.workload.duration_hours, memory_of)


def _train_variant(ctx: Context, **changes: object) -> Candidate | None:
    """The cheapest workable training candidate with ``changes``; with a deadline, the cheapest
    that meets it, else (none does) the cheapest, which ``_moved`` then says is late."""
    assert ctx.train is not None
    assert ctx.searches is not None
    base = replace(ctx.train, **changes)  # type: ignore[arg-type]
    w = ctx.workload
    found = ctx.searches.train(base, w.gpus, w.train_tokens, w.duration_hours, ctx.fixed)
    deadline = w.deadline_hours
    in_time = [c for c in found if deadline is None or finishes_by(c, deadline)]
    return _cheapest(in_time, ctx.kb.catalog.fx_to_cny, ctx) or _cheapest(
        found, ctx.kb.catalog.fx_to_cny, ctx
    )


def _moved(id_: str, alt: Candidate | None, pick: Candidate, ctx: Context, **values: Value) -> Finding:
    """A what-if's finding; a training option that misses the user's deadline is ``<id>_late``,
    with its hours beside the deadline, so an offer of fewer machines never hides that it is
    too slow (issue 47: "1 machine is enough" for a job that needs 4 to finish in time)."""
    deadline = ctx.workload.deadline_hours
    late = alt is not None and deadline is not None and alt.task == "train" and not finishes_by(alt, deadline)
    if late and alt is not None and deadline is not None:
        values = {
            **values,
            "hours": round(alt.training_hours or 0.0, 1),
            "deadline_hours": round(deadline, 1),
        }
    return finding(
        f"{id_}_late" if late else id_,
        gpu=alt.gpu.name if alt else None,
        gpus=alt.total_gpus if alt else None,
        amount=round(alt.cost.amount) if alt else None,
        amount_currency=alt.cost.currency if alt else None,
        pick_amount=round(pick.cost.amount),
        currency=pick.cost.currency,
        **values,
    )


def for_pick(ctx: Context, pick: Candidate) -> list[Finding]:
    """What-ifs that change the pick, its price or a limit; one that repeats the pick is left out."""
    return [f for f in _all_for_pick(ctx, pick) if not repeats_pick(f, pick)]


def repeats_pick(f: Finding, pick: Candidate) -> bool:
    """A what-if whose answer is the same card, count and price as the pick tells the user nothing."""
    v = f.values
    same_card = v.get("gpu") == pick.gpu.name and v.get("gpus") == pick.total_gpus
    return same_card and v.get("amount") is not None and v.get("amount") == v.get("pick_amount")


def _all_for_pick(ctx: Context, pick: Candidate) -> list[Finding]:
    out: list[Finding] = []
    if pick.task == "infer":
        assert ctx.serve is not None
        s = ctx.serve
        if s.qps:
            out.append(
                _moved("what_if_double_qps", _serve_variant(ctx, qps=s.qps * 2), pick, ctx, qps=s.qps * 2)
            )
        else:
            doubled = s.concurrency * 2
            out.append(
                _moved(
                    "what_if_double_concurrency",
                    _serve_variant(ctx, concurrency=doubled),
                    pick,
                    ctx,
                    concurrency=doubled,
                )
            )
        longer = s.context_len * 4
        out.append(
            _moved(
                "what_if_longer_context",
                _serve_variant(ctx, context_len=longer, prompt_tokens=min(longer // 2, s.prompt_tokens * 4)),
                pick,
                ctx,
                context_len=longer,
            )
        )
    else:
        assert ctx.train is not None
        longer = ctx.train.seq_len * 2
        out.append(
            _moved("what_if_longer_seq", _train_variant(ctx, seq_len=longer), pick, ctx, seq_len=longer)
        )
        if ctx.train.method == "full" and ctx.train.optimizer == "adamw":
            out.append(
                _moved("what_if_8bit_optimizer", _train_variant(ctx, optimizer="adamw_8bit"), pick, ctx)
            )
    if pick.monthly.yearly_monthly and (ctx.workload.always_on or pick.job is None):
        out.append(
            finding(
                "what_if_yearly",
                monthly=round(pick.monthly.amount),
                yearly_monthly=round(pick.monthly.yearly_monthly),
                saving_year=round(12 * (pick.monthly.amount - pick.monthly.yearly_monthly)),
                currency=pick.monthly.currency,
            )
        )
    return out


def for_no_fit(ctx: Context) -> list[Finding]:
    if limits_rule_out_everything(ctx):
        return [_without_limits(ctx)]
    if ctx.task == "infer":
        alt = _serve_variant(ctx, formats=("awq",))
        return [
            finding(
                "what_if_int4",
                gpu=alt.gpu.name if alt else None,
                amount=round(alt.cost.amount) if alt else None,
                currency=alt.cost.currency if alt else None,
            )
        ]
    alt = _train_variant(ctx, method="qlora")
    return [
        finding(
            "what_if_qlora",
            gpu=alt.gpu.name if alt else None,
            gpus=alt.total_gpus if alt else None,
            amount=round(alt.cost.amount) if alt else None,
            currency=alt.cost.currency if alt else None,
        )
    ]


def _without_limits(ctx: Context) -> Finding:
    """The cheapest pick once the user's card limits are lifted: what the limit costs them."""
    free = replace(ctx, searches=Searches(ctx.arch, ctx.kb))
    alt = _train_variant(free) if ctx.train is not None and ctx.task != "infer" else _serve_variant(free)
    return finding(
        "what_if_without_limits",
        gpu=alt.gpu.name if alt else None,
        gpus=alt.total_gpus if alt else None,
        amount=round(alt.cost.amount) if alt else None,
        currency=alt.cost.currency if alt else None,
    )
