"""How the concept questions of ``engine.concepts.sizing`` are heard: triggers and examples.

Moved from the engine (issue 42): the engine keeps each concept's facts, the reading hears
the question. Patterns are linear (short lazy gaps between anchors).
"""

from __future__ import annotations

import re

from gpu_advisor.reading.concepts.words import GAP, SERVE, TRAIN
from gpu_advisor.text.lazy import lazy

_KV = r"(kv ?cache|kv ?缓存|kv缓存|kv ?快取|\bkv\b|键值缓存)"
# "要多少显存，用什么卡？" asks for a plan, not the memory figures alone
_NOT_WHICH_CARD = r"^(?!.*(用什么卡|什么卡|哪张卡|哪种卡|什么配置|which (card|gpu)|what (card|gpu)|rent)).*"
_MEM = r"(显存|内存|vram|memory|gpu mem)"
_AND_OR = r"(和|与|跟|还是|vs\.?|versus|or|and)"
_LORA_PAIR = rf"(q-?lora{GAP}{_AND_OR}{GAP}(?<!q)lora|(?<!q)lora{GAP}{_AND_OR}{GAP}q-?lora)"

_QUANT = (
    r"(量化|quantiz|quantis|\d-?bit|\d ?位|\bint[48]\b|\bfp[48]\b"
    r"|\bawq\b|\bgptq\b|\bgguf\b|\bq[48]\b|\bnf4\b)"
)
_FITS = (
    r"(fits?|fitting|放得下|放下|装得下|装下|塞进|塞得进|塞得下|塞下|放进|放得进|装进|装得进"
    r"|跑得动|能跑|跑得起来|squeez|run on|load on"
    r"|省显存|省下|少占|变小|smaller|saves?|cut|shrink)"
)
_WHY = r"(为什么|为啥|为何|怎么做到|怎么就|凭什么|原理|怎么算|\bwhy\b|how come|how (does|do|can|is)|explain)"
# "要多少显存" alone asks for the figures (memory_needed); a reason with a format asks this
_SAVES = rf"{_QUANT}{GAP}(省|节省|save|saves|reduce|cut){GAP}(多少|how much)"
# "why does a 7B need 14GB in fp16", "为什么 int8 后 13B 只要 13G": the bytes-per-weight sum
_REASON = r"(为什么|为啥|为何|凭什么|原理|\bwhy\b|how come|explain)"  # a reason asked, not a "how do I"
_FORMAT = rf"({_QUANT[1:-1]}|\bfp16\b|\bbf16\b|\bfp32\b|半精度|全精度)"
_NEEDS = r"(要|需要|占|只要|只占|只需|\bneeds?\b|\btakes?\b|\buses?\b|\bhalves?\b|减半|减少)"
_MEMORY = r"(显存|内存|memory|vram|(?<![\d.])\d{1,3} ?(gb|g)(?![a-z]))"
_PER_PARAM = r"\d(\.\d+)? ?(bytes?|字节) ?(per|每个?|/) ?(param|参数|weight|权重)"

TRIGGERS: dict[str, tuple[str, ...]] = {
    "quantized_fit": (
        rf"{_WHY}{GAP}{_QUANT}{GAP}{_FITS}",
        rf"{_QUANT}{GAP}{_WHY}{GAP}{_FITS}",
        rf"{_WHY}{GAP}{_FITS}{GAP}{_QUANT}",
        rf"{_QUANT}{GAP}{_FITS}{GAP}{_WHY}",
        _SAVES,
        rf"{_REASON}{GAP}{_FORMAT}{GAP}{_NEEDS}{GAP}{_MEMORY}",
        rf"{_REASON}{GAP}{_NEEDS}{GAP}{_MEMORY}{GAP}{_FORMAT}",
        rf"{_REASON}{GAP}{_FORMAT}{GAP}{_MEMORY}",
        rf"({_REASON}|what|什么|是不是){GAP}{_PER_PARAM}",
        rf"{_PER_PARAM}{GAP}({_REASON}|什么意思|mean)",
    ),
    "lora_vs_qlora": (
        rf"{_LORA_PAIR}{GAP}(区别|差别|差在|不同|不一样|哪个|哪种|选|differ|difference|which|better|choose)",
        rf"(区别|差别|difference|differ|选|choose|pick){GAP}{_LORA_PAIR}",
    ),
    "memory_needed": tuple(
        _NOT_WHICH_CARD + t
        for t in (
            rf"(多大|多少|几)\s*+(g|gb|个g)?\s*+{_MEM}",
            rf"{_MEM}{GAP}(要|需要|得|占)?{GAP}(多大|多少|几\s*+g)",
            rf"how much {_MEM}",
            rf"{_MEM}{GAP}(do (i|we|you) need|needed|requirements?|required|to (run|serve|host|train))",
            r"(vram|memory) (for|to run) ",
        )
    ),
    "kv_cache_meaning": (
        rf"(什么是|啥是|何为){GAP}{_KV}",
        rf"{_KV}{GAP}(是什么|是啥|是个啥|什么意思|啥意思|干嘛的|干什么的|有什么用|有啥用)",
        rf"(what(?:'s| is| are)|explain|meaning of){GAP}{_KV}",
    ),
    "kv_cache_size": (
        rf"{_KV}{GAP}(多少|多大|how (much|big|many)|size|占|需要|要|take|need|eat|grow|怎么算|估)",
        rf"(多少|多大|how (much|big)|估算|calculat){GAP}{_KV}",
        rf"{_KV}{GAP}(上下文|context|users?|并发|concurren)",
    ),
    "memory_breakdown": (
        rf"{_MEM}{GAP}(被|都|主要)?{GAP}(什么|啥|哪些|哪里|哪儿)(东西|部分)?{GAP}(占|吃|用|花)",
        rf"{_MEM}{GAP}(占用|组成|构成|分布|开销|花在|用在|去哪)",
        rf"{TRAIN}{GAP}{_MEM}{GAP}(由什么|由哪些|包括|组成|构成|哪些部分|哪几部分|什么东西|哪些东西)",
        rf"(what|which things?){GAP}(eats?|takes?|uses?|fills?|consumes?|goes into){GAP}(gpu|vram|mem)",
        rf"(memory|vram){GAP}(breakdown|made of|goes|consist|components?|split)",
        rf"(梯度|优化器状态|optimizer states?|gradients?){GAP}(激活|activations?){GAP}({_KV}|{SERVE})",
    ),
    "multi_card_training": (
        rf"{TRAIN}{GAP}(一定|必须|非得|必需|得|需要|要){GAP}(多卡|多张卡|多块|几张卡|多个gpu|多gpu)",
        rf"(多卡|多张卡){GAP}(才能|才可以){GAP}{TRAIN}",
        rf"(单卡|一张卡|单张){GAP}(能|可以|够){GAP}{TRAIN}{GAP}(吗|么|嘛)",
        rf"(need|require|must|have to){GAP}(multiple|several|many|multi-?)\s?(gpus?|cards?){GAP}{TRAIN}",
        rf"{TRAIN}{GAP}(need|require|must){GAP}(multiple|several|many|multi-?)\s?(gpus?|cards?)",
        rf"(need|require|must|have to){GAP}{TRAIN}{GAP}(multiple|several|many|multi-?)\s?(gpus?|cards?)",
        rf"(single|one) (gpu|card){GAP}enough{GAP}{TRAIN}",
    ),
}
EXAMPLES: dict[str, tuple[str, ...]] = {
    "quantized_fit": (
        "为什么 int4 量化以后 70B 能放进 48G 显存？",
        "how come a 4-bit 32B model fits on a 24GB card?",
        "8-bit 量化能省多少显存",
        "為什麼量化後 70B 塞得進兩張 24G",
    ),
    "lora_vs_qlora": (
        "LoRA 和 QLoRA 有什么区别",
        "lora vs qlora, which should I use?",
        "QLoRA 跟 LoRA 差在哪",
    ),
    "memory_needed": (
        "how much vram for qwen2.5 32b?",
        "7b模型推理要多大显存",
        "微調 14B 需要多少顯存？",
    ),
    "kv_cache_meaning": (
        "KV cache 是什么？",
        "what is the KV cache and why does it matter?",
        "什麼是 KV 快取",
    ),
    "kv_cache_size": (
        "Llama 3 8B 在 32k 上下文、20 个并发下 KV cache 要多少显存？",
        "how much KV cache does a 70B need at 8k context for 10 users?",
        "KV cache 會佔多少顯存",
    ),
    "memory_breakdown": (
        "训练和推理的显存都花在什么地方？",
        "what takes GPU memory in training vs inference?",
        "訓練時顯存由哪些部分組成",
    ),
    "multi_card_training": (
        "训练一定要多卡吗？",
        "do I need multiple GPUs to fine-tune a 13B?",
        "訓練非得多卡嗎",
    ),
}

_COUNT_WORDS = {"一": 1, "单": 1, "两": 2, "二": 2, "三": 3, "四": 4, "八": 8}
# A memory to fit on: after "on/in/into/放进/塞进…" or before "卡/card/gpu/上" ("需要 14GB"
# is a need, never a card)
_CARD_MEMORY = lazy(
    r"(?:(?:\b(?:on|in|into|onto|to)\b|放进|塞进|装进|放得进|塞得进|装得进|放在|用)\s*"
    r"(?:an?\s+|one\s+|a single\s+|一张\s*|单张\s*)?"
    r"(?:(?P<n>\d|[一单两二三四八])\s*(?:x|×|\*|张|块|cards? of|gpus? of)\s*)?"
    r"(?<![\d.])(?P<gb>\d{1,3})\s*(?:gb|gib|g)(?![a-z]))"
    r"|(?:(?:(?P<n2>\d|[一单两二三四八])\s*(?:x|×|\*|张|块)\s*)?"
    r"(?<![\d.])(?P<gb2>\d{1,3})\s*(?:gb|gib|g)(?![a-z])\s*(?:的\s*)?(?:显卡|卡|cards?|gpus?|上))"
)


def memory_named(text: str) -> float | None:
    """The card memory a (normalised) question names, in GB: "48gb" → 48, "两张 24g" → 48.

    The figure a quantization question is about ("why does 4-bit let a 70B fit on 48GB");
    sizes in B ("70b") are parameters, never memory. The last figure written wins (a
    question names the model first, then what it should fit on).
    """
    found: re.Match[str] | None = None
    for match in _CARD_MEMORY.finditer(text):
        found = match
    if found is None:
        return None
    count = found.group("n") or found.group("n2")
    cards = int(count) if count and count.isdigit() else _COUNT_WORDS.get(count or "", 1)
    return float(int(found.group("gb") or found.group("gb2")) * cards)
