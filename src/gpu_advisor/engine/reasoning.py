"""The plan's reasoning as ordered, structured steps (id + the numbers behind it).

Each surface renders these through ``locales``; the short answer shows the first few,
``/why`` shows them all. Numbers are rounded where they are produced so every
surface quotes the same figures.
"""

from __future__ import annotations

from dataclasses import replace

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.findings import Finding, Value, finding
from gpu_advisor.engine.interconnect import link_gbs
from gpu_advisor.engine.memory import TrainSetup, kv_bytes_per_token, training_memory
from gpu_advisor.engine.offer_search import allowed_gpus
from gpu_advisor.engine.plan_checks import is_pretraining, workable
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.training import mfu
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.usable import usable_bytes, usable_gib

LONG_CONTEXT = 8192  # tokens per sequence from which a speed is said with its context


def _gib(v: float) -> float:
    return round(v / GiB, 2)


def steps(ctx: Context, pick: Candidate, ranked: list[Candidate]) -> list[Finding]:
    body = _serving_steps(ctx, pick) if pick.task == "infer" else _training_steps(ctx, pick)
    return [_shape(ctx), *body, *_cost_compare(ctx, pick, ranked)]


def _shape(ctx: Context) -> Finding:
    a = ctx.arch
    return finding(
        "model_shape",
        model=a.name,
        params_b=a.params_b,
        active_params_b=a.active_b,
        layers=a.layers,
        num_heads=a.num_heads,
        num_kv_heads=a.num_kv_heads,
        kv_kib_per_token=round(kv_bytes_per_token(a, "fp16") / 1024, 1),
    )


def _serving_steps(ctx: Context, c: Candidate) -> list[Finding]:
    assert ctx.serve is not None
    s, m = ctx.serve, c.memory
    rt = s.configured(ctx.kb.runtimes[c.runtime or "vllm"], c.gpu)
    room = usable_bytes(c.gpu, rt, c.offer.slice_memory_gib, (c.tensor_parallel, s.attention_dp))
    return [
        finding(
            "serving_memory",
            gpu=c.gpu.name,
            weight_dtype=c.weight_dtype,
            bits=FORMATS[c.weight_dtype].bits,
            weights_gib=_gib(m.weights),
            kv_gib=_gib(m.kv_cache),
            overhead_gib=_gib(m.overhead),
            total_gib=_gib(m.total),
            capacity_gib=_gib(room),
            batch=c.batch,
            tokens_per_seq=s.prompt_tokens + s.output_tokens,
            tensor_parallel=c.tensor_parallel,
        ),
        finding(
            "full_context_kv",
            context_len=s.context_len,
            kv_gib_per_seq=_gib(m.notes["kv_full_context_bytes"]),
            max_batch=int(m.notes["max_batch"]),
        ),
        _decode_speed(c, rt.name, rt.decode_bw_efficiency, s.prompt_tokens + s.output_tokens),
        finding("ttft", ttft_ms=c.ttft_ms or 0.0, prompt_tokens=s.prompt_tokens, target_ms=s.ttft_ms_max),
        finding(
            "replicas",
            concurrency=s.concurrency,
            qps=s.qps,
            replicas=c.replicas,
            machines=c.machines,
            requests_per_s=round(c.requests_per_s or 0.0, 2),
            gpus_per_machine=c.gpus_per_machine,
        ),
    ]


def _decode_speed(c: Candidate, runtime: str, bw_efficiency: float, tokens_per_seq: int) -> Finding:
    """Decode speed; with several replicas or a long context, per replica and in all, and for what context.

    ``aggregate_tokens_per_s`` is every replica's streams together, so a plan with
    replicas says the streams per replica and in all beside it (``decode_speed_split``).
    """
    values: dict[str, Value] = {
        "tokens_per_s": round(c.decode_tokens_per_s or 0.0, 1),  # as the option rounds it
        "batch": c.batch,
        "bound": c.bound or "",
        "bandwidth_gbs": c.gpu.bandwidth_gbs,
        "runtime": runtime,
        "bw_efficiency": bw_efficiency,
        "aggregate_tokens_per_s": c.aggregate_tokens_per_s or 0.0,
    }
    if c.replicas <= 1 and tokens_per_seq < LONG_CONTEXT:
        return finding("decode_speed", **values)
    streams = c.replicas * c.batch
    return finding(
        "decode_speed_split", **values, replicas=c.replicas, streams=streams, tokens_per_seq=tokens_per_seq
    )


def _training_steps(ctx: Context, c: Candidate) -> list[Finding]:
    assert ctx.train is not None
    m = c.memory
    unsharded = training_memory(ctx.arch, _single(ctx.train, c))
    states = unsharded.weights + unsharded.gradients + unsharded.optimizer
    trainable = m.notes["trainable_params"]
    out = [
        finding(
            "model_states",
            method="pretrain" if is_pretraining(ctx.workload, ctx.arch) else c.method or "full",
            trainable_params_b=round(trainable / 1e9, 3),
            bytes_per_param=round(states / (ctx.arch.params_b * 1e9), 2),
            states_gib=_gib(states),
            optimizer=ctx.train.optimizer,
        ),
        finding(
            "sharding",
            zero_stage=c.zero_stage or 0,
            gpus=c.total_gpus,
            per_gpu_states_gib=_gib(m.weights + m.gradients + m.optimizer),
        ),
        finding(
            "activations",
            seq_len=ctx.train.seq_len,
            batch_size=ctx.train.batch_size,
            gradient_checkpointing=bool(c.gradient_checkpointing),
            activations_gib=_gib(m.activations),
        ),
        finding(
            "training_fit",
            gpu=c.gpu.name,
            total_gib=_gib(m.total),
            capacity_gib=_gib(c.capacity_bytes),
            overhead_gib=_gib(m.overhead),
        ),
    ]
    if c.total_gpus > 1:
        out.append(
            finding(
                "scaling",
                interconnect=c.offer.interconnect,
                link_gbs=round(link_gbs(c.gpu, c.offer.interconnect), 1),
                sync_s=round(c.extras["sync_s"], 3),
                compute_s=round(c.extras["compute_s"], 3),
                efficiency=round(c.scaling_efficiency or 1.0, 3),
                machines=c.machines,
            )
        )
    if c.training_hours is not None:
        out.append(
            finding(
                "training_time",
                train_tokens=ctx.workload.train_tokens or 0.0,
                hours=round(c.training_hours, 2),
                gpu_hours=round(c.training_hours * c.total_gpus, 1),
                mfu=round(mfu(c.gpu, c.method or "full"), 3),
                tokens_per_s=round(c.extras["tokens_per_s"]),
            )
        )
    return out


def _single(s: TrainSetup, c: Candidate) -> TrainSetup:
    return replace(s, method=c.method or s.method, gpus=1, zero_stage=0)


def _cost_compare(ctx: Context, pick: Candidate, ranked: list[Candidate]) -> list[Finding]:
    """The pick against the workable candidates ("N workable options"; unworkable ones are not options)."""
    ranked = [c for c in ranked if workable(ctx, c)] or ranked
    others = [c for c in ranked if c.gpu.id != pick.gpu.id]
    nxt = others[0] if others else None
    return [
        finding(
            "cost_compare",
            offer=pick.offer.id,
            amount=round(pick.cost.amount, 2),
            currency=pick.cost.currency,
            per=pick.cost.per,
            monthly=round(pick.monthly.amount, 2),
            candidates=len(ranked),
            next_gpu=nxt.gpu.name if nxt else None,
            next_amount=round(nxt.cost.amount, 2) if nxt else None,
            next_amount_currency=nxt.cost.currency if nxt else None,
        )
    ]


def limits_rule_out_everything(ctx: Context) -> bool:
    """Whether the cards the user ruled out ("只用国产卡", "no consumer cards") leave no offer."""
    allowed = allowed_gpus(ctx.workload, ctx.kb)
    return allowed is not None and not any(o.gpu in allowed for o in ctx.kb.catalog.offers)


def no_fit(ctx: Context) -> list[Finding]:
    """Why nothing in the catalog works: the user's limits rule every offer out, or the need
    is larger than the biggest machine on offer."""
    if limits_rule_out_everything(ctx):
        w = ctx.workload
        if w.domestic_only:
            return [_shape(ctx), finding("nothing_allowed_domestic")]
        if w.only_vendor:
            return [_shape(ctx), finding("nothing_allowed_vendor", vendor=w.only_vendor)]
        excluded = len(w.exclude_gpus or ()) + len(w.exclude_segments or ())
        return [_shape(ctx), finding("nothing_allowed", excluded=excluded)]
    biggest = max(ctx.kb.catalog.offers, key=lambda o: o.count * ctx.kb.gpus[o.gpu].usable_gib)
    gpu = ctx.kb.gpus[biggest.gpu]
    need = None
    if ctx.train is not None:
        need = training_memory(ctx.arch, replace(ctx.train, gpus=biggest.count, zero_stage=3)).total
    return [
        _shape(ctx),
        finding(
            "nothing_fits",
            largest_offer=biggest.id,
            gpus=biggest.count,
            capacity_gib=round(usable_gib(gpu, ctx.kb.runtimes.get("vllm") if ctx.serve else None), 2),
            need_gib=_gib(need) if need else None,
        ),
    ]
