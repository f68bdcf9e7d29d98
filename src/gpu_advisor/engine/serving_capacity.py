"""Replicas for a request rate with tail latency in mind, and what one replica does under that load.

``serving_search`` settles a layout (card, format, TP, the batch its memory holds);
this module turns the layout into the queue ``engine.queueing`` models and sizes the
replica count for the user's QPS so that

* each replica runs at no more than ``utilisation_target`` (default 70 %) of the rate
  it can sustain — Poisson bursts queue steeply past that (Erlang C), and
* the p99 TTFT and TPOT targets, when given, hold: a replica takes at most its
  break-point rate, the largest λ at which both p99 figures stay under target.

Prompts ride in the decode steps (chunked prefill, ``engine.throughput``): a request's
prompt costs the replica ``ReplicaModel.prompt_share_s`` — what its chunks add to a
saturated step beyond the decode work, little while decode is bandwidth-bound with
compute to spare, the prompt's whole compute once the step is compute-bound — and its
own first token waits for its chunks' compute (``first_token_s``). A prompt longer than
the runtime's token budget (``max_num_batched_tokens``) takes a step per chunk.

Prefix caching (vLLM's automatic prefix caching, SGLang's RadixAttention): a shared
system prompt of ``shared_prefix_tokens`` is prefilled once and reused, so each request
pays for the rest of its prompt only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.queueing import (
    BreakPoint,
    Latency,
    ReplicaShape,
    break_point,
    capacity_qps,
    closed_loop,
    latency,
    occupancy_and_p99,
)
from gpu_advisor.engine.specs import GpuSpec, ModelArch, RuntimeProfile
from gpu_advisor.engine.throughput import ReplicaModel

MAX_REPLICAS = 256


class Tails:
    """One replica's latency at its share of the traffic (``queueing.latency``), worked out lazily.

    Sizing every layout needs the mean batch decoding (the batch a candidate runs) and,
    under p99 targets, the two p99 figures (whether it meets them); the medians and, with
    no targets, the p99s are only shown, for the few candidates a plan turns into options.
    ``p99`` holds (TTFT, TPOT) p99 seconds when sizing needed them; ``latency`` is
    ``queueing.latency`` at the same rate, computed on first use, the same floats.
    """

    __slots__ = ("_latency", "_pending", "_rate", "_shape", "p99")

    def __init__(self, shape: ReplicaShape | None, rate: float, p99: tuple[float, float] | None) -> None:
        self._shape, self._rate, self.p99 = shape, rate, p99
        self._latency: Latency | None = None
        self._pending = shape is not None

    @classmethod
    def known(cls, lat: Latency | None) -> Tails:
        """Latency already worked out (or none: an unstable queue, a closed group without targets)."""
        tails = cls(None, lat.qps if lat else 0.0, (lat.ttft_p99_s, lat.tpot_p99_s) if lat else None)
        tails._latency = lat
        return tails

    @property
    def pending(self) -> bool:
        """Whether the medians are still to be worked out (``latency``)."""
        return self._pending

    def latency(self) -> Latency | None:
        if self._pending:
            assert self._shape is not None
            self._latency, self._pending = latency(self._shape, self._rate), False
        return self._latency


@dataclass(frozen=True, slots=True)
class Load:
    """Replicas, the batch each runs, its latency at its share of the traffic, its break-point rate.

    ``point`` is one replica's break point, searched only as far as the replica count
    needed (``queueing.break_point``); ``break_qps`` finishes the search. ``tails`` is its
    latency, the medians worked out when shown (``Tails``).
    """

    replicas: int
    batch: int
    tails: Tails
    point: BreakPoint
    meets_p99: bool

    @property
    def break_qps(self) -> float:
        """The rate one replica takes before a p99 target breaks (its capacity without targets)."""
        return self.point.value()

    @property
    def latency(self) -> Latency | None:
        """Latency at each replica's share of the traffic; None for a closed group without targets
        or an unstable queue."""
        return self.tails.latency()


def replica_shape(
    model: ReplicaModel,
    s: ServeSetup,
    slots: int,
    place: tuple[ModelArch, GpuSpec, RuntimeProfile, str, int],
) -> ReplicaShape:
    """The queue one replica is: ``place`` is (model, card, runtime, weight format, TP degree)."""
    rt = place[2]
    fresh = (s.prompt_tokens - s.shared_prefix) / s.prompt_tokens  # share of the prompt not cached
    share = model.prompt_share_s(slots) * fresh
    floor = rt.prefill_floor_s(place[0])
    first = model.first_token_s(1) * fresh + floor
    chunks = max(1, math.ceil((s.prompt_tokens - s.shared_prefix) / rt.max_num_batched_tokens))
    return ReplicaShape(
        slots,
        share,
        _cached_steps(model),
        s.output_tokens,
        chunks,
        first_token_s=first,
        floor_s=floor,
        scheduler_steps=rt.scheduler_steps,
        prompt_share=lambda b: model.prompt_share_s(b) * fresh,
        step_model=model,  # step_s is model.step_s: break points shared across plans
    )


def _cached_steps(model: ReplicaModel) -> Callable[[int], float]:
    """``model.step_s`` memoised per batch: the queue asks for the same few batches thousands of times."""
    memo: dict[int, float] = {}

    def step(b: int) -> float:
        got = memo.get(b)
        if got is None:
            got = memo[b] = model.step_s(b)[0]
        return got

    return step


def size(shape: ReplicaShape, s: ServeSetup) -> Load | None:
    """Replicas for ``s.qps`` (or ``s.concurrency`` alone) and the latency each then sees."""
    targets = s.ttft_p99_s is not None or s.tpot_p99_s is not None
    brk = _break(shape, s)
    replicas = math.ceil(s.concurrency / shape.slots)
    if s.qps is not None:
        replicas = _replicas_for_rate(brk, s, capacity_qps(shape), replicas)
    if replicas > MAX_REPLICAS:
        return None
    if s.qps is None:  # a closed group of users: the rate is what they send
        if not targets:
            return Load(replicas, math.ceil(s.concurrency / replicas), Tails.known(None), brk, True)
        return _closed_group(shape, s, replicas, brk)
    rate = s.qps / replicas
    got = occupancy_and_p99(shape, rate, targets)  # ``latency``'s figures sizing reads, no medians
    if got is None:  # unstable at this rate: no latency at all, every slot busy
        return Load(replicas, shape.slots, Tails.known(None), brk, not targets)
    busy, p99 = math.ceil(got[0]), (got[1], got[2])
    batch = min(shape.slots, max(busy, math.ceil(s.concurrency / replicas)))
    tails = Tails(shape, rate, p99 if targets else None)
    return Load(replicas, batch, tails, brk, not targets or _holds_p99(p99, s))


def _replicas_for_rate(brk: BreakPoint, s: ServeSetup, cap: float, fewest: int) -> int:
    """Replicas for ``s.qps``: each at no more than the utilisation target nor its break point.

    The count is a step function of the break point that never rises with it, and the
    search's answer lies in its bracket (``BreakPoint.bounds``, or is 0.0 while
    ``may_be_zero``: a replica held to the utilisation target alone), so the search goes
    on only while the bracket's ends (and 0.0) give different counts: the count is then
    exactly the one the finished search gives, mostly after two evaluations of the queue.
    """
    assert s.qps is not None
    qps, most = s.qps, s.utilisation * cap

    def replicas(rate: float) -> int:
        per = min(most, rate) if rate > 0 else most
        return max(fewest, math.ceil(qps / per - 1e-9))

    while True:
        lo, hi = brk.bounds()
        count = replicas(lo)
        if brk.done or (count == replicas(hi) and not (brk.may_be_zero and count != replicas(0.0))):
            return count
        brk.refine()


GROUP_REPLICA_TRIES = 32  # replicas added, one at a time, before a group's p99 targets count as unmet


def _closed_group(shape: ReplicaShape, s: ServeSetup, replicas: int, brk: BreakPoint) -> Load:
    """A group of users with p99 targets ("10 个人用，首 token 1 秒内"): each replica's users send
    requests as fast as answers come back (``queueing.closed_loop``); that rate, as a Poisson
    stream, gives the tails the targets are held to. Replicas are added until they hold; when
    they never do, the first layout is reported with its latency and the targets unmet."""
    first: Load | None = None
    for more in range(min(GROUP_REPLICA_TRIES, MAX_REPLICAS - replicas + 1)):
        users = math.ceil(s.concurrency / (replicas + more))
        lat = latency(shape, closed_loop(shape, users).output_tokens_per_s / s.output_tokens)
        if _holds(lat, s):
            return Load(replicas + more, users, Tails.known(lat), brk, True)
        first = first or Load(replicas, users, Tails.known(lat), brk, False)
        if users == 1:
            break
    assert first is not None  # the loop runs at least once: replicas <= MAX_REPLICAS here
    return first


def _break(shape: ReplicaShape, s: ServeSetup) -> BreakPoint:
    """The largest rate one replica takes: under the p99 targets when given, else its capacity."""
    if s.ttft_p99_s is None and s.tpot_p99_s is None:
        return BreakPoint.known(capacity_qps(shape))
    return break_point(shape, s.ttft_p99_s, s.tpot_p99_s)


def one_group(shape: ReplicaShape, s: ServeSetup, replicas: int = 1) -> dict[str, float]:
    """``extras``' latency figures when ``replicas`` copies share ``s.qps`` (``estimate``'s case).

    ``gpu_count`` GPUs at tensor parallel ``tp`` run gpu_count // tp replicas behind one
    load balancer, each taking an equal share of the traffic. The p50/p99 keys are
    absent when the share is past a replica's capacity: the queue then grows without
    bound and no quantile exists; ``break_qps`` (all replicas) says where it breaks.
    """
    assert s.qps is not None
    load = Load(replicas, shape.slots, Tails.known(latency(shape, s.qps / replicas)), _break(shape, s), True)
    out = extras(load, s, 0.0)
    keep = {k: v for k, v in out.items() if k == "break_qps" or k.startswith(("ttft_ms", "tpot_ms"))}
    return keep | {"replicas": float(replicas)}


def _holds(lat: Latency | None, s: ServeSetup) -> bool:
    return lat is not None and _holds_p99((lat.ttft_p99_s, lat.tpot_p99_s), s)


def _holds_p99(p99: tuple[float, float], s: ServeSetup) -> bool:
    """Whether (TTFT, TPOT) p99 seconds meet ``s``'s p99 targets."""
    ttft_ok = s.ttft_p99_s is None or p99[0] <= s.ttft_p99_s
    return ttft_ok and (s.tpot_p99_s is None or p99[1] <= s.tpot_p99_s)


def extras(load: Load, s: ServeSetup, aggregate_tokens_per_s: float) -> dict[str, float]:
    """Figures an option reports under load (milliseconds, requests/s, output tokens/s)."""
    return break_extras(load) | under_load(load, s, aggregate_tokens_per_s) | _quantiles(load.latency)


def break_extras(load: Load) -> dict[str, float]:
    """``extras``' break point of all the replicas together: the search run to its end."""
    return {"break_qps": load.break_qps * load.replicas}


def deferred_extras(load: Load) -> dict[str, float]:
    """What ``under_load`` leaves out (the break point, the latency figures not yet worked out)."""
    return break_extras(load) | _quantiles(load.latency)


def settled(load: Load) -> bool:
    """Whether ``under_load`` and ``break_extras`` together are all of ``extras`` (nothing deferred)."""
    return load.point.done and not load.tails.pending


def under_load(load: Load, s: ServeSetup, aggregate_tokens_per_s: float) -> dict[str, float]:
    """``extras`` but the break point, and the latency figures sizing did not need."""
    out: dict[str, float] = {}
    if s.qps is not None:
        out["output_tokens_per_s"] = s.qps * s.output_tokens
    else:
        out["output_tokens_per_s"] = aggregate_tokens_per_s
    out["tokens_per_s_replica_under_load"] = out["output_tokens_per_s"] / load.replicas
    if not load.tails.pending:
        out |= _quantiles(load.latency)
    elif load.tails.p99 is not None:  # held to p99 targets: a plan's checks read every option's tails
        out |= {"ttft_ms_p99": load.tails.p99[0] * 1e3, "tpot_ms_p99": load.tails.p99[1] * 1e3}
    return out


def _quantiles(lat: Latency | None) -> dict[str, float]:
    if lat is None:
        return {}
    return {
        "ttft_ms_p50": lat.ttft_p50_s * 1e3,
        "ttft_ms_p99": lat.ttft_p99_s * 1e3,
        "tpot_ms_p50": lat.tpot_p50_s * 1e3,
        "tpot_ms_p99": lat.tpot_p99_s * 1e3,
    }


def confidence(rt: RuntimeProfile, gpu: GpuSpec, arch: ModelArch) -> dict[str, float]:
    """How sure figures under load are: the ± band (percent) and whether the card was calibrated.

    Narrower on a card this runtime's serving coefficients were fitted on
    (``RuntimeProfile.calibrated_cards``), wider on any other, and at least
    ``moe_uncertainty_pct`` for a mixture-of-experts model.
    """
    calibrated = gpu.id in rt.calibrated_cards
    band = rt.calibrated_uncertainty_pct if calibrated else rt.uncalibrated_uncertainty_pct
    out = {"uncertainty_pct": band, "calibrated_card": 1.0 if calibrated else 0.0}
    if arch.is_moe and rt.moe_uncertainty_pct > band:  # held-out MoE runs fall wider than dense ones
        out |= {"uncertainty_pct": rt.moe_uncertainty_pct, "moe_band": 1.0}
    return out
