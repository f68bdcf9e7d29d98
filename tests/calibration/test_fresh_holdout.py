"""The fresh held-out serving set of issue 45 (tests/calibration/fresh_holdout.yaml).

Its rows come from sources no calibration file cites and are never fitted on; the tests keep
it that way (every row held out, every source new, every row expressible) and hold the engine
to at least the first figure recorded on it, so a change that helps the fitted rows and hurts
generalisation shows up here. The scores print with ``python -m bench.serving_fresh``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from bench.serving_compare import predict, summary
from bench.serving_fresh import FIRST_FIGURE, prefill_limit_s, rows, score
from gpu_advisor.engine.specs import Knowledge

CALIBRATION = Path(__file__).parent


def _cited_by_calibration_files() -> str:
    knowledge_rows = resources.files("gpu_advisor.knowledge").joinpath("serving_measurements.yaml")
    texts = [knowledge_rows.read_text("utf-8")]
    texts += [
        (CALIBRATION / name).read_text("utf-8") for name in ("measurements.yaml", "moe_measurements.yaml")
    ]
    return "\n".join(texts)


def test_every_row_is_held_out_and_cites_a_source() -> None:
    assert all(r["split"] == "holdout" and r["source"].startswith("https://") for r in rows())


def test_no_row_comes_from_a_document_the_calibration_files_cite() -> None:
    cited = _cited_by_calibration_files()
    assert [r["id"] for r in rows() if r["source"] in cited] == []


def test_row_ids_are_unique() -> None:
    ids = [r["id"] for r in rows()]
    assert len(ids) == len(set(ids))


def test_every_row_is_expressible(kb: Knowledge) -> None:
    assert [r["id"] for r in rows() if predict(r, kb) is None] == []


def test_the_set_holds_dense_and_moe_rows_and_single_stream_moe_decode(kb: Knowledge) -> None:
    groups = score(kb)
    assert len(groups["max_and_target/dense"]) >= 10
    assert len(groups["moe_single_stream_tpot"]) >= 6
    assert len(groups["ttft_one_user"]) >= 10


@pytest.mark.parametrize("group", ["max_and_target/dense", "moe_single_stream_tpot", "ttft_one_user"])
def test_held_out_error_is_no_worse_than_the_first_figure(kb: Knowledge, group: str) -> None:
    median, _ = summary(score(kb)[group])
    assert median <= FIRST_FIGURE[group][0] + 0.005, (group, median)


def test_a_ttft_shorter_than_a_full_pass_over_the_prompt_is_read_as_a_cache_hit(kb: Knowledge) -> None:
    """Qwen3-4B on an RTX 4090, 2,048 prompt tokens in 77.7 ms: 16 TFLOP need 107 ms at the card's peak."""
    row = next(r for r in rows() if r["id"] == "tt394_vllm_rtx4090_x1_qwen3-4b_bf16_2048_128_c1")
    assert prefill_limit_s(row, kb) > row["ttft_ms"] / 1e3
    assert len(score(kb)["ttft_one_user/full_prefill"]) == len(score(kb)["ttft_one_user"]) - 2


def test_a_moe_prompt_pass_is_at_least_the_time_to_read_the_experts_it_touches(kb: Knowledge) -> None:
    """Qwen3-30B-A3B on an A100: 128 tokens route to nearly every expert, ~61 GB read at 2 TB/s."""
    row = next(r for r in rows() if r["id"] == "tt340_vllm_a100_x1_qwen3-30b-a3b_bf16_128_128_c1")
    assert prefill_limit_s(row, kb) == pytest.approx(0.030, rel=0.05)
