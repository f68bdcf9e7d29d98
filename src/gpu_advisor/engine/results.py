"""The engine's answers as public JSON: Estimate and Plan.

Field names here are API for rental sites; fields may be added, never renamed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.cost import HOURS_PER_MONTH, Quote
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.launch.spec import LaunchSpec
from gpu_advisor.engine.units import GiB


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class Cost(_Out):
    amount: float
    currency: str
    per: str
    amount_max: float | None = None
    yearly_monthly: float | None = None
    billed_units: float | None = None
    unit: str | None = None

    @classmethod
    def of(cls, q: Quote) -> Cost:
        return cls(
            amount=round(q.amount, 2),
            currency=q.currency,
            per=q.per,
            amount_max=round(q.amount_max, 2) if q.amount_max else None,
            yearly_monthly=round(q.yearly_monthly, 2) if q.yearly_monthly else None,
            billed_units=q.billed_units,
            unit=q.unit,
        )


class Money(_Out):
    amount: float
    currency: str


class FitRow(_Out):
    gpu: str
    count: int
    fits: bool
    total_gib: float
    capacity_gib: float
    decode_tokens_per_s: float | None = None


class Verdict(FitRow):
    """The direct answer for the hardware the user named: does it fit, and by how much not.

    Serving at a stated ``qps`` also carries the queue's p50/p99 TTFT and TPOT (ms) on
    this hardware as one replica group, and the rate at which it breaks (``break_qps``:
    its capacity, or where a stated p99 target stops holding) — the figures each
    serving option carries (``engine.serving_capacity``). The p50/p99 figures are absent
    when the rate is past what the hardware can sustain: that queue grows without bound.
    Any serving verdict that fits carries the saturation throughput and the KV pool, the
    figures published serving benchmarks report (``bench/serving_compare.py`` reads them).
    """

    shortfall_gib: float = 0.0
    replicas: int | None = Field(None, description="gpu_count // tensor_parallel replicas sharing the qps")
    ttft_ms_p50: float | None = None
    ttft_ms_p99: float | None = None
    tpot_ms_p50: float | None = None
    tpot_ms_p99: float | None = None
    break_qps: float | None = None
    max_requests_per_s: float | None = Field(None, description="all replicas at saturation")
    max_output_tokens_per_s: float | None = Field(None, description="all replicas at saturation")
    kv_pool_tokens: float | None = Field(None, description="KV pool per replica, as the runtime reports it")
    output_tokens_per_s_at_p99: float | None = Field(
        None, description="all replicas at the rate where the stated p99 TTFT/TPOT targets stop holding"
    )
    closed_loop_ttft_ms: float | None = Field(None, description="mean, with `concurrency` users and no qps")
    closed_loop_tpot_ms: float | None = None
    closed_loop_itl_ms_p50: float | None = Field(
        None, description="median gap between tokens: most steps carry no prompt chunk"
    )
    closed_loop_output_tokens_per_s: float | None = None
    uncertainty_pct: float | None = Field(None, description="± band on figures under load")
    saturation: float | None = Field(
        None, description="the stated qps as a share of what the replicas sustain (1: saturated)"
    )
    ttft_ms_p99_low: float | None = Field(
        None, description="p99 TTFT were the replicas uncertainty_pct faster (the band's low end)"
    )
    ttft_ms_p99_high: float | None = Field(
        None, description="p99 TTFT were they uncertainty_pct slower; absent: then they saturate"
    )
    calibrated_card: float | None = Field(None, description="1 when this runtime was calibrated on the card")
    # prefill/decode disaggregation (Workload.prefill_gpus; engine.disaggregation): ``replicas``
    # then counts decode instances, and the figures above are the whole deployment's
    prefill_instances: int | None = Field(None, description="prefill_gpus // prefill_tensor_parallel")
    prefill_pool_requests_per_s: float | None = Field(None, description="prompts/s the prefill pool sustains")
    decode_pool_requests_per_s: float | None = Field(None, description="requests/s the decode pool sustains")
    limiting_pool: str | None = Field(None, description="'prefill' or 'decode': the pool that caps it")
    colocated_max_requests_per_s: float | None = Field(
        None, description="the same GPUs without disaggregation, prompts and answers on every replica"
    )
    kv_transfer_ms: float | None = Field(None, description="one prompt's KV cache, prefill to decode")


class ModelSummary(_Out):
    id: str
    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    kv_bytes_per_token: float
    attention: str = "mha"
    num_experts: int = 1
    experts_per_token: int = 1
    sliding_window: int | None = None
    native_dtype: str = "bf16"


class Option(_Out):
    """One rentable answer: what to rent, how to run it, what it costs and how fast it is."""

    kind: str
    task: str
    offer: str
    gpu: str
    gpu_name: str
    count: int
    machines: int
    cost: Cost
    monthly_cost: Cost
    job_cost: Cost | None = None
    memory_gib: dict[str, float]
    capacity_gib: float
    headroom_gib: float
    weight_dtype: str
    interconnect: str
    runtime: str | None = None
    method: str | None = None
    tensor_parallel: int | None = None
    replicas: int | None = None
    machines_per_replica: int | None = Field(
        None, description="machines one serving replica spans (its pipeline stages); 1 inside one machine"
    )
    batch: int | None = None
    zero_stage: int | None = None
    gradient_checkpointing: bool | None = None
    decode_tokens_per_s: float | None = None
    aggregate_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    requests_per_s: float | None = None
    training_hours: float | None = None
    training_gpu_hours: float | None = None
    scaling_efficiency: float | None = None
    tokens_per_s: float | None = None
    within_budget: bool | None = None
    meets_latency: bool = True
    order_url: str | None = Field(None, description="the operator's order page for this offer")
    ttft_ms_p50: float | None = Field(
        None, description="median time to first token at the target QPS (Poisson arrivals)"
    )
    ttft_ms_p99: float | None = None
    tpot_ms_p50: float | None = Field(None, description="median time per output token at the target QPS")
    tpot_ms_p99: float | None = None
    break_qps: float | None = Field(
        None, description="requests/s at which the p99 targets (or, without any, the queue) break"
    )
    tokens_per_s_replica_under_load: float | None = None
    cost_per_million_output_tokens: Money | None = None
    output_tokens_per_s: float | None = Field(None, description="output tokens/s at the planned load")
    output_tokens_per_s_full_load: float | None = Field(
        None, description="output tokens/s with every replica at the rate it can sustain"
    )
    cost_per_million_output_tokens_full_load: Money | None = Field(
        None, description="the monthly price over the full-load output tokens of a month"
    )
    uncertainty_pct: float | None = Field(
        None,
        description="± percent the serving figures under load may be off: narrower on a card the runtime "
        "was calibrated on (knowledge/serving_measurements.yaml), wider on one it was not",
    )
    calibrated_card: bool | None = Field(
        None, description="the serving figures rest on published measurements of this card and runtime"
    )
    uncertainty_moe: bool | None = Field(
        None, description="the band is a mixture-of-experts model's, wider than a dense model's on this card"
    )
    order_label: str | None = Field(None, description="the operator's words for its order button")
    priced: bool = Field(True, description="false for a card the user named that the catalog does not price")

    @classmethod
    def of(cls, c: Candidate, kind: str, within_budget: bool | None = None, priced: bool = True) -> Option:
        def r(v: float | None, nd: int = 1) -> float | None:
            return None if v is None else round(v, nd)

        gpu_hours = c.training_hours * c.total_gpus if c.training_hours is not None else None
        return cls(
            kind=kind,
            task=c.task,
            offer=c.offer.id,
            gpu=c.gpu.id,
            gpu_name=c.gpu.name,
            count=c.gpus_per_machine,
            machines=c.machines,
            cost=Cost.of(c.cost),
            monthly_cost=Cost.of(c.monthly),
            job_cost=Cost.of(c.job) if c.job else None,
            memory_gib=c.memory.gib(),
            capacity_gib=round(c.capacity_bytes / GiB, 2),
            headroom_gib=round(c.headroom_bytes / GiB, 2),
            weight_dtype=c.weight_dtype,
            interconnect=c.offer.interconnect,
            runtime=c.runtime,
            method=c.method,
            tensor_parallel=c.tensor_parallel if c.task == "infer" else None,
            replicas=c.replicas if c.task == "infer" else None,
            machines_per_replica=_stages(c),
            batch=c.batch if c.task == "infer" else None,
            zero_stage=c.zero_stage,
            gradient_checkpointing=c.gradient_checkpointing,
            decode_tokens_per_s=r(c.decode_tokens_per_s),
            aggregate_tokens_per_s=r(c.aggregate_tokens_per_s),
            ttft_ms=r(c.ttft_ms),
            requests_per_s=r(c.requests_per_s, 2),
            training_hours=r(c.training_hours, 2),
            training_gpu_hours=r(gpu_hours, 1),
            scaling_efficiency=r(c.scaling_efficiency, 3),
            tokens_per_s=r(c.extras.get("tokens_per_s")),
            within_budget=within_budget,
            meets_latency=c.meets_latency,
            order_url=c.offer.order_url,
            **_under_load(c),
            order_label=c.offer.order_label,
            priced=priced,
        )


def _under_load(c: Candidate) -> dict[str, float | Money | None]:
    """Latency quantiles, break-point QPS, per-replica tokens/s and cost per million output tokens.

    Cost per million output tokens = monthly price / (output tokens/s × 720 h × 3,600 s) × 10⁶,
    at the traffic the option was sized for (the user's QPS, else its concurrency).
    """
    if c.task != "infer":
        return {}
    x = c.extras
    out: dict[str, float | Money | None] = {
        k: round(x[k], 2) if k in x else None
        for k in ("ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "break_qps")
    }
    if "uncertainty_pct" in x:
        out["uncertainty_pct"] = x["uncertainty_pct"]
        out["calibrated_card"] = bool(x.get("calibrated_card"))
        out["uncertainty_moe"] = bool(x.get("moe_band"))
    tokens = x.get("output_tokens_per_s")
    if tokens:
        out["tokens_per_s_replica_under_load"] = round(x["tokens_per_s_replica_under_load"], 1)
        out["output_tokens_per_s"] = round(tokens, 1)
        out["cost_per_million_output_tokens"] = per_million_tokens(c.monthly, tokens)
    full = x.get("output_tokens_per_s_full_load")
    if full:
        out["output_tokens_per_s_full_load"] = round(full, 1)
        out["cost_per_million_output_tokens_full_load"] = per_million_tokens(c.monthly, full)
    return out


def per_million_tokens(monthly: Quote, tokens_per_s: float) -> Money:
    """A month's price over a month of output at ``tokens_per_s``, per million tokens."""
    per_million = monthly.amount / (tokens_per_s * HOURS_PER_MONTH * 3600) * 1e6
    return Money(amount=round(per_million, 4), currency=monthly.currency)


def _stages(c: Candidate) -> int | None:
    """Pipeline stages of a serving candidate (``serving_search`` notes them), None for training."""
    return int(c.memory.notes.get("machines_per_replica", 1)) if c.task == "infer" else None


class CurvePoint(_Out):
    """One replica's decode speed at one batch size (``Plan.serving_curve``)."""

    batch: int
    tokens_per_s_per_stream: float
    tokens_per_s_replica: float


class Estimate(_Out):
    task: str
    model: ModelSummary
    memory_gib: dict[str, float]
    fits: list[FitRow]
    requested: Verdict | None = Field(
        None, description="exactly the given gpu × gpu_count: fits or short by how much"
    )
    gpu: str | None = None
    gpu_count: int = 1
    decode_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    requests_per_s: float | None = None
    training_gpu_hours: float | None = None
    training_hours: float | None = None
    settings: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    assumptions: list[Finding] = Field(default_factory=list)
    findings: list[Finding] = Field(
        default_factory=list, description="what the engine found about the requested hardware (ids + numbers)"
    )


class Plan(_Out):
    status: str = Field(
        description="ok, over_budget, latency_not_met, no_fit, late (a training pick that misses "
        "the deadline: nothing finishes in time); or the problem of a pick nothing "
        "workable replaced (engine.plan_checks.HARD: out_of_reach, method_unfit, "
        "below_efficiency_floor, network_short)"
    )
    task: str
    model: ModelSummary
    recommendation: Option | None
    serving: Option | None = None
    alternatives: list[Option] = Field(default_factory=list)
    requested: Option | None = None
    reasoning: list[Finding] = Field(default_factory=list)
    pitfalls: list[Finding] = Field(default_factory=list)
    what_ifs: list[Finding] = Field(default_factory=list)
    assumptions: list[Finding] = Field(default_factory=list)
    serving_curve: list[CurvePoint] = Field(
        default_factory=list,
        description="decode speed vs batch for the serving pick's replica (empty for training or no fit)",
    )
    launch: list[LaunchSpec] = Field(
        default_factory=list,
        description="commands that run the pick (and the serving pick), planned runtime first",
    )
    pretraining: bool = Field(
        False, description="training from scratch: every weight, never called fine-tuning"
    )
