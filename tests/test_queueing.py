"""engine.queueing held to a discrete-event simulation of a continuously batching replica.

The simulation is the scheduler the module models (vLLM's, Kwon et al. 2023): Poisson
arrivals, at most ``slots`` sequences decoding, a waiting prompt prefilled ahead of the
next decode step (prefills stall the batch), each step of t(n) seconds giving every
running sequence one token; a multi-step runtime runs ``scheduler_steps`` steps between
two admissions. Seeds are fixed, so every figure below is reproducible.
Tolerances, at the utilisations plans are sized for (≤ 0.7): TTFT p50 within 15 %,
TTFT p99 within 30 % (output lengths geometric around the mean, the case the engine
plans for); TPOT p50 within 10 % and p99 within 30 % (answers of the stated length).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import replace

import pytest

from gpu_advisor.engine.queueing import (
    ReplicaShape,
    break_qps,
    capacity_qps,
    closed_loop,
    erlang_c,
    latency,
    poisson_quantile,
)

# Three replicas: a 7B on a datacenter card (64 slots, 40 ms prefill, ~15 ms steps),
# a memory-starved one (8 slots), and a RAG replica whose 0.6 s prompts dominate.
SHAPES = {
    "7b_datacenter": ReplicaShape(64, 0.04, lambda n: 0.015 + 0.00015 * n, 200),
    "eight_slots": ReplicaShape(8, 0.08, lambda n: 0.03 + 0.001 * n, 128),
    "long_prompts": ReplicaShape(32, 0.6, lambda n: 0.02 + 0.0006 * n, 256),
}


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def simulate(shape: ReplicaShape, qps: float, n: int, seed: int, fixed: bool) -> tuple[float, ...]:
    """(TTFT p50, p99, TPOT p50, p99) in seconds over ``n`` requests, the first 10 % dropped as warm-up."""
    rng = random.Random(seed)
    arrivals, clock = [], 0.0
    for _ in range(n):
        clock += rng.expovariate(qps)
        arrivals.append(clock)
    mean = shape.output_tokens
    outs = [mean if fixed else 1 + int(rng.expovariate(1.0 / (mean - 0.5))) for _ in range(n)]
    ttft, first, tpot = [0.0] * n, [0.0] * n, []
    waiting: deque[int] = deque()
    running: list[list[int]] = []
    t, i, done = 0.0, 0, 0
    while done < n:
        while i < n and arrivals[i] <= t:
            waiting.append(i)
            i += 1
        if not running and not waiting:
            t = arrivals[i]
        elif waiting and len(running) < shape.slots:
            r = waiting.popleft()
            t += shape.prefill_s  # the prefill yields the first token
            first[r], ttft[r] = t, t - arrivals[r]
            if outs[r] == 1:
                done += 1
            else:
                running.append([outs[r] - 1, r])
        else:
            for _ in range(shape.scheduler_steps):  # no prompt is admitted inside a pass
                t += shape.step_s(len(running))
                for seq in running:
                    seq[0] -= 1
                    if seq[0] == 0:
                        done += 1
                        tpot.append((t - first[seq[1]]) / (outs[seq[1]] - 1))
                running = [s for s in running if s[0] > 0]
                if not running:
                    break
    ttft = ttft[n // 10 :]
    return _quantile(ttft, 0.5), _quantile(ttft, 0.99), _quantile(tpot, 0.5), _quantile(tpot, 0.99)


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("utilisation", [0.3, 0.7])
def test_ttft_quantiles_match_simulation_with_varying_answer_lengths(name: str, utilisation: float) -> None:
    shape = SHAPES[name]
    qps = utilisation * capacity_qps(shape)
    lat = latency(shape, qps)
    assert lat is not None
    p50, p99, _, _ = simulate(shape, qps, 20_000, seed=7, fixed=False)
    assert lat.ttft_p50_s == pytest.approx(p50, rel=0.15)
    assert lat.ttft_p99_s == pytest.approx(p99, rel=0.30)


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("utilisation", [0.3, 0.7])
def test_tpot_quantiles_match_simulation_at_the_stated_answer_length(name: str, utilisation: float) -> None:
    shape = SHAPES[name]
    qps = utilisation * capacity_qps(shape)
    lat = latency(shape, qps)
    assert lat is not None
    _, _, p50, p99 = simulate(shape, qps, 12_000, seed=11, fixed=True)
    assert lat.tpot_p50_s == pytest.approx(p50, rel=0.10)
    assert lat.tpot_p99_s == pytest.approx(p99, rel=0.30)


@pytest.mark.parametrize("utilisation", [0.3, 0.7])
def test_multi_step_passes_make_a_prompt_wait_out_the_pass_in_progress(utilisation: float) -> None:
    shape = replace(SHAPES["7b_datacenter"], scheduler_steps=10)  # vLLM 0.6 --num-scheduler-steps 10
    qps = utilisation * capacity_qps(shape)
    lat = latency(shape, qps)
    assert lat is not None
    p50, _, _, _ = simulate(shape, qps, 20_000, seed=7, fixed=False)
    assert lat.ttft_p50_s == pytest.approx(p50, rel=0.15)


def test_latency_is_none_at_or_past_capacity() -> None:
    shape = SHAPES["7b_datacenter"]
    assert latency(shape, capacity_qps(shape)) is None
    assert latency(shape, 0.99 * capacity_qps(shape)) is not None


def test_p99_ttft_grows_with_load() -> None:
    shape = SHAPES["eight_slots"]
    cap = capacity_qps(shape)
    p99s = [lat.ttft_p99_s for u in (0.2, 0.5, 0.8) if (lat := latency(shape, u * cap))]
    assert p99s == sorted(p99s) and p99s[-1] > 3 * p99s[0]


def test_break_qps_is_where_the_p99_target_starts_failing() -> None:
    shape = SHAPES["eight_slots"]
    target = 1.0  # 1 s p99 TTFT
    qps = break_qps(shape, target, None)
    assert 0 < qps < capacity_qps(shape)
    below, above = latency(shape, qps * 0.98), latency(shape, qps * 1.02)
    assert below is not None and below.ttft_p99_s <= target
    assert above is None or above.ttft_p99_s > target


def test_break_qps_is_zero_when_a_lone_request_misses_the_target() -> None:
    assert break_qps(SHAPES["long_prompts"], 0.5, None) == 0.0  # a 0.6 s prefill never makes 0.5 s


def test_erlang_c_matches_the_textbook_two_server_case() -> None:
    # M/M/2 at a = 1 (ρ = 0.5): C = a²/2 / ((1 − ρ)(1 + a) + a²/2) = 0.5 / 1.5 = 1/3.
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)


def test_poisson_quantile_of_mean_ten_at_p99_is_eighteen() -> None:
    # P(Poisson(10) ≤ 17) = 0.9857, P(≤ 18) = 0.9928 (standard Poisson tables).
    assert poisson_quantile(10.0, 0.99) == 18


def test_a_passes_fixed_floor_is_paid_by_each_prompt_but_not_queued_behind() -> None:
    """Prompts batched into one prefill pass share its launches: 32 users wait behind each
    other's compute, not 32 copies of the pass's floor (engine.specs.RuntimeProfile.prefill_floor_s)."""
    step = SHAPES["7b_datacenter"].step_s
    as_work = ReplicaShape(64, 0.01, step, 200, first_token_s=0.1)
    with_floor = ReplicaShape(64, 0.01, step, 200, first_token_s=0.1, floor_s=0.08)
    alone = closed_loop(with_floor, 1).ttft_s
    assert alone == pytest.approx(closed_loop(as_work, 1).ttft_s, rel=0.05)  # one user: the same latency
    assert closed_loop(with_floor, 32).ttft_s < closed_loop(as_work, 32).ttft_s
    assert closed_loop(with_floor, 32).ttft_s >= 0.1
