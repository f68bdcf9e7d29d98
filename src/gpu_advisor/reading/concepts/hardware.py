"""How the concept questions of ``engine.concepts.hardware`` are heard: triggers and examples.

Moved from the engine (issue 42): the engine keeps each concept's facts, the reading hears
the question. Patterns are linear (short lazy gaps between anchors).
"""

from __future__ import annotations

from gpu_advisor.reading.concepts.words import GAP, SERVE, TRAIN

_T4 = r"(?<![a-z0-9])t4(?![0-9])"
_3090 = r"(?<![0-9])3090(?![0-9])"
_PREC = r"(fp32|tf32|bf16|fp16|fp8|fp4|int8|int4|4-?bit|8-?bit)"
_SMALL_CARD_TRAIN = (
    rf"{_T4}{GAP}{TRAIN}",
    rf"{TRAIN}{GAP}{_T4}",
    rf"(只有|就有|手上|手里|\bonly\b|\bjust\b)\s?(一张|一块|单张|\bone\b|a single|\ba\b){GAP}{TRAIN}",
    rf"(小卡|消费级|游戏卡|small (gpu|card)|consumer (gpu|card)|gaming (gpu|card)){GAP}{TRAIN}",
    rf"(用|拿)?(推理卡|推理机)(能|可以|来|去|拿来|用来){GAP}{TRAIN}",
    rf"(用|拿)(推理卡|推理机){GAP}{TRAIN}",
    rf"(use|using|on|with) (an? |the |my )?(inference|serving) (card|gpu|box|server){GAP}{TRAIN}",
)
_CONSUMER = r"4090|3090|5090|消费级|游戏卡|geforce|consumer"
_MULTI = r"(多卡|多张|多机|8 ?卡|八卡|分布式|multi-?gpu|multi-?card|multiple gpus|several gpus|\d ?x|scal)"

_WHAT_IS = r"(什么是|啥是|what(?:'s| is| are)|explain)"
_MEANS = r"(是什么|是啥|什么意思|有什么用|\bmeans?\b)"
_MIG = r"(?<![a-z0-9])mig(?![a-z0-9])"
_SLICE = (
    r"(切片|切分|分片|半张卡|半块卡|一部分(显卡|gpu|算力)|vgpu|slices?|fraction|partition"
    r"|part of (a|an|the|one) (gpu|card)|half (a |an |the )?(gpu|card|a100|h100|h200))"
)
_RENT = r"(租|买|用|rent|buy|get|pay for|order)"

TRIGGERS: dict[str, tuple[str, ...]] = {
    "mig_slices": (
        rf"{_MIG}{GAP}(是什么|是啥|什么意思|啥意思|怎么回事|干嘛的|有什么用|原理|\bmean)",
        rf"(什么是|啥是|what(?:'s| is| are)|explain|meaning of|how does){GAP}{_MIG}",
        rf"{_MIG}{GAP}(租|rent|价格|多少钱|price|cost)",
        rf"{_RENT}{GAP}{_SLICE}",
        rf"{_SLICE}{GAP}(租|rent|卖|sell|offer|多少钱|价格|price|cost)",
        rf"(显卡|gpu|card|a100|h100){GAP}(切|分|split|share|shar|divid){GAP}(多人|几份|成|into|between|among|users?|用)",
    ),
    "pcie_vs_sxm_training": (
        rf"pcie{GAP}(sxm|nvlink|nvswitch){GAP}({TRAIN}|{_MULTI}|差|区别|gap|differ|faster|slower)",
        rf"(sxm|nvlink|nvswitch){GAP}pcie{GAP}({TRAIN}|{_MULTI}|差|区别|gap|differ|faster|slower)",
        rf"({TRAIN}|{_MULTI}){GAP}pcie{GAP}(sxm|nvlink|nvswitch)",
        rf"({TRAIN}|{_MULTI}){GAP}(sxm|nvlink|nvswitch){GAP}pcie",
        # "为什么 4090 不适合多卡训练": a PCIe consumer card's link is the reason
        rf"({_CONSUMER}){GAP}(不适合|不行|不能|不好|不推荐|适合吗|行吗){GAP}{_MULTI}{GAP}{TRAIN}",
        rf"({_CONSUMER}){GAP}(bad|not good|unsuitable|not suitable|poor){GAP}{_MULTI}?{GAP}{TRAIN}",
    ),
    "t4_or_3090_for_serving": (rf"{_T4}{GAP}{_3090}", rf"{_3090}{GAP}{_T4}"),
    "t4_training": _SMALL_CARD_TRAIN,
    "nvlink_for_inference": (
        rf"(什么是|啥是|what(?:'s| is)|explain){GAP}(nvlink|nvswitch)",
        rf"(nvlink|nvswitch){GAP}(是什么|是啥|什么意思|有什么用|干嘛的|\bmean)",
        rf"(nvlink|nvswitch){GAP}{SERVE}",
        rf"{SERVE}{GAP}(nvlink|nvswitch)",
        rf"(什么是|啥是|what(?:'s| is)|explain){GAP}(张量并行|tensor[\s-]?parallel)",
        rf"(张量并行|tensor[\s-]?parallel(?:ism)?){GAP}(是什么|是啥|什么意思|怎么回事|mean)",
    ),
    "precision_choice": (
        rf"{_WHAT_IS}{GAP}(fp8|fp16|bf16|tf32|fp4|tflops|\btops\b|算力)(?![a-z0-9])",
        rf"(fp8|bf16|tf32|fp4|tflops){GAP}(是什么|是啥|什么意思|\bmeans?\b)",
        r"算力是什么|什么是算力",
        rf"(精度|precision|fp32|tf32|bf16|fp16|fp8|int8|int4){GAP}{TRAIN}{GAP}{SERVE}",
        rf"{TRAIN}{GAP}(精度|precision|fp32|tf32|bf16|fp16|fp8){GAP}{SERVE}",
        rf"{TRAIN}{GAP}{SERVE}{GAP}(精度|precision)",
        rf"{TRAIN}{GAP}(用|use){GAP}(精度|precision)",
        rf"(哪种|什么|which|what){GAP}(精度|precision)",
        rf"({TRAIN}|{SERVE}){GAP}{_PREC}{GAP}(还是|或者|或|\bor\b|\bvs\b){GAP}{_PREC}",
        rf"(精度|precision){GAP}(选|用|pick|choose|use|should)",
        rf"{_PREC}{GAP}(和|与|跟|还是|vs\.?|versus|or){GAP}{_PREC}{GAP}(哪个|哪种|区别|差别|好|which|better|differ)",
    ),
    "slow_inference_cause": (
        rf"(什么是|啥是|what(?:'s| is)|explain|why (does|is)){GAP}(hbm|memory bandwidth|显存带宽)",
        rf"(hbm|显存带宽|memory bandwidth){GAP}({_MEANS}|为什么重要|重要吗|matters?)",
        rf"(慢|slow|sluggish|laggy|卡顿){GAP}(带宽|bandwidth|软件|software|框架|stack|显卡|card|gpu)",
        rf"(带宽|bandwidth|显卡|card|gpu){GAP}(还是|or){GAP}(软件|software|框架|stack)",
        rf"(显存|vram|memory|fits?|装得下|放得下|够){GAP}(但|可是|还是|却|but|still){GAP}(慢|slow)",
        rf"(为什么|为啥|why|原因){GAP}(推理|生成|出字|token|generation|inference){GAP}(慢|slow)",
        rf"(推理|生成|出字|generation|inference|decod){GAP}(慢|slow){GAP}(为什么|为啥|why|原因|怎么办|what)",
    ),
}
EXAMPLES: dict[str, tuple[str, ...]] = {
    "mig_slices": (
        "MIG 是什么？能只租一块切片吗",
        "what is MIG, and can I pay for only part of a GPU?",
        "MIG 切片怎麼租，多少錢",
    ),
    "pcie_vs_sxm_training": (
        "多卡训练 PCIe 版和 SXM 版差多少？",
        "PCIe vs SXM for 8-GPU training, how big is the difference?",
        "多卡訓練用 PCIe 還是 NVLink",
        "为什么 4090 不适合多卡训练",
    ),
    "t4_or_3090_for_serving": ("T4 还是 3090 适合做推理？", "T4 or 3090 for serving?", "推理用 3090 還是 T4"),
    "t4_training": (
        "一张 T4 能训练吗？",
        "can a T4 train anything?",
        "T4 適合訓練嗎",
        "我只有一张 4090，能训练吗",
    ),
    "nvlink_for_inference": (
        "NVLink 对推理有帮助吗？",
        "does NVLink help inference?",
        "推理需要 NVLink 嗎",
        "what is NVLink and do I need it?",
    ),
    "precision_choice": (
        "训练和推理分别用什么精度？",
        "which precision for training and which for inference?",
        "訓練用 BF16 還是 FP32？推理用 INT8 嗎",
        "什么是 FP8，推理能用吗",
    ),
    "slow_inference_cause": (
        "推理很慢，是显卡带宽的问题还是软件的问题？",
        "is slow inference the card's bandwidth or the software stack?",
        "显存够了但推理还是慢，为什么？",
        "HBM 是什么，为什么重要",
    ),
}
