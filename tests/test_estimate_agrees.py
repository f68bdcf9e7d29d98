"""``estimate`` and ``recommend`` give the same answer for the same card, count and workload (issue 19).

Both size serving memory with ``engine.serving_search.per_gpu``: a stated ``context_len``
is reserved for every user; without one each user holds prompt + answer (vLLM's paged
working set), and the cache keeps room for one whole window. ``recommend`` with the user's
own hardware (``gpu_owned``) "fits" when its requested option needs one machine, i.e.
one replica group of ``gpu_count`` cards holds every concurrent user.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

# (model, card, count, weight format, context_len, concurrency). Rows sit either side of
# the memory line; concurrency stays within the runtime's max_num_seqs (256), past which
# the recommender adds replicas on the same machine where the estimate has one group.
TABLE = [
    ("llama-3.1-8b", "rtx4090", 1, "bf16", None, 8),
    ("llama-3.1-8b", "rtx4090", 1, "bf16", None, 64),
    ("llama-3.1-8b", "rtx4090", 1, "bf16", 32768, 1),
    ("llama-3.1-8b", "l4", 1, "bf16", 32768, 1),
    ("llama-3.1-8b", "l4", 1, "bf16", 16384, 8),
    ("qwen2.5-14b", "l40s", 1, "bf16", None, 64),
    ("qwen2.5-14b", "l40s", 1, "bf16", None, 200),
    ("qwen2.5-14b", "l40s", 1, "bf16", 32768, 1),
    ("qwen2.5-32b", "a100-80g-sxm", 1, "bf16", None, 8),
    ("qwen2.5-32b", "a100-80g-sxm", 1, "bf16", 32768, 1),
    ("llama-3.1-70b", "h100-sxm", 2, "fp8", None, 200),
    ("llama-3.1-70b", "h100-sxm", 2, "fp8", 16384, 64),
    ("llama-3.1-70b", "a100-80g-sxm", 2, "bf16", None, 64),
    ("llama-3.1-70b", "a100-80g-sxm", 2, "bf16", 16384, 1),
]


def _workload(row: tuple[str, str, int, str, int | None, int], **more: Any) -> Workload:
    model, gpu, count, fmt, context, users = row
    fields: dict[str, Any] = {
        "task": "infer",
        "model": model,
        "gpu": gpu,
        "gpu_count": count,
        "weight_dtype": fmt,
        "concurrency": users,
        "gpu_owned": True,
        **more,
    }
    if context is not None:
        fields["context_len"] = context
    return Workload(**fields)


def _recommend_fits(w: Workload, kb: Knowledge) -> bool:
    requested = recommend(w, kb).requested
    return requested is not None and requested.machines == 1


@pytest.mark.parametrize("row", TABLE, ids=lambda r: "-".join(str(x) for x in r))
def test_estimate_fits_exactly_when_recommend_holds_the_workload_on_that_hardware(
    row: tuple[str, str, int, str, int | None, int], kb: Knowledge
) -> None:
    w = _workload(row)
    verdict = estimate(w, kb).requested
    assert verdict is not None
    assert verdict.fits == _recommend_fits(w, kb)


def test_the_table_holds_both_answers(kb: Knowledge) -> None:
    """A table of only fits (or only misses) could not catch a disagreement."""
    answers = {_recommend_fits(_workload(row), kb) for row in TABLE}
    assert answers == {True, False}


def test_without_a_context_each_user_is_sized_at_prompt_plus_half_the_answer(kb: Knowledge) -> None:
    # Qwen2.5-14B: 48 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes = 192 KiB per token
    # (its config.json). A paged cache holds what a request has so far: on average its
    # prompt and half its answer, 512 + 128 tokens; 64 users × 640 tokens = 7.5 GiB. The
    # old rule's full 4,096-token window per user would be 48 GiB, more than an L40S holds.
    e = estimate(_workload(("qwen2.5-14b", "l40s", 1, "bf16", None, 64)), kb)
    assert e.memory_gib["kv_cache"] == pytest.approx(64 * 640 * 192 / 2**20, abs=0.01)
    assert e.requested is not None and e.requested.fits


def test_without_a_context_the_estimate_says_how_it_sized_each_user(kb: Knowledge) -> None:
    e = estimate(_workload(("qwen2.5-14b", "l40s", 1, "bf16", None, 64)), kb)
    note = next(f for f in e.assumptions if f.id == "assumed_kv_per_user")
    assert (note.values["tokens"], note.values["context_len"]) == (640, 4096)


def test_a_stated_context_is_reserved_for_every_user(kb: Knowledge) -> None:
    e = estimate(_workload(("llama-3.1-8b", "l4", 1, "bf16", 16384, 8)), kb)
    # Llama 3.1 8B: 32 layers × 8 KV heads × 128 × 2 × 2 bytes = 128 KiB per token.
    assert e.memory_gib["kv_cache"] == pytest.approx(8 * 16384 * 128 / 2**20, abs=0.01)
    assert not any(f.id == "assumed_kv_per_user" for f in e.assumptions)


def test_one_user_still_needs_room_for_a_whole_window(kb: Knowledge) -> None:
    """vLLM refuses to start when one max_model_len sequence does not fit in the KV cache."""
    e = estimate(_workload(("llama-3.1-8b", "l4", 1, "bf16", None, 1)), kb)
    assert e.memory_gib["kv_cache"] == pytest.approx(4096 * 128 / 2**20, abs=0.01)


def test_the_estimates_tail_latency_is_the_requested_options_when_one_replica_carries_the_rate(
    kb: Knowledge,
) -> None:
    w = _workload(("llama-3.1-8b", "h100-sxm", 1, "bf16", None, 8), qps=2.0)
    verdict = estimate(w, kb).requested
    option = recommend(w, kb).requested
    assert verdict is not None and option is not None and option.replicas == 1
    for field in ("ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "break_qps"):
        assert getattr(verdict, field) == pytest.approx(getattr(option, field), rel=0.01), field


def test_a_rate_past_the_hardwares_capacity_has_a_break_point_but_no_quantiles(kb: Knowledge) -> None:
    w = _workload(("llama-3.1-8b", "l4", 1, "bf16", None, 8), qps=500.0)
    verdict = estimate(w, kb).requested
    assert verdict is not None and verdict.break_qps is not None
    assert verdict.break_qps < 500.0 and verdict.ttft_ms_p99 is None


def test_without_a_rate_the_estimate_quotes_no_queue(kb: Knowledge) -> None:
    verdict = estimate(_workload(("llama-3.1-8b", "h100-sxm", 1, "bf16", None, 8)), kb).requested
    assert verdict is not None and verdict.break_qps is None and verdict.ttft_ms_p50 is None
