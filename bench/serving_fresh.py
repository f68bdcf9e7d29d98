"""The engine on the fresh held-out serving runs of issue 45 (tests/calibration/fresh_holdout.yaml).

Those rows come from sources no calibration file cites and nothing is fitted on them, so
their error is the estimate of how the serving figures generalise. Each row runs through
``bench.serving_compare.predict`` (``estimate``'s path) and its errors are grouped by metric
and by model family (dense or MoE), with two groups issue 45 names on their own:

- ``moe_single_stream_tpot``: time per output token of an MoE at one user, the decode step
  at batch 1 that per-layer latency (launches, collectives, routing) bounds;
- ``ttft_one_user``: time to the first token at one user, dense and MoE together;
- ``max_and_target/<family>``: maximum throughput and throughput at a latency target together,
  the pair issue 45's criterion (≤ 15 % median, ≥ 70 % within ±25 %) is stated on;
- ``ttft_one_user/full_prefill``: the one-user TTFT rows a full prompt pass could have produced.
  A row whose TTFT is shorter than the prompt's pass at the card's datasheet limits (its FLOPs
  at the dense tensor peak, or reading the weights its tokens route to at the datasheet
  bandwidth, whichever is longer: ``prefill_limit_s``) did not compute its whole prompt — a
  prefix-cache hit: tt-inference-server warms every (ISL, OSL) pair with the same seeded
  random prompts before its sweep (benchmarking/run_benchmarks.py, ``capture_traces``). Those
  rows stay in ``ttft_one_user`` (its first figure is on them) and are left out here.

``FIRST_FIGURE`` is the score of the engine before any issue-45 change, recorded once when
the rows were collected; it stays the honest figure. Later scores are printed beside it,
and any later change that was made after looking at these rows is tuned, not held out.

Run ``python -m bench.serving_fresh [--rows]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from bench.serving_compare import WITHIN, errors, predict, summary
from gpu_advisor import knowledge
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.memory import expert_weight_bytes, serving_weight_bytes
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.throughput import expert_fraction, prompt_attention_flops

FRESH = Path(__file__).resolve().parent.parent / "tests" / "calibration" / "fresh_holdout.yaml"

# (median |error|, share within ±25 %, rows) per group, engine at b23e86a (7 Dec 2026), before
# any issue-45 change; recorded once, never re-recorded.
FIRST_FIGURE: dict[str, tuple[float, float, int]] = {
    "closed_throughput/dense": (0.551, 0.38, 8),
    "closed_throughput/moe": (0.356, 0.12, 8),
    "max_and_target/dense": (0.125, 0.70, 10),
    "max_throughput/dense": (0.096, 0.80, 5),
    "moe_single_stream_tpot": (0.304, 0.00, 6),
    "throughput_at_p99/dense": (0.154, 0.60, 5),
    "tpot/dense": (0.440, 0.38, 8),
    "tpot/moe": (0.327, 0.00, 8),
    "tpot_at_rate/dense": (0.272, 0.00, 1),
    "tpot_at_rate_p99/dense": (0.328, 0.00, 1),
    "ttft/dense": (1.642, 0.00, 8),
    "ttft/moe": (0.667, 0.25, 8),
    "ttft_at_rate/dense": (0.165, 1.00, 1),
    "ttft_at_rate_p99/dense": (0.565, 0.00, 1),
    "ttft_one_user": (1.228, 0.14, 14),
}


def rows() -> list[dict[str, Any]]:
    return list(yaml.safe_load(FRESH.read_text("utf-8")))


def family(row: dict[str, Any], kb: Knowledge) -> str:
    return "moe" if kb.models[row["model"]].is_moe else "dense"


def prefill_limit_s(row: dict[str, Any], kb: Knowledge) -> float:
    """The shortest a full pass over the row's prompt can take on its cards (per GPU of the TP group).

    2·(active parameters) FLOPs a token plus causal attention at the format's dense tensor
    peak, against the weights the prompt's tokens touch (every dense weight, the routed
    experts ``expert_fraction`` of them) at the datasheet bandwidth: no runtime reaches either.
    """
    arch, gpu = kb.models[row["model"]], kb.gpus[row["gpu"]]
    prompt, tp, fmt = int(row["prompt_tokens"]), int(row["tensor_parallel"]), str(row["weight_dtype"])
    flops = (2.0 * arch.active_b * 1e9 * prompt + prompt_attention_flops(arch, prompt)) / tp
    compute = flops / (gpu.tflops(FORMATS[fmt].compute) * 1e12)
    experts = expert_weight_bytes(arch, fmt) / tp
    touched = serving_weight_bytes(arch, fmt, tp) - experts * (1.0 - expert_fraction(arch, prompt))
    return max(compute, touched / (gpu.bandwidth_gbs * 1e9))


def score(kb: Knowledge) -> dict[str, list[float]]:
    """Signed errors (engine / measured − 1) per group; an inexpressible row counts under
    ``inexpressible`` with an error of 1.0 (the group never hides it)."""
    groups: dict[str, list[float]] = {}
    for row in rows():
        got = predict(row, kb)
        if got is None:
            groups.setdefault("inexpressible", []).append(1.0)
            continue
        fam = family(row, kb)
        for metric, err in errors(row, got).items():
            groups.setdefault(f"{metric}/{fam}", []).append(err)
            if metric in ("max_throughput", "throughput_at_p99"):
                groups.setdefault(f"max_and_target/{fam}", []).append(err)
            if row.get("concurrency") == 1 and metric == "tpot" and fam == "moe":
                groups.setdefault("moe_single_stream_tpot", []).append(err)
            if row.get("concurrency") == 1 and metric == "ttft":
                groups.setdefault("ttft_one_user", []).append(err)
                if row["ttft_ms"] / 1e3 >= prefill_limit_s(row, kb):
                    groups.setdefault("ttft_one_user/full_prefill", []).append(err)
    return groups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="store_true", help="print every row's errors")
    args = parser.parse_args(argv)
    kb = knowledge.load()
    if args.rows:
        for row in rows():
            got = predict(row, kb)
            shown = " ".join(f"{k}={v:+.0%}" for k, v in errors(row, got).items()) if got else "inexpressible"
            print(f"{row['id']:58} {shown}")
    print(f"{'group':26} {'rows':>4} {'median':>8} {'±25%':>6}   first figure")
    for name, errs in sorted(score(kb).items()):
        med, share = summary(errs, WITHIN)
        first = FIRST_FIGURE.get(name)
        was = f"{first[0]:8.1%} {first[1]:6.0%}" if first else "       —"
        print(f"{name:26} {len(errs):4d} {med:8.1%} {share:6.0%}   {was}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
