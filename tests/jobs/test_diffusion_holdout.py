"""The fitted pass-time constants against the measurements held out of the fit.

The rows of knowledge/diffusion.yaml were marked fit or holdout before bench/diffusion_fit.py
fitted (overhead, k, γ, β) per denoiser class on the fit rows. Reached at the shipped
constants: image 12.7 % median error, 80 % within ±25 %; video 17.4 %, 75 %. The floors
below leave a margin under those figures, so a refit that loses accuracy fails here.
"""

from __future__ import annotations

import statistics

import pytest

from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.specs import Knowledge

FLOORS = {
    "image": (0.20, 0.60),
    "video": (0.25, 0.60),
}  # (median |error| at most, share within ±25 % at least)


def errors(book: DiffusionBook, kb: Knowledge, kind: str) -> list[float]:
    out = []
    for row in book.speeds:
        spec = book.models[row.model]
        if row.split != "holdout" or spec.kind != kind:
            continue
        run = d.Run(row.width, row.height, row.steps, row.frames, 1, row.format, row.offload)
        out.append(abs(d.timing(book, spec, kb.gpus[row.gpu], run).total_s / row.seconds - 1))
    return out


@pytest.mark.parametrize("kind", ["image", "video"])
def test_held_out_median_error_stays_under_its_floor(book: DiffusionBook, kb: Knowledge, kind: str) -> None:
    assert statistics.median(errors(book, kb, kind)) <= FLOORS[kind][0]


@pytest.mark.parametrize("kind", ["image", "video"])
def test_most_held_out_rows_are_within_a_quarter(book: DiffusionBook, kb: Knowledge, kind: str) -> None:
    errs = errors(book, kb, kind)
    assert sum(e <= 0.25 for e in errs) / len(errs) >= FLOORS[kind][1]


def test_hunyuanvideo_memory_is_near_its_published_peak(book: DiffusionBook) -> None:
    # README: 60 GB at 720x1280x129f and 45 GB at 544x960x129f (GPU peak memory, batch 1)
    for row in book.memory:
        run = d.Run(row.width, row.height, 50, row.frames, 1, row.format, row.offload)
        gb = d.memory_gib(book, book.models[row.model], run) * d.GIB / 1e9
        assert gb == pytest.approx(row.gb, rel=0.25)


def test_the_fine_tuning_factor_is_the_median_of_the_fit_rows_only(book: DiffusionBook) -> None:
    # bench/diffusion_fit.py: measured ÷ modelled over the four fit rows (5.48, 5.34, 3.71, 4.85)
    from bench.diffusion_fit import fit_training

    assert book.training.step_factor == pytest.approx(fit_training(book), abs=1e-4)


def test_fine_tuning_steps_are_held_to_their_held_out_rows(book: DiffusionBook) -> None:
    # fit rows: two kohya SDXL LoRA runs on a 3090 (1.23 and 1.2 s/step), SimpleTuner's Flux NF4
    # LoRA at 512 px on a 4090 (1.4 s) and ai-toolkit's Flux LoRA on an A40 (6.5 s); held out: a
    # kohya SDXL run without checkpointing (1.12 s), a slow 4090 SDXL report (2.26 s) and the Flux
    # LoRA at 1,024 px on a 4090 (3.5 s). The one-factor model misses them by a median of 66 %
    # (knowledge/diffusion.yaml says so): a planning figure, and this floor keeps it from drifting.
    from bench.diffusion_fit import training_errors

    errs = training_errors(book, book.training.step_factor)
    assert len(errs["fit"]) == 4 and len(errs["holdout"]) == 3
    assert statistics.median(errs["fit"]) < 0.1
    assert statistics.median(errs["holdout"]) <= 0.7
