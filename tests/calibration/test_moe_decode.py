"""Mixture-of-experts decode against public measurements, all held out of any fit.

The throughput constants are fitted on dense models only (tests/test_calibration.py);
the MoE rows in moe_measurements.yaml test the expert-read physics on data the fit
never saw, and the held-out error is printed (``pytest -s``).

Known gap, kept visible: DeepSeek-V3 on SGLang v0.4.1 (Dec 2024) ran ~3.8× below the
bandwidth roofline at batch 1: its step was bound by per-layer MoE routing and kernel
launches, which the roofline does not model. Those rows are held to "the engine is an
upper bound within 4.5×" until a MoE per-layer cost is calibrated on newer builds.
gpt-oss-120b on A100s (vLLM issue 22331, Aug 2025) is the same gap on another model and
card: 90 tok/s on one card, 77.5 on two — slower with more cards, so bound by per-layer
latency — where the engine says 198 and 321 (first figure, before any change). The
per-layer latency these rows imply ranges from ~45 µs (Qwen3-30B-A3B, A100) to ~250 µs
(gpt-oss, A100) and ~400 µs (DeepSeek-V3, Dec 2024): no one constant, so none is fitted.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_advisor.engine.interconnect import tp_decode_comm
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.throughput import serving_point

ROWS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "moe_measurements.yaml").read_text())
TOLERANCE = 0.30
LAUNCH_BOUND = {"deepseek-v3", "gpt-oss-120b"}  # the known gap above
MAX_ROOFLINE_GAP = 4.5


def predict(row: dict[str, Any], kb: Knowledge) -> float:
    arch, gpu, rt = kb.models[row["model"]], kb.gpus[row["gpu"]], kb.runtimes[row["runtime"]]
    tp = row["gpu_count"]
    comm = tp_decode_comm(arch.hidden_size, arch.layers, tp, gpu, "nvswitch" if gpu.nvlink_gbs else "pcie")
    point = serving_point(
        arch,
        gpu,
        rt,
        row["weight_dtype"],
        "fp16",
        row["batch"],
        row["prompt_tokens"],
        row["output_tokens"],
        tp,
        comm,
    )
    return point.tokens_per_s_per_seq


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_moe_decode_prediction_against_held_out_measurement(kb: Knowledge, row: dict[str, Any]) -> None:
    predicted = predict(row, kb)
    print(f"{row['id']}: predicted {predicted:.1f}, measured {row['value']} tok/s ({row['source']})")
    if row["model"] in LAUNCH_BOUND:
        assert row["value"] <= predicted <= MAX_ROOFLINE_GAP * row["value"], row["source"]
    else:
        assert predicted == pytest.approx(row["value"], rel=TOLERANCE), row["source"]


def test_held_out_moe_error_is_reported(kb: Knowledge) -> None:
    errors = {r["id"]: predict(r, kb) / r["value"] - 1 for r in ROWS}
    print("held-out MoE decode error:", {k: f"{v:+.0%}" for k, v in errors.items()})
    print(f"median |error| {statistics.median(abs(e) for e in errors.values()):.0%}")
    assert len(errors) >= 4
