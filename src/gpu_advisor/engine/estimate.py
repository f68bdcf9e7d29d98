"""Estimate: memory per GPU, which cards it fits, and how fast it runs — no prices, no ranking.

Serving memory follows the recommender's rule (``replica.per_gpu``), so both
give the same answer for the same card and count: with a stated ``context_len`` every
concurrent user is reserved the whole window (the promise "N users at C tokens each");
without one each user holds prompt + answer, the paged working set vLLM actually keeps
(Kwon et al., SOSP 2023), said as an assumption; and the KV cache always has room for
one whole window, which vLLM checks at start-up. With a ``qps`` the requested hardware
also carries p50/p99 TTFT/TPOT from ``engine.queueing`` as one replica group.
"""

from __future__ import annotations

from dataclasses import replace

from gpu_advisor.engine import disaggregation, replica, serving_capacity
from gpu_advisor.engine.architecture import Resolved, resolve
from gpu_advisor.engine.defaults import (
    ServeSetup,
    runtime_for,
    serve_setup,
    serving_formats,
    train_setup,
    zero_stage_for,
)
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.interconnect import gradient_sync_s, scaling_efficiency
from gpu_advisor.engine.memory import Memory, TrainSetup, kv_bytes_per_token, training_memory
from gpu_advisor.engine.queueing import ReplicaShape, break_qps, capacity_qps, closed_loop, latency
from gpu_advisor.engine.releases import release_findings
from gpu_advisor.engine.replica import board_link, per_gpu, replica_model
from gpu_advisor.engine.results import Estimate, FitRow, ModelSummary, Verdict
from gpu_advisor.engine.serving_search import card_format
from gpu_advisor.engine.specs import GpuSpec, Interconnect, Knowledge, ModelArch, RuntimeProfile
from gpu_advisor.engine.thinking import with_thinking_output
from gpu_advisor.engine.training import step_compute_s, training_hours
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.usable import usable_bytes
from gpu_advisor.engine.validate import canonical
from gpu_advisor.engine.workload import Workload

COUNTS = (1, 2, 4, 8)


def summary(arch: ModelArch) -> ModelSummary:
    return ModelSummary(
        id=arch.id,
        name=arch.name,
        params_b=arch.params_b,
        active_params_b=arch.active_b,
        layers=arch.layers,
        hidden_size=arch.hidden_size,
        num_heads=arch.num_heads,
        num_kv_heads=arch.num_kv_heads,
        head_dim=arch.head_dim,
        vocab_size=arch.vocab_size,
        kv_bytes_per_token=kv_bytes_per_token(arch, "fp16"),
        attention=arch.attention,
        num_experts=arch.num_experts,
        experts_per_token=arch.experts_per_token,
        sliding_window=arch.sliding_window,
        native_dtype=arch.native_dtype,
    )


def estimate(w: Workload, kb: Knowledge) -> Estimate:
    w = canonical(w, kb)
    res = resolve(w, kb.models)
    if w.task == "infer":
        return _open_layout(w, kb, res) or _serving_estimate(w, kb, res)
    return _training_estimate(w, kb, res)


LAYOUT_DEGREES = (1, 2, 4, 8, 16, 32, 64)
DP_ATTENTION_RUNTIMES = ("sglang", "tensorrt_llm")  # --enable-dp-attention, enable_attention_dp
LAYOUT_MARGIN = 1.02  # another layout must serve 2 % more to replace one TP group over every card


def _open_layout(w: Workload, kb: Knowledge, res: Resolved) -> Estimate | None:
    """Several named cards and no layout stated: the layout that serves the most (issue 45).

    Instead of one tensor-parallel group over every card, the search tries each TP degree
    that divides the cards and the heads (the rest of the cards as replicas behind one load
    balancer) and, for a mixture-of-experts model on a runtime that runs it, attention data
    parallel with expert parallel; it keeps the one with the most throughput under the
    request's own measure (at its p99 targets, its break rate at a stated qps, else at
    saturation), as NVIDIA AIConfigurator searches replicas x TP x DP x EP, and says the one
    chosen (``chosen_layout``, ``chosen_layout_dp``). A stated ``expert_parallel`` size fixes
    the group it spans (the engine runs the experts over the TP group). None when the layout
    is stated, or one TP group over every card is the only layout that fits.
    """
    count = w.gpu_count or 1
    if w.gpu is None or count < 2 or w.tensor_parallel is not None or w.prefill_gpus is not None:
        return None
    arch = res.arch
    degrees = [t for t in LAYOUT_DEGREES if t <= count and count % t == 0 and arch.num_heads % t == 0]
    if w.expert_parallel is not None:  # experts spread over the group the engine runs them on
        degrees = [t for t in degrees if t == w.expert_parallel]
    dp_options: tuple[bool | None, ...] = (w.attention_dp,)
    if arch.is_moe and w.attention_dp is None and w.runtime in DP_ATTENTION_RUNTIMES:
        dp_options = (None, True)
    tried: list[tuple[float, int, bool, Estimate]] = []
    for tp in degrees:
        for dp in dp_options:
            if dp and tp == 1:
                continue
            try:
                got = _serving_estimate(
                    w.model_copy(update={"tensor_parallel": tp, "attention_dp": dp}), kb, res
                )
            except ValueError:
                continue
            if got.requested is not None and got.requested.fits:
                tried.append((_served(got.requested, w), tp, bool(dp), got))
    whole = next((t for t in tried if t[1] == count and not t[2]), None)
    if not tried or (len(tried) == 1 and whole is not None):
        return None
    best = max(tried, key=lambda t: t[0])
    if whole is not None and best[0] < whole[0] * LAYOUT_MARGIN:
        best = whole
    score, tp, dp, got = best
    said = finding(
        "chosen_layout_dp" if dp else "chosen_layout",
        tensor_parallel=tp,
        replicas=count // tp,
        tried=len(tried),
        gain=score / whole[0] if whole is not None and whole[0] > 0 else None,
    )
    return got.model_copy(update={"findings": [*got.findings, said]})


def _served(v: Verdict, w: Workload) -> float:
    """A layout's throughput under the request's own measure: output tokens/s at its p99
    targets, requests/s where it breaks at a stated qps, else output tokens/s at saturation."""
    if w.ttft_ms_p99 is not None or w.tpot_ms_p99 is not None:
        return v.output_tokens_per_s_at_p99 or 0.0
    if w.qps is not None:
        return v.break_qps or 0.0
    return v.max_output_tokens_per_s or 0.0


def _serving_estimate(w: Workload, kb: Knowledge, res: Resolved) -> Estimate:
    arch = res.arch
    w, long = with_thinking_output(w, arch)
    s, assumed = serve_setup(w, arch)
    assumed = [*long, *assumed]
    fmt = w.weight_dtype or serving_formats(arch)[0]
    count = w.gpu_count or 1
    gpu = kb.gpus[w.gpu] if w.gpu else None
    at = _Serving(arch, s, kb, fmt, w)
    rows = [_fit_row(card, at.mem_on, at.speed, arch) for card in kb.gpus.values()]
    mem = at.mem_on(gpu, count)[0] if gpu else at.mem_on(kb.gpus[_first_fit(rows)], 1)[0]
    tok = ttft = rps = None
    if gpu:
        tok, ttft, rps = at.speed(gpu, count)
    requested = _verdict(gpu, count, at.mem_on, tok) if gpu else None
    if requested is not None and requested.fits:
        assert gpu is not None
        figures: dict[str, float | int] = {k: round(v, 2) for k, v in at.under_load(gpu, count).items()}
        for whole in ("replicas", "prefill_instances"):
            if whole in figures:
                figures[whole] = int(figures[whole])
        requested = requested.model_copy(update=figures | at.pools())
    settings = {
        "weight_dtype": fmt,
        "kv_dtype": s.kv_dtype,
        "context_len": s.context_len,
        "concurrency": s.concurrency,
        "prompt_tokens": s.prompt_tokens,
        "output_tokens": s.output_tokens,
    } | at.split_settings()
    return Estimate(
        task=w.task,
        model=summary(arch),
        memory_gib=mem.gib(),
        fits=rows,
        requested=requested,
        gpu=w.gpu,
        gpu_count=count,
        decode_tokens_per_s=_r(tok),
        ttft_ms=_r(ttft),
        requests_per_s=_r(rps, 2),
        settings=settings,
        assumptions=[*res.assumed, *assumed, *_kv_note(w, s), *at.runtime_notes(w, gpu, count)],
        findings=[*at.findings(), *_p99_said(requested)],
    )


class _Serving:
    """One serving workload on ``n`` × a card as one replica group (TP = n unless stated)."""

    def __init__(self, arch: ModelArch, s: ServeSetup, kb: Knowledge, fmt: str, w: Workload) -> None:
        self.arch, self.s, self.kb, self.fmt = arch, s, kb, fmt
        self.runtime, self.tensor_parallel = w.runtime, w.tensor_parallel
        self.closed = w.concurrency is not None and w.qps is None
        self.split = disaggregation.split_for(w, arch)
        self.placed: disaggregation.Disaggregated | None = None
        self.colocated_rps: float | None = None
        if self.split is not None:  # the verdict's memory is a decode GPU's
            self.tensor_parallel = self.split.decode_tp

    def _place(self, card: GpuSpec, n: int) -> tuple[GpuSpec, RuntimeProfile, str, int]:
        f = card_format(self.fmt, card)
        rt = self.s.configured(self.kb.runtimes[runtime_for(f, self.runtime)], card)
        return card, rt, f, self.tensor_parallel or n

    def runtime_notes(self, w: Workload, card: GpuSpec | None, n: int) -> list[Finding]:
        """Which scheduler limits and which runtime release the figures on ``card`` assume (issue
        45): the runtime's defaults for the card where the request set no limit, and the release
        its coefficients were fitted on, or the documented changes since the one the request names."""
        if card is None:
            return []
        _, rt, f, _ = self._place(card, n)
        profile = self.kb.runtimes[runtime_for(f, self.runtime)]
        notes: list[Finding] = []
        if rt.continuous_batching and (w.max_num_seqs is None or w.max_num_batched_tokens is None):
            seqs, tokens = rt.step_limits(1)[0], rt.token_budget(card)
            notes.append(
                finding("assumed_scheduler_limits", runtime=profile.name, max_num_seqs=seqs, tokens=tokens)
            )
        return [*notes, *release_findings(profile, profile.name, w.runtime_version)]

    def mem_on(self, card: GpuSpec, n: int) -> tuple[Memory, float]:
        """Memory per GPU for every user at once (``replica.per_gpu``), and the room for it."""
        _, rt, f, tp = self._place(card, n)
        held = per_gpu(self.arch, self.s, f, tp, rt)
        return held.memory(self.s.concurrency), usable_bytes(card, rt, group=(tp, self.s.attention_dp))

    def speed(self, card: GpuSpec, n: int) -> tuple[float, float, float]:
        """One stream's decode tokens/s, its TTFT (ms) and requests/s, unloaded."""
        p = replica_model(self.arch, self.s, self._place(card, n), board_link(card)).point(1)
        return p.tokens_per_s_per_seq, p.ttft_ms, p.requests_per_s

    def under_load(self, card: GpuSpec, n: int) -> dict[str, float]:
        """What ``n`` × ``card`` sustain as ``n // tp`` replicas (``engine.serving_capacity``).

        Always: the output tokens/s and requests/s at saturation and the KV pool per
        replica; with a ``qps``: p50/p99 TTFT and TPOT there and ``break_qps``; with p99
        targets: the throughput at which they stop holding; with a stated concurrency and
        no rate: the closed loop's mean TTFT, TPOT and throughput (a benchmark sweep point).
        """
        if self.split is not None:
            return self._disaggregated(card)
        where = self._place(card, n)
        got = replica.place(self.arch, self.s, where, card.usable_gib * GiB, board_link(card))
        if got is None:
            return {}
        s, copies = self.s, max(1, n // where[3])
        out = s.output_tokens
        figures = {
            "replicas": float(copies),
            "max_requests_per_s": capacity_qps(got.shape) * copies,
            "max_output_tokens_per_s": capacity_qps(got.shape) * out * copies,
            "kv_pool_tokens": got.kv_pool_tokens(self.arch, s, where[3]),
        } | serving_capacity.confidence(where[1], card, self.arch)
        if s.ttft_p99_s is not None or s.tpot_p99_s is not None:
            at_p99 = break_qps(got.shape, s.ttft_p99_s, s.tpot_p99_s)
            figures["output_tokens_per_s_at_p99"] = at_p99 * out * copies
        if s.qps is not None:
            figures |= serving_capacity.one_group(got.shape, s, copies)
            figures |= _p99_band(got.shape, s.qps / copies, figures["uncertainty_pct"])
        elif self.closed:
            loop = closed_loop(got.shape, -(-s.concurrency // copies))
            figures |= {
                "closed_loop_ttft_ms": loop.ttft_s * 1e3,
                "closed_loop_tpot_ms": loop.tpot_s * 1e3,
                "closed_loop_itl_ms_p50": loop.itl_p50_s * 1e3,
                "closed_loop_output_tokens_per_s": loop.output_tokens_per_s * copies,
            }
        return figures

    def _disaggregated(self, card: GpuSpec) -> dict[str, float]:
        """The stated prefill/decode split on ``card`` (``engine.disaggregation``), its figures."""
        assert self.split is not None
        _, rt, f, _ = self._place(card, self.split.decode_gpus)
        got = disaggregation.place(self.arch, self.s, (card, rt, f), self.split, card.usable_gib * GiB)
        self.placed = got
        if got is None:
            return {}
        figures = disaggregation.figures(got, self.arch, self.s, self.closed)
        tp, gpus = self.split.decode_tp, self.split.prefill_gpus + self.split.decode_gpus
        colocated = replica.place(
            self.arch, self.s, (card, rt, f, tp), card.usable_gib * GiB, board_link(card)
        )
        if colocated is not None:  # the same GPUs, every one running prompts and answers together
            self.colocated_rps = capacity_qps(colocated.shape) * (gpus // tp)
            figures["colocated_max_requests_per_s"] = self.colocated_rps
        return figures | serving_capacity.confidence(rt, card, self.arch)

    def pools(self) -> dict[str, str]:
        """Which pool limits a placed disaggregated deployment (empty otherwise)."""
        return {"limiting_pool": self.placed.limiting()} if self.placed else {}

    def findings(self) -> list[Finding]:
        """What the engine found about the requested deployment: the pool balance when disaggregated."""
        if self.placed is None:
            return []
        return [disaggregation.balance_finding(self.placed, self.colocated_rps)]

    def split_settings(self) -> dict[str, int]:
        """The split the figures are for, defaults filled in (empty when not disaggregated)."""
        if self.split is None:
            return {}
        sp = self.split
        return {
            "prefill_gpus": sp.prefill_gpus,
            "prefill_tensor_parallel": sp.prefill_tp,
            "decode_gpus": sp.decode_gpus,
            "tensor_parallel": sp.decode_tp,
        }


def _kv_note(w: Workload, s: ServeSetup) -> list[Finding]:
    """Say that each user is sized at prompt + answer when no window was stated."""
    if w.context_len is not None:
        return []
    return [finding("assumed_kv_per_user", tokens=s.resident_tokens, context_len=s.context_len)]


def _fit_row(card: GpuSpec, mem_on, speed, arch: ModelArch) -> FitRow:  # type: ignore[no-untyped-def]
    """The smallest power-of-two GPU count of ``card`` that holds the workload."""
    for n in COUNTS:
        if arch.num_heads % n:
            continue
        mem, cap = mem_on(card, n)
        if mem.total <= cap:
            tok = speed(card, n)[0] if speed else None
            return FitRow(
                gpu=card.id,
                count=n,
                fits=True,
                total_gib=round(mem.total / GiB, 2),
                capacity_gib=round(cap / GiB, 2),
                decode_tokens_per_s=_r(tok),
            )
    return FitRow(
        gpu=card.id,
        count=n,
        fits=False,
        total_gib=round(mem.total / GiB, 2),
        capacity_gib=round(cap / GiB, 2),
    )


def _p99_band(shape: ReplicaShape, rate: float, pct: float) -> dict[str, float]:
    """How close to saturation one replica runs at ``rate`` requests/s, and its p99 TTFT were it
    ``pct`` percent faster or slower than the estimate (issue 45).

    Near saturation a p99 is steep in the load: a replica a quarter slower than estimated
    runs at a quarter more of its capacity, and the queue behind it grows by far more than a
    quarter. The band takes the rate up and down by the estimate's own ± band
    (``serving_capacity.confidence``), so the answer shows the p99 at both ends, or that the
    slower end saturates (no p99 exists there: the queue grows without bound).
    """
    capacity = capacity_qps(shape)
    out = {"saturation": rate / capacity} if capacity > 0 else {}
    share = pct / 100.0
    low = latency(shape, rate * (1.0 - share))
    high = latency(shape, rate * (1.0 + share))
    if low is not None:
        out["ttft_ms_p99_low"] = low.ttft_p99_s * 1e3
    if high is not None:
        out["ttft_ms_p99_high"] = high.ttft_p99_s * 1e3
    return out


def _p99_said(v: Verdict | None) -> list[Finding]:
    """The p99 TTFT at the stated rate with its band, and how close to saturation it runs."""
    if v is None or v.ttft_ms_p99 is None or v.saturation is None or v.uncertainty_pct is None:
        return []
    said = {"p99_ms": v.ttft_ms_p99, "saturation": v.saturation, "pct": v.uncertainty_pct}
    if v.ttft_ms_p99_high is None:
        return [finding("ttft_p99_may_saturate", "warning", **said)]
    return [finding("ttft_p99_band", low_ms=v.ttft_ms_p99_low, high_ms=v.ttft_ms_p99_high, **said)]


def _verdict(card: GpuSpec, n: int, mem_on, tok: float | None) -> Verdict:  # type: ignore[no-untyped-def]
    """Exactly ``n`` × ``card``: fits or not, and the GiB per GPU it is short."""
    mem, cap = mem_on(card, n)
    fits = mem.total <= cap
    return Verdict(
        gpu=card.id,
        count=n,
        fits=fits,
        total_gib=round(mem.total / GiB, 2),
        capacity_gib=round(cap / GiB, 2),
        shortfall_gib=round(max(0.0, mem.total - cap) / GiB, 2),
        decode_tokens_per_s=_r(tok) if fits else None,
    )


def _first_fit(rows: list[FitRow]) -> str:
    fitting = sorted((r for r in rows if r.fits), key=lambda r: (r.count, r.capacity_gib))
    return fitting[0].gpu if fitting else max(rows, key=lambda r: r.capacity_gib).gpu


def _training_estimate(w: Workload, kb: Knowledge, res: Resolved) -> Estimate:
    arch = res.arch
    gpu = kb.gpus[w.gpu] if w.gpu else None
    count = w.gpus or w.gpu_count or 1
    base, assumed = train_setup(w, arch, gpu, count, kb.training_recipes)

    per_count: dict[int, Memory] = {}  # memory depends on the GPU count, not the card: once per count

    def mem_on(card: GpuSpec, n: int) -> tuple[Memory, float]:
        if n not in per_count:
            stage = zero_stage_for(w, kb.training_recipes, n)
            per_count[n] = training_memory(arch, replace(base, gpus=n, zero_stage=stage))
        return per_count[n], usable_bytes(card)

    rows = [_fit_row(card, mem_on, None, arch) for card in kb.gpus.values()]
    mem = training_memory(arch, base)
    hours = gpu_hours = None
    if w.train_tokens:
        card = gpu or kb.gpus[_first_fit(rows)]
        hours = _hours(arch, base, card, w.train_tokens)
        gpu_hours = hours * base.gpus
    settings = {
        "method": base.method,
        "weight_dtype": base.weight_dtype,
        "optimizer": base.optimizer,
        "batch_size": base.batch_size,
        "seq_len": base.seq_len,
        "zero_stage": base.zero_stage,
        "gradient_checkpointing": base.gradient_checkpointing,
        "gpus": base.gpus,
        "lora_rank": base.lora_rank,
    }
    return Estimate(
        task=w.task,
        model=summary(arch),
        memory_gib=mem.gib(),
        fits=rows,
        requested=_verdict(gpu, count, mem_on, None) if gpu else None,
        gpu=w.gpu,
        gpu_count=count,
        training_gpu_hours=_r(gpu_hours),
        training_hours=_r(hours, 2),
        settings=settings,
        assumptions=[*res.assumed, *assumed],
    )


def _hours(arch: ModelArch, s: TrainSetup, card: GpuSpec, tokens: float) -> float:
    ic: Interconnect = "nvlink" if card.nvlink_gbs else "pcie"
    trainable = training_memory(arch, s).notes["trainable_params"]
    step_tokens = s.batch_size * s.seq_len * 16
    compute = step_compute_s(
        arch, card, s.method, s.gradient_checkpointing, step_tokens, s.weight_dtype, s.seq_len
    )
    eff = (
        scaling_efficiency(compute, gradient_sync_s(trainable, s.gpus, s.zero_stage, card, ic))
        if s.gpus > 1
        else 1.0
    )
    return training_hours(
        arch, card, s.method, s.gradient_checkpointing, tokens, s.weight_dtype, s.gpus, eff, s.seq_len
    )


def _r(v: float | None, nd: int = 1) -> float | None:
    return None if v is None else round(v, nd)


__all__ = ["Finding", "estimate", "summary"]
