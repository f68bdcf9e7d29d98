"""Fit the diffusion pass-time constants on the fit rows only, and report the held-out error.

    python -m bench.diffusion_fit [--tiny]

``--tiny`` searches a coarse grid (every sixth point), so the test suite checks the script runs.

The rows of ``knowledge/diffusion.yaml`` were marked ``fit`` or ``holdout`` before this ran.
For each denoiser class (UNet, DiT) a grid over the per-pass overhead and the exponent γ,
with the best k for each pair in closed form (the mean log ratio), minimises the squared
log error on that class's fit rows (see ``engine/jobs/diffusion.py`` for the model). It
prints the constants to paste under ``fits:`` and, with them, every row's error and the
held-out median and share within ±25 % per family.

Fine-tuning (``training:``) is fitted the same way on its own rows: ``step_factor`` is the
median of measured ÷ modelled seconds per step over the ``fit`` rows (the model at factor 1,
``engine/jobs/image_train.step_seconds``), and the held-out rows' error is printed.
"""

from __future__ import annotations

import math
import statistics
import sys

from gpu_advisor import knowledge
from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.engine.jobs.image_train import ImageTrainJob, step_seconds
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


def train_seconds(book: d.DiffusionBook, row: d.TrainRow, factor: float) -> float:
    """The modelled seconds per step of a published fine-tuning row at ``factor``."""
    training = book.training.model_copy(update={"step_factor": factor})
    at = book.model_copy(update={"training": training})
    job = ImageTrainJob(
        model=row.model, method=row.method, batch=row.batch, gradient_checkpointing=row.gradient_checkpointing
    )
    return step_seconds(at, at.models[row.model], knowledge.load().gpus[row.gpu], job, row.resolution)


def fit_training(book: d.DiffusionBook) -> float:
    """``step_factor``: the median measured ÷ modelled (factor 1) ratio over the fit rows only."""
    rows = [r for r in book.training.rows if r.split == "fit"]
    return statistics.median(r.seconds_per_step / train_seconds(book, r, 1.0) for r in rows)


def training_errors(book: d.DiffusionBook, factor: float) -> dict[str, list[float]]:
    """|predicted ÷ measured − 1| of every fine-tuning row at ``factor``, by split."""
    out: dict[str, list[float]] = {"fit": [], "holdout": []}
    for row in book.training.rows:
        out[row.split].append(abs(train_seconds(book, row, factor) / row.seconds_per_step - 1))
    return out


def report_training(book: d.DiffusionBook, factor: float) -> None:
    for row in book.training.rows:
        err = train_seconds(book, row, factor) / row.seconds_per_step - 1
        size = f"{row.resolution:5} px {row.seconds_per_step:6.2f} s"
        print(f"  {row.split:7} {row.model:16} {row.gpu:14} {size}  {err:+.1%}")
    held = training_errors(book, factor)["holdout"]
    within = sum(e <= 0.25 for e in held) / len(held)
    median = statistics.median(held)
    print(
        f"training: step_factor {factor:.4f}; holdout median |error| {median:.1%}, within ±25 % {within:.0%}"
    )


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
    report_training(book, fit_training(book))
    return 0


if __name__ == "__main__":
    sys.exit(main())
