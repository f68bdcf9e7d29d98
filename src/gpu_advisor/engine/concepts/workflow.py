"""The train-then-serve workflow: keep them apart, split the money, move the model, pick a runtime.

The numbers: a training box is sized ~8× bigger than the server for the same model
(16 bytes per parameter for a mixed-precision AdamW fine-tune against 2 for BF16
serving, ZeRO §3.1); serving runs 24×7 (720 hours a month) while training comes in
bursts; the catalog's prices (seed 000's vendor list) put an 8-card box against one
serving card; a quantised export shrinks the weights to the format's real bits
(``engine.dtypes``: AWQ/GPTQ ≈4.25 bits, FP8 8, GGUF Q4_K_M ≈4.85).
"""

from __future__ import annotations

from gpu_advisor.engine.concepts.base import (
    GAP,
    HEADROOM,
    SERVE,
    TRAIN,
    Asked,
    Concept,
    Facts,
    gpu_of,
    model_of,
)
from gpu_advisor.engine.concepts.hardware import price_month
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.memory import model_weight_bytes
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB

GB = 1e9
HOURS_MONTH = HOURS_PER_MONTH  # the engine's one month (``engine.cost``)
SERVING_OFFERS = ("t4-1x", "rtx3090-1x", "a100-40g-1x", "a100-40g-2x", "a100-40g-8x", "h100-sxm-8x")
"""Catalog machines a model may be served from, cheapest first (seed 000's vendor list)."""


def _sizes(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    p = arch.params_b
    return {
        "model": arch.name,
        "typical": float(typical),
        "params_b": round(p, 1),
        "train_gb": round(16 * p),
        "serve_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "hours_month": HOURS_MONTH,
    }


def serving_card(kb: Knowledge, weights_gb: float) -> tuple[str, float]:
    """The cheapest catalog machine whose cards hold ``weights_gb`` with headroom: (name, monthly price)."""
    for offer_id in SERVING_OFFERS:
        offer = next((o for o in kb.catalog.offers if o.id == offer_id), None)
        if offer is None:
            continue
        gpu = kb.gpus[offer.gpu]
        if gpu.usable_gib * offer.count * GiB / GB >= weights_gb * HEADROOM:
            name = gpu.name if offer.count == 1 else f"{offer.count}× {gpu.name}"
            return name, float(offer.price_month or 0)
    return kb.gpus["h100-sxm"].name, 0.0


def _apart(kb: Knowledge, asked: Asked) -> Facts:
    facts = _sizes(kb, asked)
    return {**facts, "ratio": round(float(facts["train_gb"]) / float(facts["serve_gb"]))}


def _split(kb: Knowledge, asked: Asked) -> Facts:
    facts = _sizes(kb, asked)
    arch, _ = model_of(kb, asked)
    card, serve_price = serving_card(kb, model_weight_bytes(arch, "awq") / GB)
    train_price = price_month(kb, "a100-40g-1x")
    return {
        **facts,
        "serve_card": card,
        "serve_price": serve_price,
        "train_price": train_price,
        "week_share": round(train_price / 4.3),  # one week of a monthly rental (~4.3 weeks a month)
        "currency": kb.catalog.currency,
    }


def _keep_box(kb: Knowledge, asked: Asked) -> Facts:
    box_id = "h100-sxm-8x" if gpu_of(kb, asked, "") in ("h100-sxm", "h800-sxm") else "a100-40g-8x"
    box = next(o for o in kb.catalog.offers if o.id == box_id)
    arch, typical = model_of(kb, asked)
    card, price = serving_card(kb, model_weight_bytes(arch, "awq") / GB)
    box_price = float(box.price_month or 0)
    return {
        "model": arch.name,
        "typical": float(typical),
        "box": f"{box.count}× {kb.gpus[box.gpu].name}",
        "box_price": box_price,
        "serve_card": card,
        "serve_price": price,
        "idle_share": (box.count - 1) / box.count,  # one replica busy, the other cards idle
        "ratio": round(box_price / price) if price else 0,
        "currency": kb.catalog.currency,
    }


def _to_serve(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    awq = model_weight_bytes(arch, "awq") / GB
    card, price = serving_card(kb, awq)
    return {
        "model": arch.name,
        "typical": float(typical),
        "bf16_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "fp8_gb": round(model_weight_bytes(arch, "fp8") / GB, 1),
        "awq_gb": round(awq, 1),
        "gguf_gb": round(model_weight_bytes(arch, "q4_k_m") / GB, 1),
        "serve_card": card,
        "serve_price": price,
        "currency": kb.catalog.currency,
    }


def _stack(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    rt = kb.runtimes
    return {
        "model": arch.name,
        "typical": float(typical),
        "vllm_batch": rt["vllm"].max_batch,
        "vllm_util": rt["vllm"].memory_utilization,
        "llama_cpp_batch": rt["llama_cpp"].max_batch,
        "bf16_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "awq_gb": round(model_weight_bytes(arch, "awq") / GB, 1),
        "gguf_gb": round(model_weight_bytes(arch, "q4_k_m") / GB, 1),
    }


_ONE_BOX = r"(同一|一台|一起|共用|合用|兼用|一套|same|(one|single) (machine|box|server)|together)"
_APART = r"(分开|分离|分家|区分|两套|不同|不一样|区别|差别|differ|separate|apart|split|distinct)"
_BOX = r"(机器|服务器|机|卡|box|server|machine|node|card|gpu|cluster|集群)"
_SUFFIX = r"\w{0,8}\s?"  # a word's tail before the noun ("training box", "训练用的机")
_WIDE_GAP = r".{0,40}?"
_KEEP = r"(留着|保留|继续|接着|顺便|顺带|兼职|直接|拿来|当|keep|reuse|re-use|repurpose|leave|around)"
_MOVE = r"(迁移|转到|转移|搬到|搬|挪|部署到|放到|上线|导出|export|move|migrat|transfer|port|ship|deploy|get)"
_RUNTIMES = r"(vllm|tensorrt|trt-?llm|sglang|llama\.?cpp|ollama|tgi|triton|lmdeploy|exllama)"

CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="keep_training_box",
        triggers=(
            rf"{TRAIN}{GAP}(完|好|结束|done|finish|after){GAP}{_KEEP}{GAP}{SERVE}",
            rf"{TRAIN}(机|服务器|box|server|machine|node|rig|cluster){GAP}{_KEEP}{GAP}{SERVE}",
            rf"{_KEEP}{GAP}{TRAIN}{_SUFFIX}(机|服务器|box|server|machine|node|rig|cluster){GAP}{SERVE}",
            rf"{TRAIN}(机|服务器|box|server|machine){GAP}(闲置|空闲|空转|idle|sits? idle)",
            rf"(用|拿|use|using){GAP}{TRAIN}{_SUFFIX}(机|服务器|整机|集群|box|server|cluster|rig){GAP}(跑|做|当|for|to){GAP}{SERVE}",
        ),
        facts=_keep_box,
        examples=(
            "训练完了，训练机要不要留着做推理？",
            "should I keep the training box for serving once training is done?",
            "訓練機訓完可以繼續當推理機嗎",
        ),
    ),
    Concept(
        id="train_to_serve",
        triggers=(
            rf"{TRAIN}(完|好|出来|后|之后|完成|过|ed){GAP}(的)?(模型|权重|model|weights|checkpoint){GAP}{_MOVE}",
            rf"(模型|权重|model|weights|lora){GAP}{TRAIN}(完|好|出来|后|之后|完成|ed){GAP}{_MOVE}",
            rf"(模型|权重|model|weights|checkpoint|lora){GAP}(从)?{GAP}{TRAIN}{_SUFFIX}(机|服务器|box|server|machine){GAP}{_MOVE}",
            rf"{_MOVE}{GAP}(模型|model|weights|lora){GAP}(到|to){GAP}{SERVE}{_SUFFIX}(机|服务器|box|server|machine|卡|card)",
            rf"(合并|merge){GAP}lora{GAP}({_MOVE}|{SERVE}|量化|quanti)",
            rf"lora{GAP}(合并|merge)",
            rf"{TRAIN}(完|好|完成|结束|之后|以后){GAP}(怎么|如何|how){GAP}{_MOVE}{GAP}{SERVE}",
            rf"(from|从){GAP}{TRAIN}{GAP}(to|到){GAP}{SERVE}",
            rf"{_MOVE}{GAP}(after|once|when){GAP}{TRAIN}",
        ),
        facts=_to_serve,
        examples=(
            "训练完的模型怎么迁移到推理机上？",
            "how do I move a fine-tuned model from the training box to the serving box?",
            "訓練完的模型怎麼導出到推理機",
        ),
    ),
    Concept(
        id="serving_stack",
        triggers=(
            rf"{_RUNTIMES}{GAP}(还是|和|跟|与|vs|or|versus|对比|比较|区别|哪个|which|compare|better)",
            rf"(推理|serving|inference){GAP}(框架|引擎|软件|stack|runtime|engine|framework)",
            rf"(框架|引擎|runtime|engine|framework){GAP}(推理|serv|infer)",
            r"\bptq\b|\bqat\b|训练后量化|量化感知",
        ),
        facts=_stack,
        examples=(
            "推理框架用 vLLM 还是 TensorRT-LLM？",
            "which serving stack: vllm, sglang or llama.cpp?",
            "PTQ 和 QAT 有什麼區別",
        ),
    ),
    Concept(
        id="split_budget",
        triggers=(
            rf"(预算|budget|钱|money|funds){GAP}{TRAIN}{GAP}{SERVE}",
            rf"{TRAIN}{GAP}{SERVE}{GAP}(预算|budget|分配|split|折中|兼顾|trade|balance|allocat|怎么分|如何分|divide)",
            rf"(balance|allocat|divide|trade.?off|兼顾|折中|分配)\w{{0,8}}\s?(between )?{TRAIN}{GAP}{SERVE}",
            rf"(一台|one){GAP}(机器|machine|box|server){GAP}(预算|budget){GAP}({TRAIN}|{SERVE})",
            rf"(预算|budget){GAP}(一台|one|single){GAP}(机器|machine|box|server){GAP}({TRAIN}|{SERVE})",
        ),
        facts=_split,
        examples=(
            "一台机器的预算怎么分配给训练和推理？",
            "how should I split my budget between training and serving?",
            "預算有限，訓練和推理能折中嗎",
        ),
    ),
    Concept(
        id="train_and_serve_apart",
        triggers=(
            rf"{TRAIN}{GAP}{SERVE}{GAP}{_ONE_BOX}",
            rf"{_ONE_BOX}{GAP}{TRAIN}{GAP}{SERVE}",
            rf"{TRAIN}{GAP}{SERVE}{_WIDE_GAP}{_APART}",
            rf"{TRAIN}{_BOX}{GAP}{SERVE}{_BOX}{GAP}{_APART}",
            rf"{_APART}{GAP}{TRAIN}{GAP}{SERVE}",
        ),
        facts=_apart,
        examples=(
            "为什么不用一台机器同时训练和推理？",
            "why not train and serve on the same machine?",
            "訓練機和推理機為什麼要分開",
        ),
    ),
)
