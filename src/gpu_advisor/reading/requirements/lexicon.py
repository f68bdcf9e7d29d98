"""Keyword tables: the words that name a task, a method, a precision, a wish to skip.

All entries are written in the normalized spelling (Simplified, lower-case, half-width)
because ``normalize`` runs first. English words are fenced by ``word()`` so "serve" does
not fire inside "server" and "train" not inside "trained" (a *trained* model is one to
deploy, not a training job); Chinese entries carry the few exclusions that matter
(服务器 is a server, 训练好的 a finished model).
"""

from __future__ import annotations

import re

from gpu_advisor.text.lazy import lazy


def word(pattern: str) -> str:
    """``pattern`` as a whole ASCII word: no letter directly before or after it."""
    return rf"(?<![a-z])(?:{pattern})(?![a-z])"


def compile_words(*alternatives: str) -> re.Pattern[str]:
    return lazy("|".join(alternatives))


# A few characters inside one clause: no digits, no clause punctuation, nothing claimed.
GAP = r"[^\d\x00,，、。;；!?！？\n]"  # 、 separates list items: "32k 上下文、20 个并发"
CLAUSE_BREAK = lazy(r"[,，。;；!?！？\n\x00]")

TRAIN = compile_words(
    r"(?:预|继续|增量|从头)?训练(?!好|过的|出来)",
    r"微调(?!好|过的)",
    r"精调|调优|指令微调",
    word(r"(?:pre-?)?train(?:ing|s)?|fine[\s-]?tun(?:e|es|ing)|finetun(?:e|es|ing)|sft|rlhf|dpo"),
)
INFER = compile_words(
    r"推理|推论|部署|上线|线上|服务(?!器)|生产环境|对外提供",
    r"给用户(?:回答|用|提供)|回答用户|用户提问|问答|客服|聊天机器人|对话机器人",
    word(r"serv(?:e|es|ing)|inference|infer|deploy(?:ing|ment|s)?|host(?:ing)?|chat\s?bot|production"),
)

# Words that mean serving only when no training word is present ("run" a model; an API,
# a 小程序 or a support bot is something people use).
SERVING_CONTEXT = compile_words(
    r"小程序|接口|客服(?:机器人)?|网站|公众号|智能助手|知识库问答",
    word(r"api|apis|endpoint|app|website|customer[\s-]?service|support\s?bot|run(?:ning)?|use it"),
)
# "跑 70B", "跑个 qwen": running a model the message names is serving it (the \x00 is the
# model or size an earlier reader took); "跑两三天" runs a job for a while and says nothing.
RUN_MODEL = lazy(r"跑(?=(?:一个|个)?\s*+[\da-z\x00])")
PRETRAIN = compile_words(
    r"预训练|从头训|从零训|从零开始训|从头开始训|训练[^，。,.]{0,12}?从(?:零|头)开始",
    word(r"pre-?train(?:ing)?|from scratch"),
)

# QLoRA is listed first and wins over LoRA; "lora" cannot match inside "qlora".
METHODS: tuple[tuple[re.Pattern[str], str], ...] = (
    (lazy(word(r"q-?lora")), "qlora"),
    (lazy(word(r"lora")), "lora"),
    (
        compile_words(
            r"全参数?|全量(?!数据)",
            word(r"full[\s-]*(?:fine[\s-]?tun\w*|finetun\w*|param\w*|training|ft)|fft"),
        ),
        "full",
    ),
)

_DIGITS_FENCE = r"(?<![a-z0-9.]){}(?![a-z0-9])"


def _fenced(pattern: str) -> str:
    return _DIGITS_FENCE.format(f"(?:{pattern})")


# "8位" is a precision only where a precision word or the clause end follows: 8位用户 are people.
_BITS_ZH = r"\s*位(?=\s*(?:量化|精度|整|权重|的|模型|加载|推理|$|[,，。;；\s]))"
WEIGHT_DTYPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (lazy(_fenced(r"bf16|bfloat16")), "bf16"),
    (lazy(_fenced(r"fp16|float16|16[\s-]?bits?") + "|半精度|16" + _BITS_ZH), "fp16"),
    (lazy(_fenced(r"fp32|float32|32[\s-]?bits?") + "|全精度|单精度"), "fp32"),
    (lazy(_fenced(r"fp8|float8|e4m3")), "fp8"),
    (lazy(_fenced(r"int8|w8a8|8[\s-]?bits?") + r"|(?<![\d.])8" + _BITS_ZH + "|八位"), "int8"),
    (lazy(_fenced(r"int4|w4a16|4[\s-]?bits?") + r"|(?<![\d.])4" + _BITS_ZH + "|四位"), "int4"),
    (lazy(_fenced(r"nf4")), "nf4"),
    (lazy(_fenced(r"awq")), "awq"),
    (lazy(_fenced(r"gptq")), "gptq"),
    (lazy(_fenced(r"q4(?:_?k(?:_?[ms])?|_?[01])?")), "q4_k_m"),
    (lazy(_fenced(r"q8(?:_?0)?")), "q8_0"),
)
# Precision words that describe something other than the weights.
KV_CACHE = lazy(
    r"(?:kv[\s_-]*cache|kv缓存)\s*(?:用|使用|in|=|:|量化(?:为|成|到)?)?\s*(?P<a>fp16|bf16|fp8|int8)"
    r"|(?P<b>fp16|bf16|fp8|int8)\s*(?:的)?\s*(?:kv[\s_-]*cache|kv缓存)"
)
OPTIMIZER_BITS = lazy(r"8[\s-]?bits?\s*adamw?|adamw?[\s_-]*8[\s-]?bits?")

SKIP = compile_words(
    r"不知道|不清楚|不确定|随便|随意|默认|预设|都行|都可以|无所谓|没想好|跳过|你定|你决定|看着办",
    word(r"skip|don'?t know|do not know|dunno|idk|no idea|not sure|whatever|default|up to you|you decide"),
)
ALWAYS_ON = compile_words(
    r"7\s*[x*]\s*24(?:\s*小时)?|24\s*[x*]\s*7|24\s*/\s*7",
    r"长期|常驻|一直(?:要|得|都)?(?:跑|开|运行|在线|在跑)|全天候|不间断|不停机|全年无休|24小时(?:不间断|运行|在线|不停)",
    r"24\s*小时[^\d\x00,，。;；!?！？\n]{0,4}?(?:在线|运行|开着|不停|可用|能用|服务|待命)|全天(?:在线|开着|运行|都开|不关)|随时在线|不关机",
    word(r"always[\s-]?on|around the clock|24 hours a day|non-?stop|long[\s-]term|permanently"),
    word(r"(?:on|running|up) all the time|all day every day"),
)
# Said just before an always-on phrase, it means the opposite ("不用一直开着").
NOT_ALWAYS = lazy(
    r"(?:不用|不需要|不必|无需|不要|没必要|用不着|不)\s*+$"
    r"|(?:(?<![a-z])not|n't|(?<![a-z])no need to)\s++(?:need\s++to\s++)?(?:be\s++)?$"
)
ONE_OFF = compile_words(
    r"一次性(?!付)|临时用一下|跑完就关", word(r"one[\s-]?off|one[\s-]?time|just once|only once")
)

# Someone who already has the GPU says so just before naming it.
OWNED_CUE = lazy(
    r"(?:我|我们|咱们|自己|手上|手里|手头|家里|公司|实验室|本地)(?:已经|现在|目前)?(?:有|买了|拥有)"
    r"|现有|已有|自有|我的|我们的|"
    + word(r"i have|i've got|i got|i own|i already have|we have|we've got|we own|my|our")
)
NEGATION = lazy(r"没|不|" + word(r"don'?t|do not|doesn'?t|not|no"))

CNY_MARK = lazy(r"¥|(?<![港欧日])元|块|人民币|软妹币|" + word(r"rmb|cny|yuan"))
USD_MARK = lazy(r"(?<![a-z])\$|美元|美金|刀|" + word(r"usd|dollars?|bucks"))
# Checked in order: the specific marks (NT$, 港元) before the general ones ($, 元).
CURRENCY_MARKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("TWD", lazy(r"台币|nt\$|" + word(r"twd|ntd"))),
    ("HKD", lazy(r"港币|港元|hk\$|" + word(r"hkd"))),
    ("EUR", lazy(r"€|欧元|" + word(r"eur|euros?"))),
    ("JPY", lazy(r"日元|" + word(r"jpy|yen"))),
    ("USD", USD_MARK),
    ("CNY", CNY_MARK),
)
