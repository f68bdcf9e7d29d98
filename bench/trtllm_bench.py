"""The scheduler limits ``trtllm-bench`` gives a run when its command line sets none.

TensorRT-LLM's perf-overview tables were measured with ``trtllm-bench throughput``
without ``--max_batch_size``/``--max_num_tokens``: the tool then sizes both from the
dataset's mean lengths and the cards' memory, so each (model, cards, ISL/OSL) cell ran
with its own limits, not the runtime's defaults (2,048 sequences, 8,192 tokens). A row
of ``knowledge/serving_measurements.yaml`` marked ``harness: trtllm-bench`` is stated
to the engine with these limits, as the JSON contract's ``max_num_seqs`` and
``max_num_batched_tokens``.

The rule, from TensorRT-LLM's ``tensorrt_llm/bench/build/tuning.py`` (``calc_engine_setting``,
``finetune_setting``), ``build.py`` and ``benchmark/utils/general.py``:

- requests the KV cache holds: (total memory of the GPUs − parameter count × bytes per
  weight) × the KV fraction (0.95), over (ISL + OSL) tokens of
  2 · layers · max(TP, KV heads) · head size · KV bytes — every layer at full length;
- batch = that, at most 4,096, rounded up (to 32 below 256 requests, at least 64; to 128
  below 1,024; to 256 above);
- tokens per pass = batch · (1 + ISL/OSL), at most 32,768, rounded up (at least 2,048);
  with chunked prefill off (the PyTorch path's default) raised to ISL + batch so a whole
  prompt fits one pass;
- quantisations the tool has no rule for (gpt-oss's MXFP4) keep the defaults.

Under attention data parallelism each rank schedules its own batch up to that limit.
"""

from __future__ import annotations

import math
from typing import Any

from gpu_advisor.engine.specs import GpuSpec, ModelArch

KV_FRACTION = 0.95
MAX_BATCH = 4096
MAX_TOKENS = 32768
# (below, step): the batch rounds up to 32s below 256, 128s below 1,024, 256s above;
# tokens to 256s below 4,096, 512s below 8,192, 1,024s above
BATCH_STEPS: tuple[tuple[float, int], ...] = ((256, 32), (1024, 128), (math.inf, 256))
TOKEN_STEPS: tuple[tuple[float, int], ...] = ((4096, 256), (8192, 512), (math.inf, 1024))
WEIGHT_BYTES = {"fp8": 1.0, "nvfp4": 0.5, "fp16": 2.0, "bf16": 2.0}  # the tool's tuned quantisations


def limits(row: dict[str, Any], arch: ModelArch, gpu: GpuSpec) -> tuple[int, int] | None:
    """(max_num_seqs, max_num_batched_tokens) ``trtllm-bench`` chose for ``row``; None: its defaults."""
    weight_bytes = WEIGHT_BYTES.get(row["weight_dtype"])
    if weight_bytes is None:
        return None
    isl, osl, tp = int(row["prompt_tokens"]), int(row["output_tokens"]), int(row["tensor_parallel"])
    requests = _kv_requests(arch, gpu, tp, weight_bytes, row.get("kv_dtype") or "fp16", isl + osl)
    raw = min(requests, MAX_BATCH)
    batch = _round_up(raw, BATCH_STEPS, least=64)
    tokens = _round_up(min(raw * (1 + isl / osl), MAX_TOKENS), TOKEN_STEPS, least=2048)
    return batch, max(tokens, isl + batch)


def _kv_requests(
    arch: ModelArch, gpu: GpuSpec, tp: int, weight_bytes: float, kv_dtype: str, seq: int
) -> float:
    """Requests of ``seq`` tokens the tool reckons the GPUs' KV cache holds (its own estimate)."""
    kv_bytes = 1.0 if kv_dtype == "fp8" else 2.0
    kv_heads = max(tp, arch.num_kv_heads or arch.num_heads)
    head = arch.hidden_size // arch.num_heads if arch.attention == "mla" else arch.head_dim
    per_token = 2 * arch.layers * kv_heads * head * kv_bytes
    free = tp * gpu.usable_gib * 2**30 - arch.params_b * 1e9 * weight_bytes
    return max(1.0, free * KV_FRACTION / (per_token * seq))


def _round_up(raw: float, steps: tuple[tuple[float, int], ...], least: int) -> int:
    """``raw`` rounded up to the step of the first tier it is below, and at least ``least``."""
    step = next(size for below, size in steps if raw < below)
    return max(least, step * math.ceil(raw / step))
