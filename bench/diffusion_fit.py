"""Fit the diffusion pass-time constants on the fit rows only, and report the held-out error.

    python -m bench.diffusion_fit [--tiny]

``--tiny`` searches a coarse grid (every sixth point), so the test suite checks the script runs.

The rows of ``knowledge/diffusion.yaml`` were marked ``fit`` or ``holdout`` before this ran.
For each denoiser class (UNet, DiT) a grid over the per-pass overhead and the exponent γ,
with the best k for each pair in closed form (the mean log ratio), minimises the squared
log error on that class's fit rows (see ``engine/jobs/diffusion.py`` for the model). It
prints the constants to paste under ``fits:`` and, with them, every row's error and the
held-out median and share within ±25 % per family.
"""

from __future__ import annotations

import math
import statistics
import sys

from gpu_advisor import knowledge
from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.knowledge.jobs import diffusion as load_diffusion

GAMMAS = [g / 20 for g in range(0, 25)]
BETAS = [b / 20 for b in range(0, 25)]
FEATURES: tuple[d.Feature, ...] = ("bandwidth", "power")
OVERHEADS = {"unet": [o / 2 for o in range(0, 61)], "dit": [o / 2 for o in range(0, 21)]}


def run_of(row: d.SpeedRow) -> d.Run:
    return d.Run(row.width, row.height, row.steps, row.frames, 1, row.format, row.offload)


def best_k(
    book: d.DiffusionBook,
    rows: list[d.SpeedRow],
    overhead_ms: float,
    gamma: float,
    beta: float,
    feature: d.Feature,
) -> float | None:
    """k that minimises the squared log error for a given overhead, γ and β (None if a row cannot fit)."""
    logs = []
    for row in rows:
        spec, gpu = book.models[row.model], knowledge.load().gpus[row.gpu]
        unit = d.ClassFit(
            overhead_ms=overhead_ms, k=1.0, gamma=gamma, beta=beta, feature=feature, source="grid search"
        )
        t = d.timing(book, spec, gpu, run_of(row), unit)
        fixed = t.vae_s + t.offload_s + t.passes * overhead_ms / 1000.0
        compute_at_k1 = t.denoise_s - t.passes * overhead_ms / 1000.0
        left = row.seconds - fixed
        if left <= 0:
            return None
        logs.append(math.log(compute_at_k1 / left))
    return math.exp(statistics.fmean(logs))


def fit(book: d.DiffusionBook, cls: str) -> d.ClassFit:
    rows = [r for r in book.speeds if r.split == "fit" and book.models[r.model].denoiser == cls]
    best: tuple[float, d.ClassFit] | None = None
    grid = [(o, g, b, f) for o in OVERHEADS[cls] for g in GAMMAS for b in BETAS for f in FEATURES]
    for overhead, gamma, beta, feature in grid:
        k = best_k(book, rows, overhead, gamma, beta, feature)
        if k is None:
            continue
        cand = d.ClassFit(
            overhead_ms=overhead,
            k=round(k, 5),
            gamma=gamma,
            beta=beta,
            feature=feature,
            source="fitted on fit rows",
        )
        loss = sum(math.log(predict(book, r, cand) / r.seconds) ** 2 for r in rows)
        if best is None or loss < best[0]:
            best = (loss, cand)
    assert best is not None
    return best[1]


def predict(book: d.DiffusionBook, row: d.SpeedRow, cls_fit: d.ClassFit | None = None) -> float:
    spec, gpu = book.models[row.model], knowledge.load().gpus[row.gpu]
    return d.timing(book, spec, gpu, run_of(row), cls_fit).total_s


def report(book: d.DiffusionBook) -> None:
    for family in ("image", "video"):
        errs = []
        for row in book.speeds:
            if book.models[row.model].kind != family:
                continue
            err = predict(book, row) / row.seconds - 1
            print(f"  {row.split:7} {row.model:16} {row.gpu:14} {row.seconds:8.2f} s  {err:+.1%}")
            if row.split == "holdout":
                errs.append(abs(err))
        within = sum(e <= 0.25 for e in errs) / len(errs)
        print(f"{family}: holdout median |error| {statistics.median(errs):.1%}, within ±25 % {within:.0%}")


def main() -> int:
    if "--tiny" in sys.argv[1:]:
        for grid in (GAMMAS, BETAS, *OVERHEADS.values()):
            grid[:] = grid[::6]
    book = load_diffusion()
    fits = {cls: fit(book, cls) for cls in ("unet", "dit")}
    for cls, f in fits.items():
        fields = f"overhead_ms: {f.overhead_ms}, k: {f.k}, gamma: {f.gamma}, beta: {f.beta}"
        fields += f", feature: {f.feature}"
        print(f"  {cls}: {{{fields}}}")
    report(book.model_copy(update={"fits": fits}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
