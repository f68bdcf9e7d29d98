"""Bytes per weight of each storage format, at the bits they really take.

Quantised formats carry scales (and zero points) per group of weights, so "4-bit" is
never exactly 4 bits:
- GPTQ/AWQ/generic int4 with group size 128 and an fp16 scale + packed zero point:
  4 + 16/128 + 4/128 ≈ 4.16 bits; we use 4.25 to cover g128 scales and act-order
  metadata (AutoAWQ / AutoGPTQ checkpoints of Llama-2-7B weigh ≈3.9 GB for 6.74B).
- GGUF Q8_0: blocks of 32 int8 + one fp16 scale = 34 bytes / 32 weights = 8.5 bits;
  Q4_0: 32 nibbles + one fp16 scale = 18 bytes / 32 weights = 4.5 bits.
- GGUF Q4_K_M: Q4_K super-blocks are 4.5 bits; the _M mix keeps half the attention-V
  and FFN-down tensors in Q6_K (6.5625 bits), averaging ≈4.85 bits on Llama models
  (llama.cpp's quantize table lists Llama-3-8B Q4_K_M at 4.89 bpw).
- NF4 with double quantisation (QLoRA, Dettmers et al. 2023, §3): 4 bits plus
  0.127 bits of quantisation constants per parameter.
- OCP microscaling MXFP4 (gpt-oss's native expert format): 32 FP4 (E2M1) elements
  share one 8-bit power-of-two scale, 4 + 8/32 = 4.25 bits; NVIDIA's NVFP4 puts an
  FP8 scale on every 16, 4 + 8/16 = 4.5 bits. FP4 tensor cores exist on Blackwell
  only; elsewhere the weights are dequantised to bf16 inside the matmul (weight-only).
``keeps_embeddings_16bit``: GPU weight-only formats (AWQ, GPTQ, bitsandbytes) leave the
embedding and LM head in fp16; GGUF quantises them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.engine.specs import Precision


@dataclass(frozen=True, slots=True)
class WeightFormat:
    bits: float
    compute: Precision
    keeps_embeddings_16bit: bool
    weight_only: bool
    family: str


FORMATS: dict[str, WeightFormat] = {
    "fp32": WeightFormat(32.0, "tf32", False, False, "float"),
    "fp16": WeightFormat(16.0, "fp16", False, False, "float"),
    "bf16": WeightFormat(16.0, "bf16", False, False, "float"),
    "fp8": WeightFormat(8.0, "fp8", True, False, "fp8"),
    "int8": WeightFormat(8.0, "int8", True, False, "int8"),
    "int4": WeightFormat(4.25, "fp16", True, True, "int4"),
    "awq": WeightFormat(4.25, "fp16", True, True, "awq"),
    "gptq": WeightFormat(4.25, "fp16", True, True, "gptq"),
    "nf4": WeightFormat(4.127, "bf16", True, True, "nf4"),
    "q8_0": WeightFormat(8.5, "fp16", False, True, "gguf"),
    "q4_k_m": WeightFormat(4.85, "fp16", False, True, "gguf"),
    "q4_0": WeightFormat(4.5, "fp16", False, True, "gguf"),
    "mxfp4": WeightFormat(4.25, "fp4", True, True, "mxfp4"),
    "nvfp4": WeightFormat(4.5, "fp4", True, True, "nvfp4"),
}

KV_BYTES: dict[str, float] = {"fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0}

QUALITY_RANK: dict[str, int] = {
    "fp32": 0,
    "bf16": 1,
    "fp16": 1,
    "fp8": 2,
    "int8": 2,
    "q8_0": 2,
    "awq": 3,
    "gptq": 3,
    "int4": 3,
    "q4_k_m": 3,
    "q4_0": 3,
    "nf4": 3,
    "mxfp4": 3,
    "nvfp4": 3,
}


def weight_bytes(params: float, embedding_params: float, fmt: str) -> float:
    """Bytes to hold ``params`` weights in ``fmt``; embeddings stay fp16 where the format leaves them."""
    spec = FORMATS[fmt]
    if spec.keeps_embeddings_16bit:
        body = max(params - embedding_params, 0.0)
        return body * spec.bits / 8 + embedding_params * 2.0
    return params * spec.bits / 8
