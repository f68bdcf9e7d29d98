"""Predicting the training peak-memory rows of measurements.yaml (issue 29).

A row is predicted when it carries a ``training`` mapping: the exact recipe settings
its source states (method, precision, optimizer, batch, sequence length, activation
checkpointing, loss implementation, LoRA rank and targets, sharding). The mapping is
validated here, so a typo in the YAML fails loudly instead of silently predicting the
defaults. ``counter`` says what the source read:
- ``active``/``allocated``: PyTorch's caching-allocator peaks, which never see the CUDA
  context nor the allocator's cached-but-free blocks, so the engine's
  ``framework_overhead`` is left out of the prediction;
- ``reserved``: the allocator's peak reservation — fragmentation included, context not;
- ``device``: what nvidia-smi shows, everything included.
Rows marked ``bound: upper`` are "fits in" claims, not peaks; they are checked as bounds
and never enter a median.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor.engine.memory import TrainSetup, training_memory
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB
from tests.calibration.serving import MEASUREMENTS

COUNTERS = frozenset({"active", "allocated", "reserved", "device"})
CHECKPOINTING = {"none": False, "full": True, "selective": False}
LOSSES = frozenset({"standard", "chunked", "fused"})
FIELDS: dict[str, type | tuple[type, ...]] = {
    "method": str,
    "master_weights": bool,
    "optimizer": str,
    "optimizer_in_backward": bool,
    "batch": int,
    "seq_len": int,
    "activation_checkpointing": str,
    "activation_offloading": bool,
    "loss": str,
    "lora_rank": int,
    "lora_targets": str,
    "shard_gpus": int,
    "compile": bool,
    "counter": str,
}
REQUIRED = frozenset({"method", "batch", "seq_len", "activation_checkpointing", "loss", "counter"})
UNIT_BYTES = {"GiB": float(GiB), "GB": 1e9}


def validate(row: dict[str, Any]) -> dict[str, Any]:
    """The row's ``training`` mapping, after checking every key, type and enumerated value."""
    t = row["training"]
    unknown = set(t) - set(FIELDS)
    missing = REQUIRED - set(t)
    if unknown or missing:
        raise ValueError(f"{row['id']}: unknown {sorted(unknown)}, missing {sorted(missing)}")
    for key, value in t.items():
        if not isinstance(value, FIELDS[key]):
            raise ValueError(f"{row['id']}: {key}={value!r} is not {FIELDS[key]}")
    if t["counter"] not in COUNTERS or t["loss"] not in LOSSES:
        raise ValueError(f"{row['id']}: counter {t['counter']!r} or loss {t['loss']!r} unknown")
    if t["activation_checkpointing"] not in CHECKPOINTING:
        raise ValueError(f"{row['id']}: activation_checkpointing {t['activation_checkpointing']!r}")
    if row.get("split") not in ("fit", "holdout") or row["unit"] not in UNIT_BYTES:
        raise ValueError(f"{row['id']}: split {row.get('split')!r} or unit {row['unit']!r}")
    return dict(t)


def training_rows(split: str | None = None, bounds: bool = False) -> list[dict[str, Any]]:
    """Rows with a ``training`` mapping: peaks (``bounds`` False) or upper bounds, of one split."""
    rows = [r for r in MEASUREMENTS if r["kind"] == "peak_memory_gib" and "training" in r]
    rows = [r for r in rows if (r.get("bound") == "upper") == bounds]
    return [r for r in rows if split is None or r.get("split") == split]


def setup_of(row: dict[str, Any]) -> TrainSetup:
    t = validate(row)
    shard = t.get("shard_gpus", 1)
    return TrainSetup(
        method=t["method"],
        weight_dtype="nf4" if t["method"] == "qlora" else "bf16",
        optimizer=t.get("optimizer", "adamw"),
        batch_size=t["batch"],
        seq_len=t["seq_len"],
        gradient_checkpointing=CHECKPOINTING[t["activation_checkpointing"]],
        zero_stage=3 if shard > 1 else 0,
        gpus=shard,
        lora_rank=t.get("lora_rank", 16),
        fused_ce=t["loss"] == "fused",
        chunked_ce=t["loss"] == "chunked",
        master_weights=t.get("master_weights", True),
        optimizer_in_backward=t.get("optimizer_in_backward", False),
        activation_offloading=t.get("activation_offloading", False),
        selective_checkpointing=t["activation_checkpointing"] == "selective",
        lora_targets=t.get("lora_targets", "all_linear"),
    )


def measured_gib(row: dict[str, Any]) -> float:
    return float(row["value"]) * UNIT_BYTES[row["unit"]] / GiB


def predict_gib(row: dict[str, Any], kb: Knowledge) -> float:
    """The engine's peak for the row's recipe, as the row's counter would read it."""
    mem = training_memory(kb.models[row["model"]], setup_of(row))
    counter = row["training"]["counter"]
    unseen = 0.0 if counter == "device" else mem.notes["cuda_context_bytes"]
    if counter in ("active", "allocated"):
        unseen += mem.notes["fragmentation_bytes"]
    return (mem.total - unseen) / GiB


def relative_error(row: dict[str, Any], kb: Knowledge) -> float:
    return predict_gib(row, kb) / measured_gib(row) - 1.0
