"""The recommender: search the catalog, keep what fits and meets the targets, rank by cost.

Ranking, in order: meets the latency target; within budget; cost of what was asked
(the job if it has an end, otherwise a month of 24×7); higher-precision weights; more
throughput. The plan carries the pick, a cheaper and a faster alternative where they
exist (for training also LoRA/QLoRA), the user's own hardware evaluated if they named
it, ordered reasoning, pitfalls and what-ifs — all as structured findings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gpu_advisor.engine import (
    launch,
    pitfalls,
    plan_checks,
    reasoning,
    serving_search,
    training_search,
    whatifs,
)
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.candidates import Candidate, settled
from gpu_advisor.engine.defaults import names_zero_stage, serve_setup, train_setup
from gpu_advisor.engine.dtypes import QUALITY_RANK
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.estimate import estimate, summary
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.offer_search import Searches, allowed_gpus
from gpu_advisor.engine.plan_checks import cost_cny, within_budget
from gpu_advisor.engine.results import Option, Plan
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.serving_curve import serving_curve
from gpu_advisor.engine.smallest_change import smallest_changes
from gpu_advisor.engine.specs import Knowledge, ModelArch, Offer
from gpu_advisor.engine.thinking import with_thinking_output
from gpu_advisor.engine.usable import usable_bytes
from gpu_advisor.engine.validate import canonical
from gpu_advisor.engine.workload import Workload


def recommend(w: Workload, kb: Knowledge) -> Plan:
    """A plan for ``w`` over ``kb.catalog``; raises EngineError for unknown names."""
    w = canonical(w, kb)
    res = resolve(w, kb.models)
    if w.task == "both":
        return _both(w, kb, res.arch, list(res.assumed))
    ctx = _context(w, kb, res.arch, w.task, list(res.assumed))
    return _plan(ctx)


def _colocated(w: Workload) -> list[Finding]:
    """A stated prefill/decode split is judged by ``estimate`` on the named hardware; plans
    size replicas that prefill and decode on the same GPUs, and say so rather than drop it."""
    if w.prefill_gpus is None:
        return []
    return [finding("assumed_colocated_plan", prefill_gpus=w.prefill_gpus)]


def _context(w: Workload, kb: Knowledge, arch: ModelArch, task: str, assumed: list[Finding]) -> Context:
    searches = Searches(arch, kb, allowed_gpus(w, kb))
    if task == "infer":
        w, long = with_thinking_output(w, arch)
        s, more = serve_setup(w, arch)
        more = [*long, *more, *_colocated(w)]
        duration = None if w.always_on else w.duration_hours
        cands = searches.serve(s, duration)
        return Context(w, kb, arch, task, cands, [*assumed, *more], serve=s, searches=searches)
    gpu = kb.gpus[w.gpu] if w.gpu else None
    full = w.model_copy(update={"method": "full"}) if plan_checks.is_pretraining(w, arch) else w
    base, more = train_setup(full, arch, gpu, w.gpus or w.gpu_count or 1, kb.training_recipes)
    fixed = (names_zero_stage(w, kb.training_recipes), w.gradient_checkpointing is not None)
    held = w.duration_hours or w.deadline_hours  # a job due in a week is rented for at most a week
    cands = searches.train(base, w.gpus, w.train_tokens, held, fixed)
    return Context(w, kb, arch, task, cands, [*assumed, *more], train=base, fixed=fixed, searches=searches)


def rank_key(c: Candidate, ctx: Context) -> tuple[bool, bool, float, int, float]:
    speed = c.aggregate_tokens_per_s or c.extras.get("tokens_per_s", 0.0)
    return (
        not c.meets_latency,
        within_budget(c, ctx) is False,
        cost_cny(c, ctx),
        QUALITY_RANK[c.weight_dtype],
        -speed,
    )


def _plan(ctx: Context) -> Plan:
    def key(c: Candidate) -> tuple[bool, bool, float, int, float]:
        return rank_key(c, ctx)

    ranked = plan_checks.lighter(ctx, plan_checks.rank(ctx, ctx.candidates, key), key)
    named, priced = _named(ctx)
    requested = _option(ctx, named, "requested", priced) if named else None
    if not ranked:
        return Plan(
            status="no_fit",
            task=ctx.task,
            model=summary(ctx.arch),
            recommendation=None,
            requested=requested,
            reasoning=reasoning.no_fit(ctx),
            pitfalls=_checked(ctx, None, ranked, key, named, priced)
            + pitfalls.evaluate(ctx, None, requested),
            what_ifs=whatifs.for_no_fit(ctx),
            assumptions=ctx.assumed,
            pretraining=plan_checks.is_pretraining(ctx.workload, ctx.arch),
        )
    pick = _headline(ctx, ranked[0], named)
    ctx = _for_method(ctx, pick)
    return Plan(
        status=_status(ctx, pick),
        task=ctx.task,
        model=summary(ctx.arch),
        recommendation=_option(ctx, pick, "pick"),
        alternatives=_alternatives(pick, ranked, ctx),
        requested=requested,
        reasoning=reasoning.steps(ctx, pick, ranked),
        pitfalls=_checked(ctx, pick, ranked, key, named, priced)
        + pitfalls.evaluate(ctx, ranked[0], requested),
        what_ifs=whatifs.for_pick(ctx, pick),
        assumptions=ctx.assumed,
        serving_curve=serving_curve(ctx.arch, ctx.serve, pick, ctx.kb) if ctx.serve else [],
        launch=_launch(Option.of(settled(pick), "pick"), ctx),
        pretraining=plan_checks.is_pretraining(ctx.workload, ctx.arch),
    )


def _option(ctx: Context, c: Candidate, kind: str, priced: bool = True) -> Option:
    """``c`` as public JSON, its capacity the memory the job may fill (``engine.usable``).

    A serving candidate is sized against its runtime's share of the card; showing that
    share, not the card's whole reported memory, makes the plan, the verdict for the
    same card and the /gpu card quote one figure.
    """
    if c.task == "infer":
        rt = ctx.kb.runtimes.get(c.runtime or "")
        group = (c.tensor_parallel, False)
        if rt is not None and ctx.serve is not None:
            rt, group = ctx.serve.configured(rt, c.gpu), (c.tensor_parallel, ctx.serve.attention_dp)
        c = replace(c, capacity_bytes=usable_bytes(c.gpu, rt, c.offer.slice_memory_gib, group))
    return Option.of(settled(c), kind, within_budget(c, ctx), priced)


def _for_method(ctx: Context, pick: Candidate) -> Context:
    """The context of the pick's method: a LoRA pick that replaced full training has LoRA what-ifs."""
    if ctx.train is None or pick.method in (None, ctx.train.method):
        return ctx
    return replace(ctx, train=replace(ctx.train, method=pick.method))


def _status(ctx: Context, pick: Candidate) -> str:
    hard = plan_checks.status(ctx, pick)
    if hard is not None:
        return hard
    if not pick.meets_latency:
        return "latency_not_met"
    return "ok" if within_budget(pick, ctx) is not False else "over_budget"


def _headline(ctx: Context, best: Candidate, named: Candidate | None) -> Candidate:
    """The user's own cards when they work no worse than the best rental, else the best rental.

    A "yes" on cards the user owns is followed by a plan on those cards, not by a rental
    headline. A rental card the user names is judged beside the pick instead
    (``rules.plans.named_card``): the pick stays the cheapest workable rental.
    """
    if named is None or not named.offer.id.startswith("own-"):
        return best
    if set(plan_checks.problems(ctx, named)) <= set(plan_checks.problems(ctx, best)):
        return named
    return best


def _checked(
    ctx: Context,
    pick: Candidate | None,
    ranked: list[Candidate],
    key: Callable[[Candidate], tuple[bool, bool, float, int, float]],
    named: Candidate | None,
    priced: bool,
) -> list[Finding]:
    """The plan checks' own findings: what was set aside, why, and what would change it."""
    extra: dict[str, object] = {"named": named, "named_priced": priced}
    if named is not None:
        extra["named_problems"] = plan_checks.problems(ctx, named)
    elif ctx.workload.gpu is not None:
        extra.update(named_machines(ctx) or _named_need(ctx))
    found = plan_checks.findings(plan_checks.review(ctx, pick, ranked, key, **extra))
    w = ctx.workload
    stated = w.gpu_count or w.gpus or 1
    grown = named is not None and named.total_gpus > stated  # the plan needed more of the named card
    short = "named_need_gib" in extra or (grown and bool(_named_need(ctx)))
    if ctx.task == "infer" and w.gpu is not None and short:
        # the named cards at the stated count say "no": name the cheapest change that keeps them
        found += smallest_changes(w, ctx.kb)[:1]
    return found


def _named_need(ctx: Context) -> dict[str, object]:
    """What the named card would need and holds (per GPU, GiB), from the estimate of exactly that card."""
    try:
        req = estimate(ctx.workload, ctx.kb).requested
    except (EngineError, ValueError):
        return {}
    if req is None or req.fits:
        return {}
    return {"named_need_gib": req.total_gib, "named_capacity_gib": req.capacity_gib}


def _launch(o: Option, ctx: Context) -> list[launch.LaunchSpec]:
    rt = ctx.kb.runtimes.get(o.runtime or "")
    return launch.for_option(
        o, ctx.arch, ctx.serve, ctx.train, rt, ctx.kb.gpus[o.gpu], weights=ctx.kb.checkpoints
    )


def _alternatives(pick: Candidate, ranked: list[Candidate], ctx: Context) -> list[Option]:
    out: list[Option] = []
    seen = {_identity(pick)}

    def first(wanted: Callable[[Candidate], bool]) -> Candidate | None:
        """The first workable candidate in rank order that is ``wanted`` (each alternative
        is one such; the checks run on the few candidates read, not on every one)."""
        return next((c for c in ranked if wanted(c) and plan_checks.workable(ctx, c)), None)

    def add(c: Candidate | None, kind: str) -> None:
        if c is not None and _identity(c) not in seen:
            seen.add(_identity(c))
            out.append(_option(ctx, c, kind))

    add(_asked_method_best(pick, ctx), "asked_method")
    pick_cost = cost_cny(pick, ctx)
    add(first(lambda c: cost_cny(c, ctx) < pick_cost), "cheaper")
    add(first(lambda c: QUALITY_RANK[c.weight_dtype] < QUALITY_RANK[pick.weight_dtype]), "higher_precision")
    add(first(lambda c: _speed(c) >= 1.5 * _speed(pick) and c.meets_latency), "faster")
    if (
        ctx.task == "train"
        and pick.method != "qlora"
        and not plan_checks.is_pretraining(ctx.workload, ctx.arch)
    ):
        lighter = [c for m in plan_checks.LIGHTER if m != pick.method and (c := _best_with_method(ctx, m))]
        best = first(lambda _: True)
        cheapest = min([*lighter, *([best] if best else [])], key=lambda c: cost_cny(c, ctx))
        if cost_cny(cheapest, ctx) < pick_cost and cheapest.method != pick.method:
            add(cheapest, "cheapest")
        for c in lighter:
            add(c, c.method or "lora")
    return out


def _asked_method_best(pick: Candidate, ctx: Context) -> Candidate | None:
    """The best plan with the method the user asked for, when the pick trains another way.

    The checks set it aside (``plan_checks``), but it stays on the list with its price and
    time: the plan says it changed the method (``rules.plans.method_changed``) and shows
    what the asked method would cost rather than drop it.
    """
    asked = ctx.workload.method or "full"
    if ctx.task != "train" or pick.method in (None, asked):
        return None
    return min((c for c in ctx.candidates if c.method == asked), key=lambda c: rank_key(c, ctx), default=None)


def _identity(c: Candidate) -> tuple[str, str, int, int, str | None]:
    return (c.offer.id, c.weight_dtype, c.gpus_per_machine, c.machines, c.method)


def _speed(c: Candidate) -> float:
    if c.task == "infer":
        return c.decode_tokens_per_s or 0.0
    return c.extras.get("tokens_per_s", 0.0)


def _best_with_method(ctx: Context, method: str) -> Candidate | None:
    assert ctx.train is not None
    assert ctx.searches is not None
    w = ctx.workload
    base = replace(ctx.train, method=method)
    cands = ctx.searches.train(base, w.gpus, w.train_tokens, w.duration_hours or w.deadline_hours, ctx.fixed)
    ranked = plan_checks.rank(ctx, cands, lambda c: rank_key(c, ctx))
    return ranked[0] if ranked and plan_checks.workable(ctx, ranked[0]) else None


def _named(ctx: Context) -> tuple[Candidate | None, bool]:
    """The user's own choice of GPU (and count) evaluated, and whether the catalog prices it.

    A card the catalog does not list (an Ascend 910B on an NVIDIA-only price list) is
    still judged: it is evaluated as if owned and carried as unpriced.
    """
    w = ctx.workload
    if w.gpu is None:
        return None, True
    count = w.gpu_count or w.gpus or 1
    offer = _owned_offer(ctx.kb, w.gpu, count) if w.gpu_owned else _offer_for(ctx.kb, w.gpu, count)
    priced = offer is not None
    if offer is None and _machines_of(ctx.kb, w.gpu):
        return None, True  # sold, but not this many in one machine (named_machines says why)
    if offer is None:
        offer = _owned_offer(ctx.kb, w.gpu, count, unpriced=True)
    if ctx.task == "infer":
        assert ctx.serve is not None
        cands = serving_search.search(ctx.arch, ctx.serve, ctx.kb, [offer], w.duration_hours)
    else:
        assert ctx.train is not None
        cands = training_search.search(
            ctx.arch, ctx.train, ctx.kb, [offer], count, w.train_tokens, w.duration_hours, ctx.fixed
        )
    cands = [c for c in cands if c.machines == 1] or cands
    if not cands:
        return None, priced
    return min(cands, key=lambda c: rank_key(c, ctx)), priced


def _owned_offer(kb: Knowledge, gpu: str, count: int, unpriced: bool = False) -> Offer:
    """The user's own cards, as an offer that costs nothing (PCIe between them unless they say otherwise)."""
    spec = kb.gpus[gpu]
    link = "none" if count == 1 else ("nvlink" if spec.form_factor in ("sxm", "oam") else "pcie")
    return Offer(
        id=f"{gpu}-{count}x-unpriced" if unpriced else f"own-{gpu}-{count}x",
        gpu=gpu,
        count=count,
        interconnect=link,
        owned=True,
        currency=kb.catalog.currency,
        source="not in the catalog: judged, not priced" if unpriced else "the user's own hardware",
    )


def _machines_of(kb: Knowledge, gpu: str) -> list[Offer]:
    """The whole machines the catalog rents with ``gpu`` (slices are parts of a card, not machines)."""
    return [o for o in kb.catalog.index.offers if o.gpu == gpu and not o.is_slice]


def _offer_for(kb: Knowledge, gpu: str, count: int) -> Offer | None:
    """The machine the catalog rents that holds ``count`` × ``gpu`` together, or None.

    The machine with exactly that many cards; else the smallest with more (billed whole, the
    job on ``count`` of its cards); else whole 8-GPU machines joined by their network
    (``training_search.joined_machines``). Never single-card offers multiplied into a
    machine nobody rents (issue 47: "3 × RTX 3090 ¥5,250" was three one-card machines with
    nothing between them, "32 × T4" a 32-card PCIe box): those counts are None, and the plan
    says why (``rules.plans.named_card``, ``named_machines``).
    """
    exact = [o for o in kb.catalog.index.by_gpu_count.get((gpu, count), []) if not o.is_slice]
    if exact:
        return exact[0]
    machines = _machines_of(kb, gpu)
    bigger = [o for o in machines if o.count > count]
    if bigger:
        return min(bigger, key=lambda o: (o.count, o.price_month or float("inf")))
    joined = [o for o in machines if training_search.joined_machines(o, count)]
    return max(joined, key=lambda o: o.count) if joined else None


def named_machines(ctx: Context) -> dict[str, object]:
    """Why the card the user named, in their count, is not one machine the catalog rents.

    Empty when it is (or when the catalog does not list the card at all: it is then judged
    unpriced, ``_named``). Otherwise the most cards one machine holds and the machines the
    count would take, for ``rules.plans.named_card``.
    """
    w = ctx.workload
    count = w.gpu_count or w.gpus or 1
    if w.gpu is None or w.gpu_owned or count <= 1:
        return {}
    machines = _machines_of(ctx.kb, w.gpu)
    if not machines or _offer_for(ctx.kb, w.gpu, count) is not None:
        return {}
    largest = max(machines, key=lambda o: o.count)
    return {
        "named_per_machine": largest.count,
        "named_machines": -(-count // largest.count),
        "named_network_gbps": largest.network_gbps,
    }


def _both(w: Workload, kb: Knowledge, arch: ModelArch, assumed: list[Finding]) -> Plan:
    """Train and serve on separate machines (seed 000 §5.2): a training plan plus a serving pick."""
    train = _plan(_context(w, kb, arch, "train", assumed))
    serve = _plan(_context(w.model_copy(update={"always_on": True}), kb, arch, "infer", []))
    return train.model_copy(
        update={
            "task": "both",
            "serving": serve.recommendation,
            "reasoning": [*train.reasoning, *serve.reasoning],
            "pitfalls": _unique([*train.pitfalls, *serve.pitfalls]),
            "what_ifs": [*train.what_ifs, *serve.what_ifs],
            "assumptions": _unique([*train.assumptions, *serve.assumptions]),
            "serving_curve": serve.serving_curve,
            "launch": [*train.launch, *[s.model_copy(update={"option": "serving"}) for s in serve.launch]],
        }
    )


def _unique(items: list[Finding]) -> list[Finding]:
    seen: set[str] = set()
    out = []
    for f in items:
        key = f.model_dump_json()
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
