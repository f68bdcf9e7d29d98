"""Coefficient searches for the serving-capacity layer, on the ``fit`` rows alone.

Each search grids a runtime's coefficients (knowledge/runtimes.yaml), runs the engine on
the published runs of ``knowledge/serving_measurements.yaml`` marked ``fit`` through
``bench.serving_compare.predict`` (the JSON contract's path), and keeps the values with
the lowest median |log error|. Held-out rows never enter a search. Run through
``python -m bench.serving_compare --fit RUNTIME`` (dense serving coefficients),
``--fit-moe RUNTIME`` (MoE shortfalls, then each card class's grouped-GEMM share) and
``--fit-ttft RUNTIME`` (the prefill floor).
"""

from __future__ import annotations

import itertools
import math
import statistics
from typing import Any

from bench.serving_compare import errors, predict, rows
from gpu_advisor.engine.specs import CardClassEfficiency, Knowledge, RuntimeProfile

GRID = {
    "decode_compute_efficiency": (0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85),
    "seq_layer_us": (0.1, 0.2, 0.3, 0.4, 0.6, 0.8),
    "kv_read_efficiency": (0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "overhead_gib": (1.5, 2.0, 4.0),
    "step_overhead_ms": (0.3, 0.8, 2.0, 3.0, 4.0),
}


def fit(kb: Knowledge, runtime: str) -> dict[str, float]:
    """Grid search of the runtime's serving coefficients on its ``fit`` rows (median |log error|)."""
    base = kb.runtimes[runtime]
    fit_rows = [r for r in rows() if r["split"] == "fit" and r["runtime"] == runtime]
    trials = (dict(zip(GRID, v, strict=True)) for v in itertools.product(*GRID.values()))
    score, best = min(
        ((_score(kb, fit_rows, base.model_copy(update=t)), t) for t in trials), key=lambda p: p[0]
    )
    print(f"{runtime}: median |log error| {score:.3f} on {len(fit_rows)} fit rows with {best}")
    return best


MOE_GRID = {
    "moe_compute_efficiency": (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0),
    "moe_pad_tokens": (0.0, 8.0, 16.0, 32.0, 64.0, 128.0),
    "moe_expert_us": (0.0, 2.0, 4.0, 8.0),
    "moe_half_width": (0.0, 1000.0, 2000.0, 4000.0, 6000.0, 8000.0, 12000.0, 16000.0),
}


def _score(kb: Knowledge, fit_rows: list[dict[str, Any]], rt: RuntimeProfile) -> float:
    """Median |log error| of the engine with profile ``rt`` over ``fit_rows``."""
    logs = [
        abs(math.log1p(e))
        for row in fit_rows
        if (got := predict(row, kb, rt)) is not None
        for e in errors(row, got).values()
    ]
    return statistics.median(logs) if logs else math.inf


def _family_score(kb: Knowledge, fit_rows: list[dict[str, Any]], rt: RuntimeProfile) -> float:
    """Mean over model families of each family's median |log error|.

    MoE rows come in families of very different expert shapes (gpt-oss: 40 rows of 2,880-wide
    experts; Mixtral: 4 rows of 14,336-wide ones): a median over rows lets the largest family
    decide alone, so each family gets one vote.
    """
    by_family: dict[str, list[float]] = {}
    for row in fit_rows:
        got = predict(row, kb, rt)
        if got is None:
            continue
        family = kb.models[row["model"]].family
        by_family.setdefault(family, []).extend(abs(math.log1p(e)) for e in errors(row, got).values())
    return statistics.mean(statistics.median(v) for v in by_family.values()) if by_family else math.inf


CLASS_SHARES = (0.5, 0.7, 1.0)


def fit_moe(kb: Knowledge, runtime: str) -> dict[str, float]:
    """Grid search of the runtime's MoE coefficients on its mixture-of-experts ``fit`` rows only,
    scored family by family (``_family_score``).

    The dense coefficients stay as fitted on dense rows: these only change MoE steps. A
    card class the runtime already gives its own grouped-GEMM share
    (``card_classes.<class>.moe_compute``: kernels are tuned per architecture) is searched
    jointly with the runtime-wide figures; every other class with fit rows is then
    reported alone, as a hint for whether it wants one.
    """
    base = kb.runtimes[runtime]
    fit_rows = [
        r for r in rows() if r["split"] == "fit" and r["runtime"] == runtime and kb.models[r["model"]].is_moe
    ]
    owned = sorted(k for k, c in base.card_classes.items() if c.moe_compute is not None)
    grid = {**MOE_GRID, **dict.fromkeys(owned, CLASS_SHARES)}
    scored = []
    for values in itertools.product(*grid.values()):
        trial = dict(zip(grid, values, strict=True))
        scored.append((_family_score(kb, fit_rows, _with(base, trial, owned)), trial))
    score, best = min(scored, key=lambda p: p[0])
    print(
        f"{runtime}: mean of per-family median |log error| {score:.3f} "
        f"on {len(fit_rows)} MoE fit rows with {best}"
    )
    tuned = _with(base, best, owned)
    for name in sorted({_class(kb, r) for r in fit_rows} - set(owned)):
        own = [r for r in fit_rows if _class(kb, r) == name]
        alone = [
            (_family_score(kb, own, _with(tuned, {name: share}, [name])), share) for share in CLASS_SHARES
        ]
        got, share = min(alone)
        print(f"  {name}: {len(own)} rows, moe_compute {share} would give median |log error| {got:.3f}")
    return best


def _class(kb: Knowledge, row: dict[str, Any]) -> str:
    gpu = kb.gpus[row["gpu"]]
    return f"{gpu.architecture}-{gpu.segment}"


def _with(base: RuntimeProfile, trial: dict[str, float], classes: list[str]) -> RuntimeProfile:
    """``base`` with the trial's runtime-wide figures and its card classes' grouped-GEMM shares."""
    entries = {
        k: CardClassEfficiency(moe_compute=trial[k], source="grid search, serving_compare --fit-moe")
        for k in classes
    }
    plain = {k: v for k, v in trial.items() if k not in classes}
    return base.model_copy(update={**plain, "card_classes": base.card_classes | entries})


TTFT_GRID = {
    "prefill_overhead_ms": (0.0, 7.0, 15.0, 30.0),
    "prefill_layer_us": (0.0, 50.0, 100.0, 200.0, 400.0),
    "prefill_moe_layer_us": (0.0, 250.0, 500.0, 1000.0, 2000.0),
}


def fit_ttft(kb: Knowledge, runtime: str) -> dict[str, float]:
    """The runtime's prefill floor (per request, per layer), fitted on its ``fit`` rows' TTFT alone."""
    base = kb.runtimes[runtime]
    fit_rows = [r for r in rows() if r["split"] == "fit" and r["runtime"] == runtime and r.get("ttft_ms")]
    scored = []
    for values in itertools.product(*TTFT_GRID.values()):
        trial = dict(zip(TTFT_GRID, values, strict=True))
        rt = base.model_copy(update=trial)
        logs = [
            abs(math.log1p(errors(row, got)["ttft"]))
            for row in fit_rows
            if (got := predict(row, kb, rt)) is not None and "ttft" in errors(row, got)
        ]
        scored.append((statistics.median(logs) if logs else math.inf, trial))
    score, best = min(scored, key=lambda p: p[0])
    print(f"{runtime}: median |log TTFT error| {score:.3f} on {len(fit_rows)} rows with {best}")
    return best
