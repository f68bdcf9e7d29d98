"""The throughput model against public measurements (tests/calibration/measurements.yaml).

Each entry there cites its source. Every serving measurement whose card and model we
know is predicted here and must land within 25 %; the median error must stay under
10 %. A few entries are excluded on purpose, each with its reason below — they are
kept in the file so the exclusion stays visible.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.interconnect import tp_decode_comm
from engine.specs import Knowledge
from engine.throughput import prefill_s, serving_point

MEASUREMENTS = yaml.safe_load((Path(__file__).parent / "calibration" / "measurements.yaml").read_text())
TOLERANCE = 0.25

EXCLUDED = {
    "llamacpp_h100_sxm_llama2_7b_q4_k_m_cli_lowconf": "single user report, no build or flags given",
    "llamacpp_a100_80g_pcie_llama2_7b_f16_prompt494": "Dec-2023 build, before the Ampere prefill kernels",
    "llamacpp_rtx4090x2_llama2_70b_q4_0_tg1024_main": "llama.cpp splits layers; we model tensor parallel",
}
# Measurements taken with a runtime we model under another name.
RUNTIME_ALIASES = {"other_pytorch_eager": "transformers", "other_autoawq": "vllm"}
MODEL_ALIASES = {"llama-3.3-70b": "llama-3.1-70b"}  # same architecture, new weights
SERVING_KINDS = ("decode_tokens_per_s", "ttft_ms", "prefill_tokens_per_s", "batched_output_tokens_per_s")


def _runtime(entry: dict[str, Any]) -> str:
    return next(
        (rt for prefix, rt in RUNTIME_ALIASES.items() if entry["id"].startswith(prefix)), entry["runtime"]
    )


def _usable(entry: dict[str, Any], kb: Knowledge) -> bool:
    model = MODEL_ALIASES.get(entry["model"], entry["model"])
    return (
        entry["kind"] in SERVING_KINDS
        and entry["id"] not in EXCLUDED
        and _runtime(entry) in kb.runtimes
        and entry.get("gpu") in kb.gpus
        and model in kb.models
        and not (entry["kind"] == "batched_output_tokens_per_s" and entry.get("batch") is None)
    )


def predict(entry: dict[str, Any], kb: Knowledge) -> float:
    gpu = kb.gpus[entry["gpu"]]
    arch = kb.models[MODEL_ALIASES.get(entry["model"], entry["model"])]
    rt = kb.runtimes[_runtime(entry)]
    fmt, tp, batch = entry["weight_dtype"], entry.get("gpu_count") or 1, entry.get("batch") or 1
    prompt, output = entry.get("prompt_tokens") or 1, entry.get("output_tokens") or 128
    comm = tp_decode_comm(arch.hidden_size, arch.layers, tp, gpu, "nvswitch" if gpu.nvlink_gbs else "pcie")
    kind = entry["kind"]
    if kind == "ttft_ms":
        return prefill_s(arch, gpu, rt, fmt, prompt, tp) * 1e3
    if kind == "prefill_tokens_per_s":
        return prompt / (prefill_s(arch, gpu, rt, fmt, prompt, tp) - rt.step_overhead_ms / 1e3)
    point = serving_point(arch, gpu, rt, fmt, "fp16", batch, prompt, output, tp, comm)
    if kind == "decode_tokens_per_s":
        return point.tokens_per_s_per_seq
    return point.requests_per_s * output


def usable_ids(kb: Knowledge) -> list[str]:
    return [e["id"] for e in MEASUREMENTS if _usable(e, kb)]


def test_enough_public_measurements_are_checked(kb: Knowledge) -> None:
    assert len(usable_ids(kb)) >= 25


@pytest.mark.parametrize(
    "entry", [e for e in MEASUREMENTS if e["kind"] in SERVING_KINDS], ids=lambda e: e["id"]
)
def test_prediction_lands_within_tolerance_of_the_measurement(kb: Knowledge, entry: dict[str, Any]) -> None:
    if not _usable(entry, kb):
        pytest.skip(EXCLUDED.get(entry["id"], "card, model or runtime not in the knowledge base"))
    predicted = predict(entry, kb)
    assert predicted == pytest.approx(entry["value"], rel=TOLERANCE), entry["source"]


def test_median_error_across_measurements_is_under_ten_percent(kb: Knowledge) -> None:
    errors = [abs(predict(e, kb) / e["value"] - 1) for e in MEASUREMENTS if _usable(e, kb)]
    assert statistics.median(errors) < 0.10


def test_nccl_allreduce_bus_bandwidth_matches_nccl_tests(kb: Knowledge) -> None:
    from engine.interconnect import link_gbs

    measured = {e["gpu"]: e["value"] for e in MEASUREMENTS if e["kind"] == "allreduce_busbw_gbs"}
    # nccl-tests all_reduce_perf busbw on 8-GPU NVSwitch nodes (sources in measurements.yaml).
    assert link_gbs(kb.gpus["a100-80g-sxm"], "nvswitch") == pytest.approx(measured["a100-80g-sxm"], rel=0.1)
    assert link_gbs(kb.gpus["h100-sxm"], "nvswitch") == pytest.approx(measured["h100-sxm"], rel=0.1)
