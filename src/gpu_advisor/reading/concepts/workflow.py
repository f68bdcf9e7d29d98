"""How the concept questions of ``engine.concepts.workflow`` are heard: triggers and examples.

Moved from the engine (issue 42): the engine keeps each concept's facts, the reading hears
the question. Patterns are linear (short lazy gaps between anchors).
"""

from __future__ import annotations

from gpu_advisor.reading.concepts.words import GAP, SERVE, TRAIN

_ONE_BOX = r"(同一|一台|一起|共用|合用|兼用|一套|same|(one|single) (machine|box|server)|together)"
_APART = r"(分开|分离|分家|区分|两套|不同|不一样|区别|差别|differ|separate|apart|split|distinct)"
_BOX = r"(机器|服务器|机|卡|box|server|machine|node|card|gpu|cluster|集群)"
_SUFFIX = r"\w{0,8}\s?"  # a word's tail before the noun ("training box", "训练用的机")
_WIDE_GAP = r".{0,40}?"
_KEEP = r"(留着|保留|继续|接着|顺便|顺带|兼职|直接|拿来|当|keep|reuse|re-use|repurpose|leave|around)"
_MOVE = r"(迁移|转到|转移|搬到|搬|挪|部署到|放到|上线|导出|export|move|migrat|transfer|port|ship|deploy|get)"
_RUNTIMES = r"(vllm|tensorrt|trt-?llm|sglang|llama\.?cpp|ollama|tgi|triton|lmdeploy|exllama)"

_WHAT_IS = r"(什么是|啥是|何为|what(?:'s| is| are| does)|explain|meaning of)"
_MEANS = r"(是什么|是啥|什么意思|啥意思|怎么回事|有什么用|\bmeans?\b)"
_STACK_WORDS = r"(continuous batching|连续批处理|paged ?attention|vllm|sglang|tensorrt-?llm|llama\.cpp)"
_FORMATS = r"(\bgguf\b|\bawq\b|\bgptq\b|\bexl2\b|\bbitsandbytes\b|\bnf4\b)"

TRIGGERS: dict[str, tuple[str, ...]] = {
    "keep_training_box": (
        rf"{TRAIN}{GAP}(完|好|结束|done|finish|after){GAP}{_KEEP}{GAP}{SERVE}",
        rf"{TRAIN}(机|服务器|box|server|machine|node|rig|cluster){GAP}{_KEEP}{GAP}{SERVE}",
        rf"{_KEEP}{GAP}{TRAIN}{_SUFFIX}(机|服务器|box|server|machine|node|rig|cluster){GAP}{SERVE}",
        rf"{TRAIN}(机|服务器|box|server|machine){GAP}(闲置|空闲|空转|idle|sits? idle)",
        rf"(用|拿|use|using){GAP}{TRAIN}{_SUFFIX}(机|服务器|整机|集群|box|server|cluster|rig){GAP}(跑|做|当|for|to){GAP}{SERVE}",
    ),
    "train_to_serve": (
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
    "serving_stack": (
        rf"{_RUNTIMES}{GAP}(还是|和|跟|与|vs|or|versus|对比|比较|区别|哪个|which|compare|better)",
        rf"(推理|serving|inference){GAP}(框架|引擎|软件|stack|runtime|engine|framework)",
        rf"(框架|引擎|runtime|engine|framework){GAP}(推理|serv|infer)",
        r"\bptq\b|\bqat\b|训练后量化|量化感知",
        # "what is continuous batching", "PagedAttention 是什么": the serving stack's own words
        rf"{_WHAT_IS}{GAP}{_STACK_WORDS}",
        rf"{_STACK_WORDS}\s?{_MEANS}",
        rf"{_FORMATS}{GAP}(和|与|跟|还是|vs\.?|versus|or|and){GAP}{_FORMATS}{GAP}(区别|差别|不同|哪个|difference|differ|which|better)",
        rf"(区别|差别|difference|differ){GAP}{_FORMATS}{GAP}(和|与|跟|还是|vs\.?|versus|or|and){GAP}{_FORMATS}",
    ),
    "split_budget": (
        rf"(预算|budget|钱|money|funds){GAP}{TRAIN}{GAP}{SERVE}",
        rf"{TRAIN}{GAP}{SERVE}{GAP}(预算|budget|分配|split|折中|兼顾|trade|balance|allocat|怎么分|如何分|divide)",
        rf"(balance|allocat|divide|trade.?off|兼顾|折中|分配)\w{{0,8}}\s?(between )?{TRAIN}{GAP}{SERVE}",
        rf"(一台|one){GAP}(机器|machine|box|server){GAP}(预算|budget){GAP}({TRAIN}|{SERVE})",
        rf"(预算|budget){GAP}(一台|one|single){GAP}(机器|machine|box|server){GAP}({TRAIN}|{SERVE})",
    ),
    "train_and_serve_apart": (
        rf"{TRAIN}{GAP}{SERVE}{GAP}{_ONE_BOX}",
        rf"{_ONE_BOX}{GAP}{TRAIN}{GAP}{SERVE}",
        rf"{TRAIN}{GAP}{SERVE}{_WIDE_GAP}{_APART}",
        rf"{TRAIN}{_BOX}{GAP}{SERVE}{_BOX}{GAP}{_APART}",
        rf"{_APART}{GAP}{TRAIN}{GAP}{SERVE}",
    ),
}
EXAMPLES: dict[str, tuple[str, ...]] = {
    "keep_training_box": (
        "训练完了，训练机要不要留着做推理？",
        "should I keep the training box for serving once training is done?",
        "訓練機訓完可以繼續當推理機嗎",
    ),
    "train_to_serve": (
        "训练完的模型怎么迁移到推理机上？",
        "how do I move a fine-tuned model from the training box to the serving box?",
        "訓練完的模型怎麼導出到推理機",
    ),
    "serving_stack": (
        "推理框架用 vLLM 还是 TensorRT-LLM？",
        "which serving stack: vllm, sglang or llama.cpp?",
        "PTQ 和 QAT 有什麼區別",
        "what is continuous batching?",
        "GGUF 和 AWQ 有什么区别",
    ),
    "split_budget": (
        "一台机器的预算怎么分配给训练和推理？",
        "how should I split my budget between training and serving?",
        "預算有限，訓練和推理能折中嗎",
    ),
    "train_and_serve_apart": (
        "为什么不用一台机器同时训练和推理？",
        "why not train and serve on the same machine?",
        "訓練機和推理機為什麼要分開",
    ),
}
