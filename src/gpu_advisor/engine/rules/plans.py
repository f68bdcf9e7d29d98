"""Plan rules about the plan itself: a pick its own warnings call unworkable is not the pick.

``engine.plan_checks`` judges every candidate (``problems``) and ranks the workable
ones first; these rules then say what was set aside and why, with the numbers that
make the point:

- **Scaling floor.** Data-parallel efficiency is compute / (compute + exposed sync),
  the backward pass hiding up to 2/3 of the compute (``engine.interconnect``). Below
  ``EFFICIENCY_FLOOR`` most of what a multi-node plan rents waits on the network, so a
  single-node plan (LoRA, QLoRA) comes first. The network that would reach the floor:
  the exposed share allowed is compute·(1/floor − 1), so the network part of the sync
  may take compute·(1/floor − 1/3) − (the sync inside each machine); the ring
  all-reduce's time scales as 1/bandwidth, so need = have × (network time now) / (allowed).
- **Network.** A replica spanning machines needs 2·bytes/token·tokens/s (``rules.serving``).
- **Duration.** A job longer than ``MAX_JOB_HOURS`` is out of reach: the GPUs that
  would finish it within the limit at the same per-GPU speed, or the tokens that fit.
- **Task fit.** Pretraining updates every weight: LoRA/QLoRA do not apply.
- **The card the user named** is judged first, then compared with the cheapest pick.
- **Budget and deadline.** When nothing fits both, which limit to move and by how much.

Layout: see ``engine/rules/__init__.py``; sentences in ``locales/<lang>/plans.yaml``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from gpu_advisor.engine import cost
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, Value, finding
from gpu_advisor.engine.interconnect import network_gbps_needed
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.serving import bytes_per_token_between_machines, replica_tokens_per_s, stages_of
from gpu_advisor.engine.search_context import Context

EFFICIENCY_FLOOR = 0.5
MAX_JOB_HOURS = 8760.0  # a year: a longer job is a research programme, not a rental
BACKWARD_SHARE = 2.0 / 3.0  # engine.interconnect.BACKWARD_SHARE: sync hidden behind the backward pass


@dataclass(frozen=True)
class Review:
    """What the plan checks saw: the headline, the cheapest workable pick, what was set aside."""

    ctx: Context
    pick: Candidate | None
    cheapest: Candidate | None
    set_aside: dict[str, Candidate] = field(default_factory=dict)
    pick_problems: tuple[str, ...] = ()
    named: Candidate | None = None
    named_problems: tuple[str, ...] = ()
    named_priced: bool = True
    named_need_gib: float | None = None
    named_capacity_gib: float | None = None
    named_per_machine: int | None = None  # the named count is not one rented machine: the most one holds
    named_machines: int | None = None
    named_network_gbps: float | None = None
    late_within_budget: Candidate | None = None
    pretraining: bool = False  # training from scratch (``plan_checks.is_pretraining``)


PlanReview = Callable[[Review], Finding | None]


def network_short_gbps(ctx: Context, c: Candidate) -> tuple[float, float] | None:
    """(need, have) Gbit/s for a serving replica spanning machines whose network is short."""
    if c.task != "infer" or (stages := stages_of(c)) <= 1:
        return None
    need = network_gbps_needed(bytes_per_token_between_machines(ctx, stages), replica_tokens_per_s(ctx, c))
    have = c.offer.network_gbps or 0.0
    return (need, have) if have < need else None


def floor_network_gbps(c: Candidate, floor: float = EFFICIENCY_FLOOR) -> float | None:
    """The network between machines at which ``c`` would scale at ``floor``; None if no network would."""
    compute, sync = c.extras.get("compute_s", 0.0), c.extras.get("sync_s", 0.0)
    inside = c.extras.get("sync_inside_s", 0.0)
    allowed = compute * (1 / floor - 1 + BACKWARD_SHARE) - inside
    now = sync - inside
    have = c.offer.network_gbps or 1.0
    if allowed <= 0 or now <= 0:
        return None
    return round(have * now / allowed, -1) or 10.0


def _gpu(c: Candidate | None) -> tuple[str | None, int | None]:
    return (c.gpu.name, c.total_gpus) if c else (None, None)


def asked_method(r: Review) -> str:
    """The training method the user asked for (unsaid: full, as ``engine.defaults`` assumes)."""
    return r.ctx.workload.method or "full"


def method_changed(r: Review) -> Finding | None:
    """The pick trains another way than the user asked: said first, with why and what the asked way needs.

    A plan that quietly trains LoRA under a lead that repeats "full fine-tune" contradicts
    itself (issue 47). The best plan with the asked method is the one the checks set aside
    (``Review.set_aside``); its problem, speed and network need are the reason given, and
    it stays on the plan's list of options (``recommend._alternatives``).
    """
    pick = r.pick
    if pick is None or r.ctx.task != "train" or pick.method in (None, asked_method(r)):
        return None
    problem, c = next(iter(r.set_aside.items()), (None, None))
    return finding(
        "method_changed",
        "high",
        asked=asked_method(r),
        method=pick.method,
        problem=problem,
        gpus=c.total_gpus if c else None,
        gpu=c.gpu.name if c else None,
        machines=c.machines if c else None,
        efficiency=round(c.scaling_efficiency or 0.0, 3) if c else None,
        hours=round(c.training_hours) if c and c.training_hours else None,
        need_gbps=floor_network_gbps(c) if c and c.machines > 1 else None,
    )


def multi_node_inefficient(r: Review) -> Finding | None:
    """A multi-node plan below the floor: set aside for the pick, or the only option.

    The set-aside sentence names the pick as it is (its cards, machines and method): a
    LoRA pick on four machines is never told to "start on one machine" (issue 47).
    """
    only = "below_efficiency_floor" in r.pick_problems
    c = r.pick if only else r.set_aside.get("below_efficiency_floor")
    if c is None or (not only and r.pick is None):
        return None
    pick_gpu, pick_gpus = _gpu(r.pick)
    return finding(
        "multi_node_inefficient_only" if only else "multi_node_inefficient_set_aside",
        "high",
        machines=c.machines,
        gpus=c.total_gpus,
        gpu=c.gpu.name,
        efficiency=round(c.scaling_efficiency or 0.0, 3),
        floor=EFFICIENCY_FLOOR,
        network_gbps=c.offer.network_gbps or 0.0,
        need_gbps=floor_network_gbps(c),
        pick_method=None if only or r.pick is None else r.pick.method,
        pick_gpu=None if only else pick_gpu,
        pick_gpus=None if only else pick_gpus,
        pick_machines=None if only or r.pick is None else r.pick.machines,
    )


def multi_machine_serving_set_aside(r: Review) -> Finding | None:
    """A replica across machines whose own network warning fails, set aside for one machine that holds it."""
    c = r.set_aside.get("network_short")
    if c is None or r.pick is None or stages_of(r.pick) > 1:
        return None
    short = network_short_gbps(r.ctx, c)
    assert short is not None
    return finding(
        "multi_machine_serving_set_aside",
        "warn",
        machines=stages_of(c),
        network_gbps=short[1],
        need_gbps=round(short[0], 1),
        pick_gpu=r.pick.gpu.name,
        pick_gpus=r.pick.total_gpus,
    )


def job_out_of_reach(r: Review) -> Finding | None:
    """Even the best plan takes longer than a year: by how much, and what scale would finish it."""
    c = r.pick
    if c is None or "out_of_reach" not in r.pick_problems or c.training_hours is None:
        return None
    ratio = c.training_hours / MAX_JOB_HOURS
    tokens = r.ctx.workload.train_tokens or 0.0
    return finding(
        "job_out_of_reach",
        "high",
        hours=round(c.training_hours),
        years=round(c.training_hours / 8760.0, 1),
        ratio=round(ratio, 1),
        gpu=c.gpu.name,
        gpus=c.total_gpus,
        gpus_needed=int(math.ceil(c.total_gpus * ratio / 8) * 8),
        train_tokens=tokens,
        tokens_feasible=float(f"{tokens / ratio:.2g}"),
    )


def pretraining_trains_every_weight(r: Review) -> Finding | None:
    """Pretraining asked with LoRA/QLoRA: there are no pretrained weights to freeze."""
    w = r.ctx.workload
    if r.ctx.task != "train" or w.method not in ("lora", "qlora") or not r.pretraining:
        return None
    return finding("pretraining_trains_every_weight", "high", method=w.method, params_b=r.ctx.arch.params_b)


def named_card(r: Review) -> Finding | None:
    """The card the user named, judged: it works (how fast), it was set aside (why), or it does not fit."""
    w, ctx = r.ctx.workload, r.ctx
    if w.gpu is None:
        return None
    gpu, gpus = ctx.kb.gpus[w.gpu].name, w.gpu_count or w.gpus or 1
    if r.named is None and r.named_per_machine is not None:
        return _not_one_machine(r, gpu, gpus)
    if r.named is None:
        return _does_not_fit(r, gpu, gpus)
    if r.named_problems and r.pick is not r.named:
        pick_gpu, pick_gpus = _gpu(r.pick)
        label = r.named_problems[0]
        return finding(
            "named_card_set_aside",
            "warn",
            gpu=gpu,
            gpus=gpus,
            problem=label,
            pick_gpu=pick_gpu,
            pick_gpus=pick_gpus,
        )
    return _works(r, r.named, gpu)


def _not_one_machine(r: Review, gpu: str, gpus: int) -> Finding:
    """The named count is no machine the catalog rents: single cards are not one job's GPUs.

    "32 张 T4" for a full fine-tune is 32 one-card machines; "3 × RTX 3090" three. The
    plan refuses them with the reason rather than price a machine nobody rents (issue 47).
    """
    pick_gpu, pick_gpus = _gpu(r.pick)
    return finding(
        "named_card_not_one_machine",
        "high",
        gpu=gpu,
        gpus=gpus,
        per_machine=r.named_per_machine,
        machines=r.named_machines,
        network_gbps=r.named_network_gbps,
        pick_gpu=pick_gpu,
        pick_gpus=pick_gpus,
    )


def _does_not_fit(r: Review, gpu: str, gpus: int) -> Finding | None:
    if r.named_need_gib is None:
        return None
    pick_gpu, pick_gpus = _gpu(r.pick)
    return finding(
        "named_card_does_not_fit",
        "high",
        gpu=gpu,
        gpus=gpus,
        need_gib=r.named_need_gib,
        capacity_gib=r.named_capacity_gib,
        pick_gpu=pick_gpu,
        pick_gpus=pick_gpus,
    )


def _works(r: Review, c: Candidate, gpu: str) -> Finding | None:
    """It works: its speed, and what it costs more than the cheapest workable pick (or: unpriced)."""
    if not r.named_priced:
        return finding("named_card_not_in_catalog", "info", gpu=gpu, gpus=c.total_gpus, **_speed(c))
    cheap = r.cheapest
    fx = r.ctx.kb.catalog.fx_to_cny
    if c.offer.owned or cheap is None or cost.in_cny(cheap.cost, fx) >= cost.in_cny(c.cost, fx):
        return None
    return finding(
        "named_card_costs_more",
        "info",
        gpu=gpu,
        gpus=c.total_gpus,
        amount=round(c.cost.amount),
        currency=c.cost.currency,
        cheapest_gpu=cheap.gpu.name,
        cheapest_gpus=cheap.total_gpus,
        cheapest_amount=round(cheap.cost.amount),
        cheapest_amount_currency=cheap.cost.currency,
        **_speed(c),
    )


def _speed(c: Candidate) -> dict[str, float | None]:
    """The named card's speed, and for a training job how long it takes there ("要多久" on the
    user's own card is answered on that card, not on the pick)."""
    if c.task == "infer":
        return {"tokens_per_s": round(c.decode_tokens_per_s or 0.0, 1), "hours": None}
    hours = round(c.training_hours, 1) if c.training_hours else None
    return {"tokens_per_s": round(c.extras.get("tokens_per_s", 0.0)), "hours": hours}


def limit_to_move(r: Review) -> Finding | None:
    """Nothing within the budget (and the deadline): which limit to move, and by how much."""
    c, ctx = r.pick, r.ctx
    b = ctx.workload.budget
    if c is None or b is None or "over_budget" not in r.pick_problems:
        return None
    need = budget_amount(c, ctx)
    if need is None:
        return None
    values: dict[str, Value] = {
        "budget": b.amount,
        "need": round(need),
        "extra": round(need - b.amount),
        "currency": b.currency,
    }
    late = r.late_within_budget
    if late is not None and ctx.workload.deadline_hours and late.training_hours:
        return finding(
            "budget_or_deadline",
            "high",
            **values,
            deadline_hours=round(ctx.workload.deadline_hours, 1),
            hours=round(late.training_hours, 1),
        )
    return finding("raise_budget", "high", **values)


def budget_amount(c: Candidate, ctx: Context) -> float | None:
    """What ``c`` costs in the budget's currency and period (the job, a month or an hour)."""
    b = ctx.workload.budget
    if b is None:
        return None
    quote = c.job if b.per == "total" and c.job else c.monthly
    amount = quote.amount / 720.0 if b.per == "hour" else quote.amount
    return cost.to_currency(amount, quote.currency, b.currency, ctx.kb.catalog.fx_to_cny)


def _s(branch: str, expect: str, **workload: object) -> Scenario:
    return Scenario(branch=branch, expect=expect, workload=workload)


RULES: tuple[Rule[PlanReview], ...] = (
    Rule(
        id="method_changed",
        check=method_changed,
        # 70B full fine-tune: only 4 × 8 H100 on 10 Gbit/s holds it (~7 % efficient); LoRA is the pick.
        scenarios=(_s("fires", "", task="train", params_b=70, method="full"),),
    ),
    Rule(
        id="job_out_of_reach",
        check=job_out_of_reach,
        # 70B pretraining on 10T tokens: ~4.2e24 FLOPs, decades on 32 GPUs.
        scenarios=(_s("fires", "", task="train", params_b=70, pretrain=True, train_tokens=1e13),),
    ),
    Rule(
        id="multi_node_inefficient",
        check=multi_node_inefficient,
        emits=("multi_node_inefficient_set_aside", "multi_node_inefficient_only"),
        branches=("set_aside", "only"),
        scenarios=(
            # 70B full fine-tune: only 4 × 8 H100 on 10 Gbit/s holds it (~7 % efficient); LoRA is the pick.
            _s("set_aside", "multi_node_inefficient_set_aside", task="train", params_b=70, method="full"),
            # Pretraining may not fall back to LoRA: the multi-node plan stays, flagged.
            _s(
                "only", "multi_node_inefficient_only", task="train", params_b=70, method="full", pretrain=True
            ),
        ),
    ),
    Rule(
        id="multi_machine_serving_set_aside",
        check=multi_machine_serving_set_aside,
        scenarios=(
            # Qwen3-235B-A22B bf16 at 20 QPS: 2 × 8 A100 40G replicas need ~400 Gbit/s of expert
            # all-to-all over a 200 Gbit/s network; one 8 × H100 machine holds a replica.
            _s(
                "fires",
                "",
                task="infer",
                model="qwen3-235b-a22b",
                weight_dtype="bf16",
                qps=20,
                output_tokens=256,  # a chat-length answer: thinking answers need more machines
            ),
        ),
    ),
    Rule(
        id="pretraining_trains_every_weight",
        check=pretraining_trains_every_weight,
        scenarios=(_s("fires", "", task="train", params_b=7, method="lora", pretrain=True),),
    ),
    Rule(
        id="named_card",
        check=named_card,
        emits=(
            "named_card_costs_more",
            "named_card_not_in_catalog",
            "named_card_set_aside",
            "named_card_does_not_fit",
            "named_card_not_one_machine",
        ),
        branches=("costs_more", "not_in_catalog", "set_aside", "does_not_fit", "not_one_machine"),
        scenarios=(
            _s(
                "costs_more",
                "named_card_costs_more",
                task="infer",
                params_b=7,
                concurrency=4,
                gpu="h100-sxm",
                gpu_count=8,
            ),
            _s(
                "not_in_catalog",
                "named_card_not_in_catalog",
                task="infer",
                model="qwen2.5-72b",
                gpu="ascend-910b",
                gpu_count=8,
            ),
            _s(
                "set_aside",
                "named_card_set_aside",
                task="train",
                params_b=70,
                method="full",
                gpu="h100-sxm",
                gpu_count=32,
            ),
            # The catalog rents T4 one to a machine: 32 of them are 32 machines, not one job's GPUs.
            _s(
                "not_one_machine",
                "named_card_not_one_machine",
                task="train",
                params_b=13,
                method="full",
                gpu="t4",
                gpu_count=32,
            ),
            _s(
                "does_not_fit",
                "named_card_does_not_fit",
                task="infer",
                params_b=70,
                weight_dtype="bf16",
                gpu="rtx4090",
            ),
        ),
    ),
    Rule(
        id="limit_to_move",
        check=limit_to_move,
        emits=("raise_budget", "budget_or_deadline"),
        branches=("budget", "budget_or_deadline"),
        scenarios=(
            _s(
                "budget",
                "raise_budget",
                task="infer",
                params_b=70,
                weight_dtype="bf16",
                budget="1000 CNY/month",
            ),
            _s(
                "budget_or_deadline",
                "budget_or_deadline",
                task="train",
                params_b=7,
                method="lora",
                train_tokens=2e9,
                deadline_hours=24,
                budget="3000 CNY total",
            ),
        ),
    ),
)


NAMED_CARD_FINDINGS: frozenset[str] = frozenset(next(r for r in RULES if r.check is named_card).emits)
"""What the plan says of the card the user named (surfaces say it first, before the pick)."""
