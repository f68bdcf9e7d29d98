"""Which question about the plan already given a message asks, if any.

After an answer people ask about it: "有没有更便宜的" (cheaper), "要跑多久" (how long),
"年付能省多少" (a year's commitment), "给我启动命令" (the commands), "为什么不用 T4"
(why not that card), "换成 H20 呢" (that card instead). The cheaper, faster, price and
why questions are the message's intent (``reading.intent``), decided once; the few plan
questions no intent names are heard here, so the dialog's follow-ups read
``msg.follow`` and never the text.
"""

from __future__ import annotations

from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import COUNT_WORDS, parse_number

_WHY_NOT = lazy(r"为什么不|为啥不|为何不|怎么不|干嘛不|why\s+not|why\s+no\b|what\s+about\s+not")
_SWAP = lazy(r"换成|换用|改用|换.{0,12}呢|用.{0,12}呢|what\s+about|how\s+about|instead|switch\s+to")
# "用户要等多久", "how long do users wait": a service's answer time, not a job's run time.
_WAIT = lazy(
    r"等多久|要等|等待时间|响应时间|多久(?:能)?(?:出|回|返回|回答|答完)|"
    r"how\s+long\s+(?:do|does|will|would|must)\s+(?:users?|people|customers?|they|i|we|one)\s+(?:have\s+to\s+)?wait|"
    r"wait(?:ing)?\s+time|response\s+time|how\s+long\s+(?:is|are)\s+the\s+(?:wait|answers?|responses?)"
)
# "what about 2 machines?", "那 2 台机器呢", "那 2 台呢": the pick's machine, that many times
# (a bare "台" only where the question ends, so "2 台 4090" stays cards).
_MACHINES = lazy(
    r"(?P<n>\d{1,2}|[一二两三四五六七八九十]|two|three|four|five|six|eight)\s*+"
    r"(?:(?:台|个)?\s*+(?:机器|服务器|节点|(?<![a-z])(?:machines?|servers?|nodes?)(?![a-z]))"
    r"|台\s*+(?=呢|吗|嘛|怎么样|如何|行不行|[?？。!！]|$))"
)
_DURATION = lazy(r"(要|需要|得)?跑多久|多久(能)?(跑完|训完|完成|结束)|要多久|多长时间|how\s+long")
_YEARLY = lazy(r"年付|包年|按年|一年|yearly|annual|per\s+year|a\s+year|for\s+a\s+year")
_COMMAND = lazy(
    r"启动命令|部署命令|运行命令|怎么启动|怎么部署|命令行|配置文件|commands?\b|launch\s+(?:script|it)|"
    r"用什么(?:推理)?框架|用\s*(?:vllm|sglang|tensorrt|ollama)\s*吗|which\s+(?:runtime|framework|engine)|"
    r"how\s+(?:do\s+i|to)\s+(?:launch|start|run|deploy)\s+it"
)
_WHY = lazy(r"为什么|为啥|为何|凭什么|怎么(选|推荐)|why\b|how\s+come|reasoning")

FOLLOW_UPS = (
    "why_not",
    "swap",
    "machines",
    "yearly",
    "wait",
    "duration",
    "cheaper",
    "faster",
    "command",
    "price",
    "why",
)


def plan_question(low: str, intent: str, *, names_card: bool, asks_price: bool) -> str | None:
    """The plan question the normalised message ``low`` asks, or None when it asks none.

    ``intent`` is the message's one intent; ``names_card`` whether it names a card (a
    "why not" or a swap needs one); ``asks_price`` whether it asks a price at all.
    """
    if names_card and _WHY_NOT.search(low):
        return "why_not"
    if names_card and _SWAP.search(low):
        return "swap"
    if machines_asked(low) is not None:
        return "machines"
    if _YEARLY.search(low):
        return "yearly"
    if _WAIT.search(low):
        return "wait"
    if _DURATION.search(low):
        return "duration"
    if intent in ("cheaper", "faster"):
        return intent
    if _COMMAND.search(low):
        return "command"
    if intent == "price" or asks_price:
        return "price"
    if intent == "why" or _WHY.search(low):
        return "why"
    return None


def machines_asked(low: str) -> int | None:
    """How many machines "what about N machines?" asks for (None when it names none)."""
    match = _MACHINES.search(low)
    if match is None:
        return None
    word = match.group("n")
    english = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8}
    value = english.get(word) or COUNT_WORDS.get(word) or parse_number(word)
    return int(value) if value and 1 <= value <= 64 else None
