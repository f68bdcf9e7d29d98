"""Concepts whose core is a memory figure: KV cache, what fills memory, when training needs more cards.

Computed for the model the user named (a bare size gets a template shape,
``engine.architecture``), else for a typical 8B (``base.TYPICAL_MODEL``), and the
sentence names which. The arithmetic is the engine's own (``engine.memory``):

- KV cache per token = layers × 2 × KV heads × head dim × bytes (vLLM paper, Kwon et al.
  2023, §2.2: 800 KB per token for OPT-13B), windowed layers capped at their window;
- a quantized model's weights are parameters × bits / 8 bytes (4-bit: half a byte), plus
  the per-group scales the format stores (``engine.dtypes.FORMATS``: AWQ/GPTQ with groups
  of 128 spend ~0.25 bit a weight on them, AWQ paper, Lin et al. 2024, §4), so 70B at
  4 bits is 70e9 × 0.5 B = 35 GB before scales, KV cache and the runtime;
- a full fine-tune with mixed-precision AdamW keeps 16 bytes per parameter: 2 weights,
  2 gradients, 12 optimizer (FP32 master + two moments) (ZeRO, Rajbhandari et al. 2020,
  §3.1), activations on top; serving keeps 2 bytes per parameter in BF16, ~0.53 at 4-bit.
"""

from __future__ import annotations

import math

from gpu_advisor.engine.concepts.base import (
    HEADROOM,
    TYPICAL_CONTEXT,
    TYPICAL_USERS,
    Asked,
    Concept,
    Facts,
    model_of,
)
from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.memory import kv_bytes_per_sequence, kv_bytes_per_token, model_weight_bytes
from gpu_advisor.engine.specs import Knowledge

GB = 1e9
FULL_BYTES_PER_PARAM = 16  # mixed-precision AdamW (ZeRO §3.1)
OPTIMIZER_BYTES_PER_PARAM = 12  # FP32 master weights 4 + Adam m 4 + v 4 (ZeRO §3.1, "K = 12")
BIG_CARD = "a100-80g-sxm"  # the largest common training card in the catalog's generation


def _model_facts(kb: Knowledge, asked: Asked) -> tuple[Facts, float]:
    arch, typical = model_of(kb, asked)
    return {"model": arch.name, "typical": float(typical), "params_b": round(arch.params_b, 1)}, arch.params_b


def _kv(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    context = asked.context_len or TYPICAL_CONTEXT
    users = asked.concurrency or TYPICAL_USERS
    seq = kv_bytes_per_sequence(arch, "bf16", context)
    return {
        "model": arch.name,
        "typical": float(typical),
        "kb_per_token": round(kv_bytes_per_token(arch, "bf16") / 1e3),
        "context": context,
        "context_typical": float(asked.context_len is None),
        "users": users,
        "users_typical": float(asked.concurrency is None),
        "per_seq_gb": round(seq / GB, 2),
        "total_gb": round(seq * users / GB, 1),
        "fp8_total_gb": round(seq * users / 2 / GB, 1),
        "weights_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
    }


def _breakdown(kb: Knowledge, asked: Asked) -> Facts:
    facts, p = _model_facts(kb, asked)
    arch, _ = model_of(kb, asked)
    return {
        **facts,
        "weights_gb": round(2 * p, 1),
        "grads_gb": round(2 * p, 1),
        "optim_gb": round(OPTIMIZER_BYTES_PER_PARAM * p, 1),
        "train_gb": round(FULL_BYTES_PER_PARAM * p, 1),
        "int4_gb": round(model_weight_bytes(arch, "awq") / GB, 1),
        "kv_kb": round(kv_bytes_per_token(arch, "bf16") / 1e3),
    }


def _multi_card(kb: Knowledge, asked: Asked) -> Facts:
    facts, p = _model_facts(kb, asked)
    arch, _ = model_of(kb, asked)
    card = kb.gpus[BIG_CARD]
    full_gb = FULL_BYTES_PER_PARAM * p
    qlora_gb = model_weight_bytes(arch, "nf4") / GB
    return {
        **facts,
        "full_gb": round(full_gb),
        "card_gb": card.memory_gb,
        "cards": max(1, math.ceil(full_gb / card.memory_gb)),
        "one_card_full_b": round(card.memory_gb / FULL_BYTES_PER_PARAM, 1),
        "qlora_gb": round(qlora_gb, 1),
    }


def _needed(kb: Knowledge, asked: Asked) -> Facts:
    """Memory to serve the model in three formats (weights plus the KV cache of the asked or a
    typical load) and to fine-tune it three ways (weights, gradients, optimizer state)."""
    facts, p = _model_facts(kb, asked)
    arch, _ = model_of(kb, asked)
    context = asked.context_len or TYPICAL_CONTEXT
    users = asked.concurrency or 1
    kv = kv_bytes_per_sequence(arch, "bf16", context) * users
    serve = {f: (model_weight_bytes(arch, f) + kv) / GB for f in ("bf16", "int8", "awq")}
    return {
        **facts,
        "context": context,
        "users": users,
        "bf16_gb": round(serve["bf16"], 1),
        "int8_gb": round(serve["int8"], 1),
        "int4_gb": round(serve["awq"], 1),
        "full_gb": round(FULL_BYTES_PER_PARAM * p),
        "lora_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "qlora_gb": round(model_weight_bytes(arch, "nf4") / GB, 1),
    }


QUANT_DEFAULT = "awq"  # "quantization" without a width: the 4-bit formats people mean first
BF16_BYTES = 2.0


def _quantized_fit(kb: Knowledge, asked: Asked) -> Facts:
    """Why a model in a format takes the memory it does (quantized to fit a card, or 16-bit):
    parameters × nominal bytes, the stored size with its scales, against the card's memory
    the question named (or its named card's); a 4-bit format when the question names none.

    The size is the one the user wrote (70B is 70e9 parameters in the arithmetic they can
    check), the stored figure the engine's own for the model's shape. ``note`` names the
    line said after the answer: ``quant_fits`` / ``quant_short`` against a card named, none
    without one.
    """
    arch, typical = model_of(kb, asked)
    named = asked.weight_dtype
    fmt = named if named is not None and named in FORMATS else QUANT_DEFAULT
    params_b = asked.params_b or arch.params_b
    nominal_bits = int(FORMATS[fmt].bits)  # 4.25 bits stored is a "4-bit" format by name
    weights_gb = params_b * nominal_bits / 8
    stored_gb = model_weight_bytes(arch, fmt) / GB * (params_b / arch.params_b)
    card_gb = asked.memory_gb or (kb.gpus[asked.gpu].memory_gb if asked.gpu in kb.gpus else 0.0)
    note = "" if not card_gb else ("quant_fits" if stored_gb * HEADROOM <= card_gb else "quant_short")
    return {
        "note": note,
        "model": arch.name,
        "typical": float(typical),
        "params_b": round(params_b, 1),
        "bits": nominal_bits,
        "bytes_per_param": nominal_bits / 8,
        "weights_gb": round(weights_gb, 1),
        "stored_gb": round(stored_gb, 1),
        "bf16_gb": round(params_b * BF16_BYTES, 1),
        "ratio": round(16 / nominal_bits, 1),
        "card_gb": round(card_gb),
        "left_gb": round(card_gb - stored_gb, 1),
    }


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="quantized_fit",
        facts=_quantized_fit,
    ),
    Concept(
        id="lora_vs_qlora",
        facts=_needed,
    ),
    Concept(
        id="memory_needed",
        facts=_needed,
    ),
    Concept(
        id="kv_cache_meaning",
        facts=_kv,
    ),
    Concept(
        id="kv_cache_size",
        facts=_kv,
    ),
    Concept(
        id="memory_breakdown",
        facts=_breakdown,
    ),
    Concept(
        id="multi_card_training",
        facts=_multi_card,
    ),
)
