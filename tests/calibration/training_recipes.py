"""Predicting training_recipes.yaml: published recipe peaks, sent as a user would ask (issue 45).

Each row's ``request`` is a piece of the public contract (engine.workload.Workload);
the engine fills in everything else with its defaults (engine.defaults.train_setup),
so the error measures the defaults. The counter correction is the one of
tests/calibration/training.py: ``reserved`` leaves out the CUDA context, ``device``
keeps everything.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from gpu_advisor.engine.defaults import train_setup
from gpu_advisor.engine.memory import training_memory
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload

ROWS: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "training_recipes.yaml").read_text())
UNIT_BYTES = {"GiB": float(GiB), "GB": 1e9}
COUNTERS = frozenset({"reserved", "device", "active", "allocated"})
KEYS = frozenset(
    {"id", "source", "model", "gpu", "value", "unit", "counter", "split", "request", "notes", "estimate"}
)


def validate(row: dict[str, Any]) -> Workload:
    """The row's request as the contract reads it; a misspelt key or value fails here."""
    unknown = set(row) - KEYS
    if unknown or row["counter"] not in COUNTERS or row["split"] not in ("fit", "holdout"):
        what = f"keys {sorted(unknown)}, counter {row['counter']!r}, split {row['split']!r}"
        raise ValueError(f"{row['id']}: {what}")
    if not str(row["source"]).startswith("https://"):
        raise ValueError(f"{row['id']}: source {row['source']!r} is not a URL")
    return Workload(task="train", model=row["model"], **row["request"])


def rows(split: str | None = None, estimates: bool = False) -> list[dict[str, Any]]:
    """Measured rows (or, with ``estimates``, the rules of thumb) of one split."""
    picked = [r for r in ROWS if bool(r.get("estimate")) == estimates]
    return [r for r in picked if split is None or r["split"] == split]


def recipe_of(row: dict[str, Any]) -> str:
    return str(row["request"].get("recipe", "none"))


def measured_gib(row: dict[str, Any]) -> float:
    return float(row["value"]) * UNIT_BYTES[row["unit"]] / GiB


def predict_gib(row: dict[str, Any], kb: Knowledge) -> float:
    """The engine's peak for the row's request, as the row's counter would read it."""
    w = validate(row)
    gpu = kb.gpus[row["gpu"]] if row.get("gpu") else None
    setup, _ = train_setup(w, kb.models[row["model"]], gpu, w.gpus or 1, kb.training_recipes)
    mem = training_memory(kb.models[row["model"]], setup)
    unseen = 0.0 if row["counter"] == "device" else mem.notes["cuda_context_bytes"]
    if row["counter"] in ("active", "allocated"):
        unseen += mem.notes["fragmentation_bytes"]
    return (mem.total - unseen) / GiB


def relative_error(row: dict[str, Any], kb: Knowledge) -> float:
    return predict_gib(row, kb) / measured_gib(row) - 1.0


def summary(errors: list[float]) -> tuple[float, float]:
    """Median |error| and the share within ±10 %."""
    absolute = [abs(e) for e in errors]
    return statistics.median(absolute), sum(e <= 0.10 for e in absolute) / len(absolute)


def per_recipe(kb: Knowledge, split: str, estimates: bool = False) -> dict[str, list[float]]:
    """Signed errors of one split grouped by recipe, with ``all`` holding every row."""
    out: dict[str, list[float]] = defaultdict(list)
    for row in rows(split, estimates):
        err = relative_error(row, kb)
        out[recipe_of(row)].append(err)
        out["all"].append(err)
    return dict(out)
