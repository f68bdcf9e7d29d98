"""Predicting the serving rows of measurements.yaml, and grouping their errors for the report.

Each row declares ``split: fit`` (used to fit knowledge/runtimes.yaml) or
``split: holdout`` (never used for fitting); a row without one is ``fit``. Errors are
grouped by runtime and card class (``<architecture>-<segment>``, the key
RuntimeProfile.card_classes uses), so a fit that is right on an RTX 4090 and 3× off on
an A100 shows up as two lines, not one average.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from gpu_advisor.engine.interconnect import tp_decode_comm
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.throughput import prefill_s, serving_point

MEASUREMENTS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "measurements.yaml").read_text())

EXCLUDED = {
    "llamacpp_h100_sxm_llama2_7b_q4_k_m_cli_lowconf": "single user report, no build or flags given",
}
# Measurements taken with a runtime we model under another name.
RUNTIME_ALIASES = {"other_pytorch_eager": "transformers", "other_autoawq": "vllm"}
MODEL_ALIASES = {"llama-3.3-70b": "llama-3.1-70b"}  # same architecture, new weights
SERVING_KINDS = ("decode_tokens_per_s", "ttft_ms", "prefill_tokens_per_s", "batched_output_tokens_per_s")
PREFILL_KINDS = ("ttft_ms", "prefill_tokens_per_s")


def runtime_of(entry: dict[str, Any]) -> str:
    return next(
        (rt for prefix, rt in RUNTIME_ALIASES.items() if entry["id"].startswith(prefix)), entry["runtime"]
    )


def split_of(entry: dict[str, Any]) -> str:
    return str(entry.get("split", "fit"))


def usable(entry: dict[str, Any], kb: Knowledge) -> bool:
    model = MODEL_ALIASES.get(entry["model"], entry["model"])
    return (
        entry["kind"] in SERVING_KINDS
        and entry["id"] not in EXCLUDED
        and runtime_of(entry) in kb.runtimes
        and entry.get("gpu") in kb.gpus
        and model in kb.models
        and not (entry["kind"] == "batched_output_tokens_per_s" and entry.get("batch") is None)
    )


def predict(entry: dict[str, Any], kb: Knowledge) -> float:
    gpu = kb.gpus[entry["gpu"]]
    arch = kb.models[MODEL_ALIASES.get(entry["model"], entry["model"])]
    rt = kb.runtimes[runtime_of(entry)]
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
    if entry.get("batching") == "static" or not rt.continuous_batching:
        # a static batch prefills all its prompts in one pass (one floor), then decodes them together
        step, floor = point.step_ms / 1e3, rt.prefill_floor_s(arch)
        prefill = batch * (prefill_s(arch, gpu, rt, fmt, prompt, tp) - floor) + floor
        return batch * output / (output * step + prefill)
    return _closed_loop(entry, kb, batch, (prompt, output))


def _closed_loop(entry: dict[str, Any], kb: Knowledge, users: int, lengths: tuple[int, int]) -> float:
    """A server driven by ``users`` concurrent clients (continuous batching, chunked prefill)."""
    from bench.serving_compare import predict as serve  # the same path bench/serving_compare.py runs

    row = {
        "gpu": entry["gpu"],
        "model": MODEL_ALIASES.get(entry["model"], entry["model"]),
        "runtime": runtime_of(entry),
        "tensor_parallel": entry.get("gpu_count") or 1,
        "gpu_count": entry.get("gpu_count") or 1,
        "weight_dtype": entry["weight_dtype"],
        "kv_dtype": "fp16",
        "prompt_tokens": lengths[0],
        "output_tokens": lengths[1],
        "concurrency": users,
    }
    got = serve(row, kb)
    assert got is not None
    return got.output_tokens_per_s


def card_class(entry: dict[str, Any], kb: Knowledge) -> str:
    gpu = kb.gpus[entry["gpu"]]
    return f"{gpu.architecture}-{gpu.segment}"


def phase(entry: dict[str, Any]) -> str:
    return "prefill" if entry["kind"] in PREFILL_KINDS else "decode"


def speed_ratio(entry: dict[str, Any], kb: Knowledge) -> float:
    """measured / predicted speed (TTFT is a time, so its ratio is inverted)."""
    ratio = entry["value"] / predict(entry, kb)
    return float(1.0 / ratio if entry["kind"] == "ttft_ms" else ratio)


def error_table(kb: Knowledge) -> list[tuple[str, str, str, str, int, float, float]]:
    """(runtime, card class, phase, split, rows, median |error|, max |error|) per group."""
    groups: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
    for e in MEASUREMENTS:
        if usable(e, kb):
            key = (runtime_of(e), card_class(e, kb), phase(e), split_of(e))
            groups[key].append(abs(predict(e, kb) / e["value"] - 1))
    return [(*k, len(v), statistics.median(v), max(v)) for k, v in sorted(groups.items())]


def implied_share(kb: Knowledge, runtime: str, klass: str, kind: str) -> float | None:
    """The prefill (or decode) share the ``fit`` rows of one runtime × card class imply.

    Speed is proportional to the share in the compute-bound (prefill) and bandwidth-bound
    (decode) regimes, so the share the data asks for is the current one times the
    geometric mean of measured/predicted over the fit rows — a least-squares fit in log
    space. ``None`` when the class has no fit rows.
    """
    rt = kb.runtimes[runtime]
    rows = [
        e
        for e in MEASUREMENTS
        if usable(e, kb)
        and split_of(e) == "fit"
        and runtime_of(e) == runtime
        and card_class(e, kb) == klass
        and phase(e) == kind
    ]
    if not rows:
        return None
    gpu = kb.gpus[rows[0]["gpu"]]
    current = rt.prefill_share(gpu) if kind == "prefill" else rt.decode_share(gpu)
    return current * math.exp(statistics.fmean(math.log(speed_ratio(e, kb)) for e in rows))
