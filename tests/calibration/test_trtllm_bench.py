"""The scheduler limits a published run is stated with: as ``trtllm-bench`` sized them
(``bench/trtllm_bench.py``), as its source states them, or capped by the burst it sent.

Expected figures are worked by hand from the tool's rule (TensorRT-LLM
``tensorrt_llm/bench/build/tuning.py``): KV bytes per token 2 · layers · max(TP, KV heads)
· head size · KV bytes, over (ISL + OSL) tokens, in 0.95 of the memory the weights leave.
"""

from __future__ import annotations

from typing import Any

from bench import trtllm_bench
from bench.serving_compare import rows, workload
from gpu_advisor.engine.specs import Knowledge


def _limits(kb: Knowledge, model: str, gpu: str, isl: int, osl: int, fmt: str = "fp8") -> Any:
    row = {"weight_dtype": fmt, "kv_dtype": "fp8", "prompt_tokens": isl, "output_tokens": osl}
    row["tensor_parallel"] = 1
    return trtllm_bench.limits(row, kb.models[model], kb.gpus[gpu])


def test_a_short_run_on_a_small_model_gets_the_tools_batch_ceiling(kb: Knowledge) -> None:
    # 8B FP8 on one H100 (79.11 GiB): 73.6 GB of KV at 64 KiB/token x 256 tokens holds 4,385
    # requests, capped at 4,096; tokens 4,096 x (1 + 128/128) = 8,192.
    assert _limits(kb, "llama-3.1-8b", "h100-sxm", 128, 128) == (4096, 8192)


def test_a_kv_bound_run_rounds_the_batch_up_and_sizes_tokens_from_it(kb: Knowledge) -> None:
    # 70B FP8 on one H200 (139.8 GiB): 75.6 GB of KV at 160 KiB/token x 2,176 tokens holds 212
    # requests -> 224 (32s); tokens 212 x 17 = 3,604 -> 3,840 (256s).
    assert _limits(kb, "llama-3.1-70b", "h200-sxm", 2048, 128) == (224, 3840)


def test_a_prompt_longer_than_the_budget_raises_it_to_hold_the_whole_prompt(kb: Knowledge) -> None:
    # 21 requests of 22,000 tokens: batch 64 (the floor); tokens 2,048 raised to 20,000 + 64
    # because the PyTorch path runs without chunked prefill by default.
    assert _limits(kb, "llama-3.1-70b", "h200-sxm", 20000, 2000) == (64, 20064)


def test_a_quantisation_without_a_rule_keeps_the_runtimes_defaults(kb: Knowledge) -> None:
    assert _limits(kb, "gpt-oss-120b", "h200-sxm", 1000, 1000, fmt="mxfp4") is None


def _first(pred: Any) -> dict[str, Any]:
    return next(r for r in rows() if pred(r))


def test_a_perf_overview_row_is_stated_with_the_tools_limits(kb: Knowledge) -> None:
    row = _first(lambda r: r.get("harness") == "trtllm-bench" and r["weight_dtype"] == "fp8")
    w = workload(row, kb)
    assert (w.max_num_seqs, w.max_num_batched_tokens) == trtllm_bench.limits(
        row, kb.models[row["model"]], kb.gpus[row["gpu"]]
    )


def test_limits_a_source_states_win_over_the_tools_rule(kb: Knowledge) -> None:
    row = _first(lambda r: r.get("max_num_seqs") is not None)
    w = workload(row, kb)
    assert (w.max_num_seqs, w.max_num_batched_tokens) == (row["max_num_seqs"], row["max_num_batched_tokens"])


def test_a_burst_of_requests_caps_the_running_batch_at_its_size(kb: Knowledge) -> None:
    """ "All 100 requests sent at once" can never run more than 100 at a time."""
    row = _first(lambda r: r.get("num_requests") == 100)
    assert workload(row, kb).max_num_seqs == 100
