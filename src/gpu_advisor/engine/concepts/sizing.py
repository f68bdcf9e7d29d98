"""Concepts whose core is a memory figure: KV cache, what fills memory, when training needs more cards.

Computed for the model the user named (a bare size gets a template shape,
``engine.architecture``), else for a typical 8B (``base.TYPICAL_MODEL``), and the
sentence names which. The arithmetic is the engine's own (``engine.memory``):

- KV cache per token = layers × 2 × KV heads × head dim × bytes (vLLM paper, Kwon et al.
  2023, §2.2: 800 KB per token for OPT-13B), windowed layers capped at their window;
- a full fine-tune with mixed-precision AdamW keeps 16 bytes per parameter: 2 weights,
  2 gradients, 12 optimizer (FP32 master + two moments) (ZeRO, Rajbhandari et al. 2020,
  §3.1), activations on top; serving keeps 2 bytes per parameter in BF16, ~0.53 at 4-bit.
"""

from __future__ import annotations

import math

from gpu_advisor.engine.concepts.base import (
    TYPICAL_CONTEXT,
    TYPICAL_USERS,
    Asked,
    Concept,
    Facts,
    model_of,
)
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


CONCEPTS: tuple[Concept, ...] = (
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
