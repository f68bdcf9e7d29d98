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
    GAP,
    SERVE,
    TRAIN,
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


_KV = r"(kv ?cache|kv ?缓存|kv缓存|kv ?快取|\bkv\b|键值缓存)"
# "要多少显存，用什么卡？" asks for a plan, not the memory figures alone
_NOT_WHICH_CARD = r"^(?!.*(用什么卡|什么卡|哪张卡|哪种卡|什么配置|which (card|gpu)|what (card|gpu)|rent)).*"
_MEM = r"(显存|内存|vram|memory|gpu mem)"

_AND_OR = r"(和|与|跟|还是|vs\.?|versus|or|and)"
_LORA_PAIR = rf"(q-?lora{GAP}{_AND_OR}{GAP}(?<!q)lora|(?<!q)lora{GAP}{_AND_OR}{GAP}q-?lora)"

CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="lora_vs_qlora",
        triggers=(
            rf"{_LORA_PAIR}{GAP}(区别|差别|差在|不同|不一样|哪个|哪种|选|differ|difference|which|better|choose)",
            rf"(区别|差别|difference|differ|选|choose|pick){GAP}{_LORA_PAIR}",
        ),
        facts=_needed,
        examples=(
            "LoRA 和 QLoRA 有什么区别",
            "lora vs qlora, which should I use?",
            "QLoRA 跟 LoRA 差在哪",
        ),
    ),
    Concept(
        id="memory_needed",
        triggers=tuple(
            _NOT_WHICH_CARD + t
            for t in (
                rf"(多大|多少|几)\s*+(g|gb|个g)?\s*+{_MEM}",
                rf"{_MEM}{GAP}(要|需要|得|占)?{GAP}(多大|多少|几\s*+g)",
                rf"how much {_MEM}",
                rf"{_MEM}{GAP}(do (i|we|you) need|needed|requirements?|required|to (run|serve|host|train))",
                r"(vram|memory) (for|to run) ",
            )
        ),
        facts=_needed,
        examples=(
            "how much vram for qwen2.5 32b?",
            "7b模型推理要多大显存",
            "微調 14B 需要多少顯存？",
        ),
    ),
    Concept(
        id="kv_cache_meaning",
        triggers=(
            rf"(什么是|啥是|何为){GAP}{_KV}",
            rf"{_KV}{GAP}(是什么|是啥|是个啥|什么意思|啥意思|干嘛的|干什么的|有什么用|有啥用)",
            rf"(what(?:'s| is| are)|explain|meaning of){GAP}{_KV}",
        ),
        facts=_kv,
        examples=(
            "KV cache 是什么？",
            "what is the KV cache and why does it matter?",
            "什麼是 KV 快取",
        ),
    ),
    Concept(
        id="kv_cache_size",
        triggers=(
            rf"{_KV}{GAP}(多少|多大|how (much|big|many)|size|占|需要|要|take|need|eat|grow|怎么算|估)",
            rf"(多少|多大|how (much|big)|估算|calculat){GAP}{_KV}",
            rf"{_KV}{GAP}(上下文|context|users?|并发|concurren)",
        ),
        facts=_kv,
        examples=(
            "Llama 3 8B 在 32k 上下文、20 个并发下 KV cache 要多少显存？",
            "how much KV cache does a 70B need at 8k context for 10 users?",
            "KV cache 會佔多少顯存",
        ),
    ),
    Concept(
        id="memory_breakdown",
        triggers=(
            rf"{_MEM}{GAP}(被|都|主要)?{GAP}(什么|啥|哪些|哪里|哪儿)(东西|部分)?{GAP}(占|吃|用|花)",
            rf"{_MEM}{GAP}(占用|组成|构成|分布|开销|花在|用在|去哪)",
            rf"{TRAIN}{GAP}{_MEM}{GAP}(由什么|由哪些|包括|组成|构成|哪些部分|哪几部分|什么东西|哪些东西)",
            rf"(what|which things?){GAP}(eats?|takes?|uses?|fills?|consumes?|goes into){GAP}(gpu|vram|mem)",
            rf"(memory|vram){GAP}(breakdown|made of|goes|consist|components?|split)",
            rf"(梯度|优化器状态|optimizer states?|gradients?){GAP}(激活|activations?){GAP}({_KV}|{SERVE})",
        ),
        facts=_breakdown,
        examples=(
            "训练和推理的显存都花在什么地方？",
            "what takes GPU memory in training vs inference?",
            "訓練時顯存由哪些部分組成",
        ),
    ),
    Concept(
        id="multi_card_training",
        triggers=(
            rf"{TRAIN}{GAP}(一定|必须|非得|必需|得|需要|要){GAP}(多卡|多张卡|多块|几张卡|多个gpu|多gpu)",
            rf"(多卡|多张卡){GAP}(才能|才可以){GAP}{TRAIN}",
            rf"(单卡|一张卡|单张){GAP}(能|可以|够){GAP}{TRAIN}{GAP}(吗|么|嘛)",
            rf"(need|require|must|have to){GAP}(multiple|several|many|multi-?)\s?(gpus?|cards?){GAP}{TRAIN}",
            rf"{TRAIN}{GAP}(need|require|must){GAP}(multiple|several|many|multi-?)\s?(gpus?|cards?)",
            rf"(need|require|must|have to){GAP}{TRAIN}{GAP}(multiple|several|many|multi-?)\s?(gpus?|cards?)",
            rf"(single|one) (gpu|card){GAP}enough{GAP}{TRAIN}",
        ),
        facts=_multi_card,
        examples=(
            "训练一定要多卡吗？",
            "do I need multiple GPUs to fine-tune a 13B?",
            "訓練非得多卡嗎",
        ),
    ),
)
