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
WEIGHT_BYTES = {"fp8": 1.0, "nvfp4": 0.5, "fp16": 2.0, "bf16": 2.0}  # the tool's tuned quantisations


def limits(row: dict[str, Any], arch: ModelArch, gpu: GpuSpec) -> tuple[int, int] | None:
    """(max_num_seqs, max_num_batched_tokens) ``trtllm-bench`` chose for ``row``; None: its defaults."""
    weight_bytes = WEIGHT_BYTES.get(row["weight_dtype"])
    if weight_bytes is None:
        return None
    isl, osl, tp = int(row["prompt_tokens"]), int(row["output_tokens"]), int(row["tensor_parallel"])
    requests = _kv_requests(arch, gpu, tp, weight_bytes, row.get("kv_dtype") or "fp16", isl + osl)
    batch = _round_batch(min(requests, MAX_BATCH))
    tokens = _round_tokens(min(min(requests, MAX_BATCH) * (1 + isl / osl), MAX_TOKENS))
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


def _round_batch(raw: float) -> int:
    if raw < 256:
        return max(64, 32 * math.ceil(raw / 32))
    if raw < 1024:
        return 128 * math.ceil(raw / 128)
    return 256 * math.ceil(raw / 256)


def _round_tokens(raw: float) -> int:
    if raw < 4096:
        return max(2048, 256 * math.ceil(raw / 256))
    if raw < 8192:
        return 512 * math.ceil(raw / 512)
    return 1024 * math.ceil(raw / 1024)
