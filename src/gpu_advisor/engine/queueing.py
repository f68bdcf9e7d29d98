"""Tail latency of one continuously batching replica under Poisson arrivals.

A replica runs at most ``slots`` sequences at once (the batch its free memory holds,
capped by the runtime's ``max_num_seqs``). Requests arrive as a Poisson stream of rate
λ. Like vLLM's scheduler (Kwon et al., "Efficient Memory Management for Large
Language Model Serving with PagedAttention", SOSP 2023) a waiting request is
admitted when a slot is free, its prompt is prefilled ahead of the next decode step
(prefills stall decoding, one prompt after another), and each decode step of ``t(n)``
seconds gives every one of the ``n`` running sequences one token. The model, with
τ = prefill seconds per prompt and ``out`` output tokens per request:

* **Prefill share.** Prefills take a fraction ρ_p = λ·τ of the replica's time, so a
  sequence's time per output token is TPOT(n) = t(n) / (1 − ρ_p).
* **Occupancy.** By Little's law the mean number decoding is n̄ = λ·out·TPOT(n̄),
  solved by fixed-point iteration. A new request sees itself plus the others
  (PASTA); their number is Poisson(n̄) — the M/G/∞ occupancy, which holds for any
  service-time distribution — truncated at ``slots``.
* **Waiting for a slot.** When all slots are busy the replica is an M/G/c queue with
  c = slots and holding time S = out·TPOT(c): Erlang C gives the chance of waiting,
  P(W > t) = C(c, a)·exp(−(c/S − λ)·t / k), with the Allen–Cunneen factor
  k = (1 + C_s²)/2 for service times of squared variation C_s² (Allen, "Probability,
  Statistics and Queueing Theory", 1990; C_s² = 1 for output lengths that vary
  geometrically, 0 for fixed lengths).
* **Waiting for the prefill engine.** Prompts queue for the one prefill engine: an
  M/D/1 queue whose mean wait is Pollaczek–Khinchine's ρ_p·τ / (2·(1 − ρ_p)), given
  an exponential tail P(W > t) = ρ_p·exp(−ρ_p·t / W̄); a prompt also waits out the
  decode step in progress (uniform over one step).
* **Chunked prefill.** A prompt longer than the chunk (vLLM's
  ``max_num_batched_tokens``) is prefilled a chunk per step beside the decode batch,
  so its first token also waits one decode step per chunk.

TTFT = slot wait + prefill wait + step residual + τ (+ chunk steps), its quantiles
from the exact tail of the two waits' sum (each an atom at 0 plus an exponential).
TPOT at quantile q = (out·t(n_q) + k_q·τ) / out, with n_q the occupancy quantile and
k_q the quantile of the Poisson number of prefills that interrupt one answer.
``tests/test_queueing.py`` holds these figures to a discrete-event simulation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

CHUNK_TOKENS = 8192  # prompt tokens prefilled per step once a prompt is chunked (vLLM V1 server)
UTILISATION_TARGET = 0.7  # plan replicas to run at 70 % of the rate they can sustain
GEOMETRIC_CV2 = 1.0  # squared coefficient of variation of output lengths that vary like chat answers


@dataclass(frozen=True, slots=True)
class ReplicaShape:
    """One replica as the queue sees it: slots, prefill seconds, decode step seconds at n."""

    slots: int
    prefill_s: float
    step_s: Callable[[int], float]
    output_tokens: int
    chunks: int = 1
    service_cv2: float = GEOMETRIC_CV2


@dataclass(frozen=True, slots=True)
class Latency:
    """Latency at one arrival rate, in seconds; ``occupancy`` is the mean batch decoding."""

    qps: float
    ttft_p50_s: float
    ttft_p99_s: float
    tpot_p50_s: float
    tpot_p99_s: float
    occupancy: float
    utilisation: float


def capacity_qps(shape: ReplicaShape) -> float:
    """Largest sustainable rate: λ·out·t(c)/c + λ·τ = 1 (every slot busy, prefills stalling)."""
    per_request = shape.output_tokens * shape.step_s(shape.slots) / shape.slots + shape.prefill_s
    return 1.0 / per_request


def latency(shape: ReplicaShape, qps: float) -> Latency | None:
    """TTFT and TPOT at p50 and p99 for Poisson arrivals at ``qps``; None when the queue is unstable."""
    cap = capacity_qps(shape)
    rho_p = qps * shape.prefill_s
    if qps >= cap or rho_p >= 1.0:
        return None
    n_mean = _occupancy(shape, qps, rho_p)
    hold = shape.output_tokens * shape.step_s(shape.slots) / (1.0 - rho_p)
    waits = (_slot_wait(shape, qps, qps * hold, hold), _prefill_wait(shape.prefill_s, rho_p))
    base = shape.prefill_s + (shape.chunks - 1) * shape.step_s(max(1, round(n_mean)))
    ttft = [
        base + _sum_quantile(waits, q) + shape.step_s(_seen(n_mean, q, shape.slots)) * q for q in (0.5, 0.99)
    ]
    tpot = [_tpot(shape, qps, rho_p, _seen(n_mean, q, shape.slots), q) for q in (0.5, 0.99)]
    return Latency(qps, ttft[0], ttft[1], tpot[0], tpot[1], n_mean, qps / cap)


def _occupancy(shape: ReplicaShape, qps: float, rho_p: float) -> float:
    """Mean sequences decoding: the least fixed point of n = λ·out·t(n)/(1 − ρ_p), at most ``slots``."""
    n = 0.0
    for _ in range(200):
        nxt = qps * shape.output_tokens * shape.step_s(max(1, math.ceil(n))) / (1.0 - rho_p)
        if nxt >= shape.slots:
            return float(shape.slots)
        if abs(nxt - n) < 1e-6:
            return nxt
        n = nxt
    return n


def _seen(n_mean: float, q: float, slots: int) -> int:
    """Batch a request decodes in at quantile ``q``: itself plus Poisson(n̄) others, capped at ``slots``."""
    return min(slots, 1 + poisson_quantile(n_mean, q))


def _tpot(shape: ReplicaShape, qps: float, rho_p: float, batch: int, q: float) -> float:
    """Time per output token at quantile ``q``: steps at ``batch`` plus the prefills that cut in."""
    out = shape.output_tokens
    decode = out * shape.step_s(batch)
    stalls = poisson_quantile(qps * decode / (1.0 - rho_p), q) if shape.prefill_s > 0 else 0
    return (decode + stalls * shape.prefill_s) / out


def _slot_wait(shape: ReplicaShape, qps: float, offered: float, hold: float) -> tuple[float, float]:
    """(P(wait > 0), tail rate) for a free slot: Erlang C with the Allen–Cunneen factor."""
    c = shape.slots
    rate = (c / hold - qps) / ((1.0 + shape.service_cv2) / 2.0)
    return erlang_c(c, offered), max(rate, 1e-12)


def _prefill_wait(prefill: float, rho_p: float) -> tuple[float, float]:
    """(P(wait > 0), tail rate) for the prefill engine: M/D/1, Pollaczek–Khinchine mean."""
    if rho_p <= 0.0:
        return 0.0, 1.0
    mean = rho_p * prefill / (2.0 * (1.0 - rho_p))
    return rho_p, rho_p / mean


def erlang_c(servers: int, offered: float) -> float:
    """Probability that an arrival waits in M/M/c with offered load ``offered`` = λ/μ (Erlang C).

    Built from Erlang B's stable recursion B_k = a·B_{k−1} / (k + a·B_{k−1}), then
    C = B / (1 − (a/c)·(1 − B)).
    """
    if offered <= 0.0:
        return 0.0
    if offered >= servers:
        return 1.0
    b = 1.0
    for k in range(1, servers + 1):
        b = offered * b / (k + offered * b)
        if b < 1e-15:  # B only falls once k > a: no arrival ever waits
            return 0.0
    return b / (1.0 - (offered / servers) * (1.0 - b))


def _sum_quantile(waits: tuple[tuple[float, float], ...], q: float) -> float:
    """Quantile ``q`` of W1 + W2, each 0 or else exponential: P(Wi > t) = p_i·exp(−r_i·t)."""
    (p1, r1), (p2, r2) = waits
    if min(p1, p2) < 1e-4 * (1.0 - q):  # one wait all but never happens: invert the other's tail
        p, r = (p2, r2) if p1 < p2 else (p1, r1)
        return math.log(p / (1.0 - q)) / r if p > 1.0 - q else 0.0

    def tail(t: float) -> float:
        both = p1 * p2 * _hypoexp_tail(r1, r2, t)
        return p1 * (1 - p2) * math.exp(-r1 * t) + p2 * (1 - p1) * math.exp(-r2 * t) + both

    if tail(0.0) <= 1.0 - q:
        return 0.0
    lo, hi = 0.0, 1.0 / min(r1, r2)
    while tail(hi) > 1.0 - q:
        hi *= 2.0
    while hi - lo > 1e-4 * hi:
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if tail(mid) > 1.0 - q else (lo, mid)
    return hi


def _hypoexp_tail(r1: float, r2: float, t: float) -> float:
    """P(X1 + X2 > t) for independent exponentials of rates r1, r2."""
    if abs(r1 - r2) < 1e-9 * max(r1, r2):
        return math.exp(-r1 * t) * (1.0 + r1 * t)
    return (r2 * math.exp(-r1 * t) - r1 * math.exp(-r2 * t)) / (r2 - r1)


def poisson_quantile(mean: float, q: float) -> int:
    """Smallest k with P(Poisson(mean) ≤ k) ≥ q.

    Past a mean of 30, the Cornish–Fisher expansion k ≈ μ + z·√μ + (z² − 1)/6 (one
    skewness term) is within one of the exact count; below it the pmf is summed.
    """
    if mean <= 0.0:
        return 0
    if mean > 30.0:
        z = _z(q)
        return max(0, math.ceil(mean + z * math.sqrt(mean) + (z * z - 1.0) / 6.0 - 0.5))
    pmf = math.exp(-mean)
    cdf, k = pmf, 0
    while cdf < q:
        k += 1
        pmf *= mean / k
        cdf += pmf
    return k


Z_TABLE = {0.5: 0.0, 0.99: 2.3263478740408408}


def _z(q: float) -> float:
    """Standard normal quantile: tabled for p50 and p99, else by bisection on erf."""
    if q in Z_TABLE:
        return Z_TABLE[q]
    lo, hi = -8.0, 8.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < q else (lo, mid)
    return hi


def break_qps(shape: ReplicaShape, ttft_p99_s: float | None, tpot_p99_s: float | None) -> float:
    """Largest rate at which the p99 targets hold (stability alone when none is given), by bisection."""
    cap = capacity_qps(shape)

    def holds(qps: float) -> bool:
        lat = latency(shape, qps)
        if lat is None:
            return False
        return (ttft_p99_s is None or lat.ttft_p99_s <= ttft_p99_s) and (
            tpot_p99_s is None or lat.tpot_p99_s <= tpot_p99_s
        )

    lo, hi = 0.0, cap
    if not holds(cap * 1e-6):
        return 0.0
    while hi - lo > 1e-4 * cap:
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if holds(mid) else (lo, mid)
    return lo
