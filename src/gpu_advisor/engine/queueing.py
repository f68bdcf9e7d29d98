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
  sequence's time per output token is TPOT(n) = t(n) / (1 − ρ_p). With chunked prefill
  τ is what a prompt adds to the steps it rides in (``ReplicaModel.prompt_share_s``),
  not a serial prefill, and its own first token waits ``first_token_s``.
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
* **Multi-step passes.** A runtime that schedules once every k decode steps (vLLM
  0.6's ``--num-scheduler-steps k``) admits an arriving prompt only when the pass in
  progress ends: the step residual is uniform over k steps instead of one.
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
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, fields

from gpu_advisor.engine import break_points

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
    first_token_s: float | None = None  # a prompt's own compute and chunk steps; None: prefill_s
    floor_s: float = 0.0  # of first_token_s, the pass's fixed cost, shared by prompts batched into it
    scheduler_steps: int = 1  # decode steps per scheduling pass: what an arriving prompt waits out
    # a prompt's share of replica time beside ``b`` running sequences (a closed loop of b users);
    # None: ``prefill_s``, the share at ``slots``, at any b. Open-loop latency keeps ``prefill_s``.
    prompt_share: Callable[[int], float] | None = None
    memo: dict[tuple[float | None, float | None], BreakPoint] = field(
        default_factory=dict, compare=False, repr=False
    )
    # the object ``step_s`` is a pure function of (a ``throughput.ReplicaModel``): shapes with equal
    # numbers and equal models (``break_points.model_identity``) share break points across plans;
    # None: this shape keeps its own
    step_model: object | None = field(default=None, compare=False, repr=False)

    def fresh(self) -> ReplicaShape:
        """This shape with no break-point search of its own yet (``memo`` empty).

        A search is advanced in place, so a shape kept for other plans (``replica.speed``)
        hands each plan a copy: two worker threads must never advance one search together.
        Field by field, as ``dataclasses.replace`` would, at half its cost: 50-odd per plan.
        """
        new = object.__new__(ReplicaShape)
        for name in _SHAPE_FIELDS:
            object.__setattr__(new, name, getattr(self, name))
        object.__setattr__(new, "memo", {})
        return new


_SHAPE_FIELDS = tuple(f.name for f in fields(ReplicaShape))


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
    seen = [_seen(n_mean, q, shape.slots) for q in (0.5, 0.99)]  # the batch a request decodes in
    ttft = _ttft(shape, qps, rho_p, n_mean, ((0.5, seen[0]), (0.99, seen[1])))
    tpot = [_tpot(shape, qps, rho_p, b, q) for q, b in ((0.5, seen[0]), (0.99, seen[1]))]
    return Latency(qps, ttft[0], ttft[1], tpot[0], tpot[1], n_mean, qps / cap)


def _ttft(
    shape: ReplicaShape, qps: float, rho_p: float, n_mean: float, at: tuple[tuple[float, int], ...]
) -> list[float]:
    """TTFT at each (quantile, batch seen at it): both waits' sum, the step residual, the prompt."""
    hold = shape.output_tokens * shape.step_s(shape.slots) / (1.0 - rho_p)
    prefill = _prefill_wait(shape.prefill_s, rho_p)
    unseen = min(_NEGLIGIBLE * (1.0 - q) for q, _ in at)
    waits = (_slot_wait(shape, qps, qps * hold, hold, (unseen, prefill[0])), prefill)
    base = _first(shape, max(1, round(n_mean)))
    return [base + _sum_quantile(waits, q) + _residual(shape, b, q) for q, b in at]


def _p99(shape: ReplicaShape, qps: float, ttft: bool, tpot: bool) -> tuple[float, float] | None:
    """``latency``'s (TTFT p99, TPOT p99) alone, each 0.0 unless asked for; None when unstable.

    The same operations in the same order as ``latency``, so the figures are bit-identical;
    the break-point search (``_margin``) asks for nothing else, and skipping the medians
    and the unasked tail halves the cost of each of its ~10 evaluations.
    """
    rho_p = qps * shape.prefill_s
    if qps >= capacity_qps(shape) or rho_p >= 1.0:
        return None
    n_mean = _occupancy(shape, qps, rho_p)
    seen = _seen(n_mean, 0.99, shape.slots)
    first = _ttft(shape, qps, rho_p, n_mean, ((0.99, seen),))[0] if ttft else 0.0
    return first, (_tpot(shape, qps, rho_p, seen, 0.99) if tpot else 0.0)


def occupancy_and_p99(shape: ReplicaShape, qps: float, tails: bool) -> tuple[float, float, float] | None:
    """``latency``'s occupancy and, when ``tails``, its TTFT and TPOT p99 (else 0.0): no medians.

    What sizing a layout reads (the batch it runs, whether p99 targets hold), by the same
    operations in the same order as ``latency``, so the same floats; None when unstable.
    """
    rho_p = qps * shape.prefill_s
    if qps >= capacity_qps(shape) or rho_p >= 1.0:
        return None
    n_mean = _occupancy(shape, qps, rho_p)
    if not tails:
        return n_mean, 0.0, 0.0
    seen = _seen(n_mean, 0.99, shape.slots)
    first = _ttft(shape, qps, rho_p, n_mean, ((0.99, seen),))[0]
    return n_mean, first, _tpot(shape, qps, rho_p, seen, 0.99)


def _residual(shape: ReplicaShape, batch: int, q: float) -> float:
    """Quantile ``q`` of what an arriving prompt waits for the scheduling pass in progress to end.

    The arrival falls uniformly within a pass of ``scheduler_steps`` decode steps at
    ``batch``: one step when the runtime schedules every step, the rest of a multi-step
    pass otherwise (vLLM 0.6's ``--num-scheduler-steps``).
    """
    return shape.step_s(batch) * shape.scheduler_steps * q


def _first(shape: ReplicaShape, batch: int) -> float:
    """A prompt's own time to its first token beside ``batch`` running sequences."""
    if shape.first_token_s is not None:
        return shape.first_token_s
    return shape.prefill_s + (shape.chunks - 1) * shape.step_s(batch)


@dataclass(frozen=True, slots=True)
class ClosedLoop:
    """Mean figures for a closed loop of ``users`` who each send the next request on an answer."""

    ttft_s: float
    tpot_s: float
    output_tokens_per_s: float
    itl_p50_s: float = 0.0  # the median gap between tokens (``typical_gap``)


def typical_gap(shape: ReplicaShape, batch: int, rate: float, mean_tpot: float) -> float:
    """The median wait between two tokens of one answer, at ``rate`` new requests/s.

    The mean (``mean_tpot``) spreads the steps that carry a prompt's chunks over every
    token; when fewer than half of the steps carry one, most gaps are a plain decode
    step, and that is the median (what ``vllm bench serve`` prints as median ITL).
    """
    plain = shape.step_s(batch)
    return plain if rate * shape.chunks * plain < 0.5 else mean_tpot


def closed_loop(shape: ReplicaShape, users: int) -> ClosedLoop:
    """Mean TTFT, TPOT and throughput with ``users`` always waiting on one request each.

    Benchmarks that sweep concurrency (AIPerf, ``vllm bench serve --max-concurrency``)
    are closed loops. Below the slot count each user decodes in a batch of ``users``
    while prompts take a share ρ = X·τ(users) of the replica (X requests/s, found by fixed
    point; τ(b) the prompt's share beside b running sequences, ``prompt_share``: the steps
    a prompt rides in are a batch of ``users``, not of a full replica, so a step's fixed
    costs spread over fewer prompts), and a prompt waits behind the others as in M/D/1 (Pollaczek–Khinchine);
    past it the replica runs saturated and the extra users wait for a slot, which
    Little's law turns into TTFT = users/X − out·TPOT.
    """
    out = shape.output_tokens
    if users > shape.slots:
        rate = capacity_qps(shape)
        tpot = shape.step_s(shape.slots) / max(1e-9, 1.0 - rate * shape.prefill_s)
        gap = typical_gap(shape, shape.slots, rate, tpot)
        return ClosedLoop(max(users / rate - out * tpot, 0.0), tpot, rate * out, gap)
    first = _first(shape, users)
    work = max(first - shape.floor_s, 0.0)  # what prompts queue behind; the floor is paid once a pass
    share = shape.prompt_share(users) if shape.prompt_share is not None else shape.prefill_s
    rate = 0.0
    for _ in range(100):
        rho = min(rate * share, 0.95)
        tpot = shape.step_s(users) / (1.0 - rho)
        load = min(rate * work, 0.95)
        ttft = first + load * work / (2.0 * (1.0 - load))
        nxt = users / (ttft + out * tpot)
        if abs(nxt - rate) < 1e-9 * max(nxt, 1.0):
            break
        rate = (rate + nxt) / 2.0 if rate else nxt
    return ClosedLoop(ttft, tpot, rate * out, typical_gap(shape, users, rate, tpot))


def _occupancy(shape: ReplicaShape, qps: float, rho_p: float) -> float:
    """Mean sequences decoding: the least fixed point of n = λ·out·t(n)/(1 − ρ_p), at most ``slots``."""
    # λ·out and 1 − ρ_p taken out of the loop: the same products in the same order.
    rate, free, step, slots = qps * shape.output_tokens, 1.0 - rho_p, shape.step_s, shape.slots
    n = 0.0
    for _ in range(200):
        nxt = rate * step(max(1, math.ceil(n))) / free
        if nxt >= slots:
            return float(slots)
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


def _slot_wait(
    shape: ReplicaShape, qps: float, offered: float, hold: float, unseen: tuple[float, float]
) -> tuple[float, float]:
    """(P(wait > 0), tail rate) for a free slot: Erlang C with the Allen–Cunneen factor.

    ``unseen`` is (the chance below which ``_sum_quantile`` ignores a wait, the other
    wait's chance): when Erlang C's bound puts this wait below the first and below the
    other wait (or the other never happens), no quantile reads its exact value, so the
    O(slots) recursion is skipped and 0.0 stands in — the quantiles come out the same.
    """
    c = shape.slots
    rate = (c / hold - qps) / ((1.0 + shape.service_cv2) / 2.0)
    bound = erlang_c_bound(c, offered)
    below, other = unseen
    if bound < below and (other == 0.0 or other > bound):
        return 0.0, max(rate, 1e-12)
    return erlang_c(c, offered), max(rate, 1e-12)


def erlang_c_bound(servers: int, offered: float) -> float:
    """An upper bound on ``erlang_c(servers, offered)``, in O(1); 1.0 where none is cheap.

    Erlang B is Poisson(a)'s pmf at c over its cdf; the Poisson median is below a + 1/3,
    so for c ≥ a + 1 the cdf is at least ½ and B ≤ 2·pmf(c); then C = B / (1 − (a/c)(1 − B))
    ≤ B / (1 − a/c). Doubled again for the rounding of lgamma and exp.
    """
    if offered <= 0.0:
        return 0.0
    if servers < offered + 1.0:
        return 1.0
    log_pmf = -offered + servers * math.log(offered) - math.lgamma(servers + 1)
    return 4.0 * math.exp(log_pmf) / (1.0 - offered / servers)


def _prefill_wait(prefill: float, rho_p: float) -> tuple[float, float]:
    """(P(wait > 0), tail rate) for the prefill engine: M/D/1, Pollaczek–Khinchine mean."""
    if rho_p <= 0.0:
        return 0.0, 1.0
    mean = rho_p * prefill / (2.0 * (1.0 - rho_p))
    return rho_p, rho_p / mean


def prefill_wait_quantile(prefill_s: float, rho: float, q: float) -> float:
    """Quantile ``q`` of a prompt's wait for a prefill engine busy ``rho`` of its time.

    The M/D/1 wait above (Pollaczek–Khinchine mean, exponential tail), alone: what a
    disaggregated prefill instance (``engine.disaggregation``) makes a prompt wait.
    """
    return _sum_quantile((_prefill_wait(prefill_s, rho), (0.0, 1.0)), q)


def erlang_c(servers: int, offered: float) -> float:
    """Probability that an arrival waits in M/M/c with offered load ``offered`` = λ/μ (Erlang C).

    Built from Erlang B's stable recursion B_k = a·B_{k−1} / (k + a·B_{k−1}), then
    C = B / (1 − (a/c)·(1 − B)).
    """
    if offered <= 0.0:
        return 0.0
    if offered >= servers:
        return 1.0
    # Erlang B is Poisson(a)'s pmf at c over its cdf, and the cdf is over ½ when c > a,
    # so C ≤ 2·pmf(c)/(1 − a/c): when that bound is negligible no arrival waits, and the
    # O(c) recursion below (thousands of slots on a large card) is skipped.
    log_pmf = -offered + servers * math.log(offered) - math.lgamma(servers + 1)
    if log_pmf < -40.0 and 2.0 * math.exp(log_pmf) / (1.0 - offered / servers) < 1e-15:
        return 0.0
    b = 1.0
    for k in range(1, servers + 1):
        ab = offered * b  # a·B_{k−1}, computed once (the same product twice before: same bits)
        b = ab / (k + ab)
        if b < 1e-15:  # B only falls once k > a: no arrival ever waits
            return 0.0
    return b / (1.0 - (offered / servers) * (1.0 - b))


_NEGLIGIBLE = 1e-4  # of 1 − q: a wait less likely than this is left out of quantile q


def _sum_quantile(waits: tuple[tuple[float, float], ...], q: float) -> float:
    """Quantile ``q`` of W1 + W2, each 0 or else exponential: P(Wi > t) = p_i·exp(−r_i·t)."""
    (p1, r1), (p2, r2) = waits
    if min(p1, p2) < _NEGLIGIBLE * (1.0 - q):  # one wait all but never happens: invert the other's tail
        p, r = (p2, r2) if p1 < p2 else (p1, r1)
        return math.log(p / (1.0 - q)) / r if p > 1.0 - q else 0.0

    # The tail p1(1−p2)e^(−r1·t) + p2(1−p1)e^(−r2·t) + p1·p2·P(X1 + X2 > t), its
    # constant factors taken out of the bisection (same operations, same order).
    a1, a2, both, exp = p1 * (1 - p2), p2 * (1 - p1), p1 * p2, math.exp
    if abs(r1 - r2) < 1e-9 * max(r1, r2):

        def tail(t: float) -> float:
            e1 = exp(-r1 * t)
            return a1 * e1 + a2 * exp(-r2 * t) + both * (e1 * (1.0 + r1 * t))
    else:
        gap = r2 - r1

        def tail(t: float) -> float:
            e1, e2 = exp(-r1 * t), exp(-r2 * t)
            return a1 * e1 + a2 * e2 + both * ((r2 * e1 - r1 * e2) / gap)

    beyond = 1.0 - q
    if tail(0.0) <= beyond:
        return 0.0
    lo, hi = 0.0, 1.0 / min(r1, r2)
    while tail(hi) > beyond:
        hi *= 2.0
    while hi - lo > 1e-4 * hi:
        mid = (lo + hi) / 2.0
        if tail(mid) > beyond:
            lo = mid
        else:
            hi = mid
    return hi


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
    """Largest rate at which the p99 targets hold (stability alone when none is given).

    The p99 figures only grow with the rate, so the break point is the root of
    m(λ) = log(max(p99 / target)) on (0, capacity). The Illinois variant of regula
    falsi (Dowell & Jarratt 1971) keeps a bracket, steps by secant where m is finite
    and halves where the queue is unstable; it needs ~6–10 latency evaluations where
    plain bisection to the same 1e-4 of capacity needed 14+. The answer is memoised on
    the shape, so what-ifs that reuse a layout ask the queue once, and, for a shape with
    an ``identity``, across plans (``engine.break_points``).
    """
    return break_point(shape, ttft_p99_s, tpot_p99_s).value()


def break_point(shape: ReplicaShape, ttft_p99_s: float | None, tpot_p99_s: float | None) -> BreakPoint:
    """``break_qps``'s search, run only as far as its caller needs (``BreakPoint``).

    A plan sizes every layout in the catalog, and the replica count only needs to know
    which side of the utilisation target the break point falls, or between which two
    replica counts (``serving_capacity.size``): the bracket often says so after two or
    three evaluations of the queue where the whole search takes ~10. The exact float is
    searched to the end only for the options a plan shows. One search per shape and
    targets (``ReplicaShape.memo``); a finished one is shared across plans.
    """
    key = (ttft_p99_s, tpot_p99_s)
    got = shape.memo.get(key)
    if got is None:
        got = shape.memo[key] = _shared_point(shape, ttft_p99_s, tpot_p99_s)
    return got


class BreakPoint:
    """The break-point search, one evaluation of the queue at a time.

    ``bounds`` is the bracket so far: the finished search returns 0.0 (the targets fail
    even at the lowest rate, ``may_be_zero`` until that rate is evaluated) or a rate in
    [lo, hi] (every point it moves ``lo`` to lies inside the bracket, and it returns
    ``lo``), so a caller that only needs a monotone function of the answer can stop as
    soon as the function agrees at both ends (and at 0.0 while that is possible).
    ``value`` runs the search to its end: the same evaluations as one uninterrupted search
    (``_break``), each a pure function of its rate, so the same float. Only their order
    differs: the lowest rate's margin is read by the search when a secant step needs it
    or at the end, so the first bisection steps, which never read it, come first.
    """

    __slots__ = (
        "_cap",
        "_done",
        "_f_hi",
        "_f_lo",
        "_hi",
        "_key",
        "_left",
        "_lo",
        "_shape",
        "_side",
        "_tpot",
        "_ttft",
        "_zero",
    )

    def __init__(
        self,
        shape: ReplicaShape,
        ttft_p99_s: float | None,
        tpot_p99_s: float | None,
        key: Hashable | None = None,
    ) -> None:
        self._shape, self._ttft, self._tpot, self._key = shape, ttft_p99_s, tpot_p99_s, key
        cap = self._cap = capacity_qps(shape)
        self._side, self._left, self._f_hi, self._f_lo = 0, 60, math.inf, math.nan
        self._done = self._zero = False
        if ttft_p99_s is None and tpot_p99_s is None:
            self._settle(cap * (1.0 - 1e-4))
            return
        self._lo, self._hi = cap * 1e-6, cap
        self._zero = True  # the lowest rate (``_lo`` now) not yet evaluated; ``_f_lo`` is NaN

    def _state(self) -> tuple[float | int | bool, ...]:
        return (self._lo, self._hi, self._f_lo, self._f_hi, self._side, self._left, self._zero)

    def _adopt(self, state: tuple[float | int | bool, ...]) -> None:
        """Go on from where another search of the same key stopped (``engine.break_points``):
        its evaluations are of equal numbers, so the same floats as had this one made them."""
        lo, hi, f_lo, f_hi, side, left, zero = state
        self._lo, self._hi, self._f_lo, self._f_hi = float(lo), float(hi), float(f_lo), float(f_hi)
        self._side, self._left, self._zero = int(side), int(left), bool(zero)

    @classmethod
    def known(cls, value: float) -> BreakPoint:
        """A break point already found (``engine.break_points``): nothing left to search."""
        point = cls.__new__(cls)
        point._key, point._zero = None, False
        point._settle(value)
        return point

    def _settle(self, value: float) -> None:
        self._lo = self._hi = value
        self._done, self._zero = True, False
        if self._key is not None:
            break_points.store(self._key, value)

    @property
    def done(self) -> bool:
        return self._done

    @property
    def may_be_zero(self) -> bool:
        """Whether the answer may still be 0.0 (the lowest rate's margin not yet read)."""
        return self._zero

    def bounds(self) -> tuple[float, float]:
        """(lo, hi): the search's answer lies in this range (or is 0.0, ``may_be_zero``)."""
        return self._lo, self._hi

    def _lowest(self) -> bool:
        """Evaluate the lowest rate, as the search does first; True when the targets fail there."""
        f = _margin(self._shape, self._cap * 1e-6, self._ttft, self._tpot)
        self._zero = False
        if f > 0:
            self._settle(0.0)
            return True
        if math.isnan(self._f_lo):  # ``_lo`` is still the lowest rate: its margin is ``_f_lo``
            self._f_lo = f
        return False

    def refine(self) -> None:
        """One more evaluation of the queue (at most; none once the search is done)."""
        if self._done:
            return
        self._step()
        if not self._done and self._key is not None:  # the next plan goes on from here
            break_points.store(self._key, self._state())

    def _step(self) -> None:
        lo, hi, f_hi, cap = self._lo, self._hi, self._f_hi, self._cap
        if self._left == 0 or hi - lo <= 1e-4 * cap:
            if not (self._zero and self._lowest()):
                self._settle(lo)
            return
        if not math.isinf(f_hi) and math.isnan(self._f_lo):  # a secant step reads the lowest rate's margin
            self._lowest()
            return
        f_lo = self._f_lo
        self._left -= 1
        if math.isinf(f_hi) or math.isinf(f_lo):
            mid = (lo + hi) / 2.0
        else:
            mid = lo - f_lo * (hi - lo) / (f_hi - f_lo)
            mid = min(max(mid, lo + 1e-5 * cap), hi - 1e-5 * cap)
        f = _margin(self._shape, mid, self._ttft, self._tpot)
        if f <= 0:
            self._lo, self._f_lo = mid, f
            self._f_hi = f_hi / 2.0 if self._side == -1 else f_hi
            self._side = -1
        else:
            self._hi, self._f_hi = mid, f
            self._f_lo = f_lo / 2.0 if self._side == 1 else f_lo
            self._side = 1

    def value(self) -> float:
        """The break point itself: the search run to its end."""
        while not self._done:
            self.refine()
        return self._lo


def _shared_point(shape: ReplicaShape, ttft_p99_s: float | None, tpot_p99_s: float | None) -> BreakPoint:
    """A search of ``shape``'s break point, or the one other plans already found."""
    identity = break_points.model_identity(shape.step_model) if break_points.SHARED else None
    if identity is None:
        return BreakPoint(shape, ttft_p99_s, tpot_p99_s)
    key = (identity, *_numbers(shape), ttft_p99_s, tpot_p99_s)
    got = break_points.lookup(key)
    if isinstance(got, float):
        return BreakPoint.known(got)
    point = BreakPoint(shape, ttft_p99_s, tpot_p99_s, key)
    if got is not None:
        point._adopt(got)
    return point


def _numbers(shape: ReplicaShape) -> tuple[float | int | None, ...]:
    """Every field of ``shape`` the break-point search reads besides ``step_s``."""
    return (
        shape.slots,
        shape.prefill_s,
        shape.output_tokens,
        shape.chunks,
        shape.service_cv2,
        shape.first_token_s,
        shape.floor_s,
        shape.scheduler_steps,
    )


def _margin(shape: ReplicaShape, qps: float, ttft_p99_s: float | None, tpot_p99_s: float | None) -> float:
    """log of the worst p99/target ratio at ``qps``; +inf where the queue is unstable."""
    lat = _p99(shape, qps, bool(ttft_p99_s), bool(tpot_p99_s))
    if lat is None:
        return math.inf
    worst = max(
        lat[0] / ttft_p99_s if ttft_p99_s else 0.0,
        lat[1] / tpot_p99_s if tpot_p99_s else 0.0,
    )
    return math.log(worst) if worst > 0 else -math.inf


def _break(shape: ReplicaShape, ttft_p99_s: float | None, tpot_p99_s: float | None) -> float:
    """The break point searched afresh, start to end, shared with no other plan."""
    return BreakPoint(shape, ttft_p99_s, tpot_p99_s).value()
