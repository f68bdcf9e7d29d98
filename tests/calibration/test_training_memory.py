"""Training peak memory against published measurements (measurements.yaml, section 7; issue 29).

The split is by source document and was fixed before any prediction (the rule is in
the YAML): torchtune's Llama 3.x README tables are ``fit``, its Llama 2 7B material and
torchtitan's H100 benchmark are ``holdout``. "Fit" here means the rows the terms of
engine.train_terms were checked on while they were written — no coefficient is
regressed on them. The fitted rows must keep a median error under 8 % (the issue's
goal) and each within 25 %; the held-out rows, three of which read counters that
include model-initialisation spikes no training model sees (torchtune 2024-04: QLoRA
and the two FSDP runs), must keep a median under 15 %. The per-row table is printed at the end of
any run that collects calibration tests (tests/calibration/report.py).
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from gpu_advisor.engine.specs import Knowledge
from tests.calibration.training import measured_gib, predict_gib, relative_error, training_rows, validate

FIT_MEDIAN = 0.08
FIT_EACH = 0.25
HOLDOUT_MEDIAN = 0.15


def test_a_third_or_more_of_the_training_rows_are_held_out() -> None:
    fit, holdout = training_rows("fit"), training_rows("holdout")
    assert len(fit) >= 8
    assert len(holdout) * 3 >= len(fit) + len(holdout)


@pytest.mark.parametrize("row", training_rows() + training_rows(bounds=True), ids=lambda r: r["id"])
def test_every_training_row_names_its_recipe_completely(row: dict[str, Any]) -> None:
    assert validate(row)["counter"] in ("active", "allocated", "reserved", "device")


def test_a_misspelt_recipe_setting_is_refused() -> None:
    row = dict(training_rows("fit")[0])
    row["training"] = {**row["training"], "activation_checkpoint": "full"}
    with pytest.raises(ValueError, match="activation_checkpoint"):
        validate(row)


def test_median_error_on_fitted_rows_is_under_eight_percent(kb: Knowledge) -> None:
    errors = [abs(relative_error(r, kb)) for r in training_rows("fit")]
    assert statistics.median(errors) < FIT_MEDIAN


@pytest.mark.parametrize("row", training_rows("fit"), ids=lambda r: r["id"])
def test_each_fitted_row_is_within_a_quarter(kb: Knowledge, row: dict[str, Any]) -> None:
    assert predict_gib(row, kb) == pytest.approx(measured_gib(row), rel=FIT_EACH), row["source"]


def test_median_error_on_held_out_rows_is_under_fifteen_percent(kb: Knowledge) -> None:
    errors = [abs(relative_error(r, kb)) for r in training_rows("holdout")]
    assert statistics.median(errors) < HOLDOUT_MEDIAN


@pytest.mark.parametrize("row", training_rows(bounds=True), ids=lambda r: r["id"])
def test_fits_in_claims_are_not_contradicted(kb: Knowledge, row: dict[str, Any]) -> None:
    # e.g. QLoRA (Dettmers et al. 2023): Guanaco 65B fine-tuned on one 48 GB card.
    assert predict_gib(row, kb) <= measured_gib(row)


def test_the_chunked_loss_row_is_the_one_the_loss_term_moves(kb: Knowledge) -> None:
    """torchtune 3B LoRA at 8,192 tokens: read as an unchunked loss it overshoots by far more."""
    row = next(r for r in training_rows("fit") if r["id"] == "torchtune_2411_llama32_3b_lora_a100")
    unchunked = {**row, "training": {**row["training"], "loss": "standard"}}
    assert abs(relative_error(row, kb)) < 0.10 < relative_error(unchunked, kb)
