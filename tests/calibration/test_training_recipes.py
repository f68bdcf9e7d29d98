"""Training peak memory as users ask for it, recipe defaults filling the rest (issue 45).

The rows (training_recipes.yaml) come from sources measurements.yaml does not cite:
ms-swift's example scripts and its LoRA × max-length benchmark, torchtune's Llama 3
tutorial and a torchtune pull request, a LLaMA-Factory issue thread, and LLaMA-Factory's
own estimate table (reported apart, never in a median). Each source was split before any
of its rows was predicted: its first row held out, then fit and holdout alternating.

Figures on the held-out rows (median |error|, share within ±10 %):
- the engine before recipes (commit 9899185, requests without ``recipe``): 6.2 %, 63 %;
- with recipe defaults: 8.0 %, 63 % (ms-swift 15 rows 8.0 %, LLaMA-Factory 2 rows 6.6 %,
  torchtune 1 row 5.5 %, DeepSpeed ZeRO-3 1 row 30.3 %); fit rows 9.4 % → 7.0 %.
- with the materialised-attention class (engine.train_terms, ChatGLM3 and Baichuan2 remote
  code holding 22 bytes per score element): 7.4 %, 74 % (ms-swift 15 rows 7.4 %, 73 %); fit
  rows 7.0 %, 56 %. These holdout rows had been seen (the previous report named their
  misses), so the figure is not a fresh one.
- a new source, split before any prediction (torchtune PR #961: Llama 2 7B full fine-tune,
  PagedAdamW in backward, batch 4 × 2,048): first figure on its held-out row -3.2 %
  (-15.1 % when sent without the unchunked loss the config of the time named); its fit row
  -12.3 %. All 20 held-out rows: 6.5 %, 75 % (torchtune 2 rows 4.3 %, LLaMA-Factory 2 rows
  6.6 %, ms-swift 15 rows 7.4 %, DeepSpeed ZeRO-3 1 row 30.3 %); fit 17 rows 7.3 %.
Recipes fix what they decide — a full fine-tune's state dtypes and optimizer step (the
ms-swift Qwen2.5-7B full run: +82 % → -1 %) — but the held-out rows are nearly all LoRA,
where states are a rounding error, and their misses lie outside any recipe default:
remote-code models that materialise attention (chatglm3, baichuan2: -33 % to -68 % until
the score term; Baichuan2 at 4k-8k still -18 % / +18 %), LoRA under DDP and ZeRO-3 reading
about a whole bf16 model per GPU (-39 %, -30 %), and about 1 GiB that HF-run LoRA peaks
carry beyond the terms. The floors sit just under the figures reached.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

import pytest
from pydantic import ValidationError

from gpu_advisor.engine.specs import Knowledge
from tests.calibration.training_recipes import (
    ROWS,
    per_recipe,
    relative_error,
    rows,
    summary,
    validate,
)

HOLDOUT_MEDIAN = 0.08
HOLDOUT_WITHIN_10 = 0.70
FIT_MEDIAN = 0.075


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_every_row_is_a_valid_request_with_a_cited_source(row: dict[str, Any]) -> None:
    assert validate(row).task == "train"


def test_a_misspelt_request_field_is_refused() -> None:
    row = {**ROWS[0], "request": {**ROWS[0]["request"], "lora_target": "all_linear"}}
    with pytest.raises(ValidationError, match="lora_target"):
        validate(row)


def test_the_split_follows_the_fixed_rule_of_each_source() -> None:
    """First row of each source held out, then fit and holdout alternate."""
    by_source: dict[str, list[str]] = defaultdict(list)
    for row in ROWS:
        url = row["source"]
        source = (url.split("/blob/")[1].split("/")[0] if "/blob/" in url else url) + str(row.get("estimate"))
        by_source[source].append(row["split"])
    for splits in by_source.values():
        assert splits == ["holdout" if i % 2 == 0 else "fit" for i in range(len(splits))]


def test_held_out_median_error_is_under_eight_percent(kb: Knowledge) -> None:
    median, _ = summary([relative_error(r, kb) for r in rows("holdout")])
    assert median < HOLDOUT_MEDIAN


def test_seven_tenths_of_held_out_rows_are_within_ten_percent(kb: Knowledge) -> None:
    _, within = summary([relative_error(r, kb) for r in rows("holdout")])
    assert within >= HOLDOUT_WITHIN_10


def test_fitted_rows_median_error_is_under_seven_and_a_half_percent(kb: Knowledge) -> None:
    errors = [abs(relative_error(r, kb)) for r in rows("fit")]
    assert statistics.median(errors) < FIT_MEDIAN


def test_every_recipe_with_held_out_rows_is_reported(kb: Knowledge) -> None:
    groups = per_recipe(kb, "holdout")
    assert {"all", "ms_swift", "torchtune", "llamafactory", "deepspeed_zero3"} <= set(groups)
    assert len(groups["torchtune"]) == 2


def test_the_ms_swift_full_fine_tune_is_sized_as_bf16_states_with_a_foreach_step(kb: Knowledge) -> None:
    """76 GiB for Qwen2.5-7B on one GPU: read with fp32 master weights it would be ~80 % over."""
    row = next(r for r in ROWS if r["id"] == "swift_qwen25_7b_full_1gpu")
    masters = {**row, "request": {**row["request"], "master_weights": True}}
    assert abs(relative_error(row, kb)) < 0.05
    assert relative_error(masters, kb) > 0.5


def test_chatglm3_at_8k_tokens_holds_its_attention_scores_whole(kb: Knowledge) -> None:
    """ms-swift's benchmark: 66.8 GiB at 8,192 tokens; read with a fused attention kernel, -68 %."""
    row = next(r for r in ROWS if r["id"] == "swift_bench_chatglm3_6b_lora_8192")
    fused = kb.models["chatglm3-6b"].model_copy(update={"materialises_attention": False})
    as_fused = Knowledge.model_copy(kb, update={"models": {**kb.models, "chatglm3-6b": fused}})
    assert abs(relative_error(row, kb)) < 0.10
    assert relative_error(row, as_fused) < -0.5
