"""Changes to what was said before: "预算再少一半", "并发翻个倍", "make it 2000 instead", "cheaper?".

A follow-up message often describes a change, not a workload. Read as a first message
"预算再少一半" is a budget of ¥1 (一) and "并发翻个倍" a concurrency of 1; so these
readers run before money and loads, claim what they understood, and emit
:class:`~reading.requirements.result.Edit` records that the dialog applies to the slots
it holds. A slot word in the same clause names the slot ("预算", "users"); without one
the edit's ``slot`` is None and the dialog uses the slot last mentioned or asked.

Common typos of the intent words are read too ("cheeper", "chaper").

Factors: 一半/减半/half = 0.5, 翻倍/翻个倍/double = 2, 翻N倍/N倍 = N (colloquial Chinese
uses 翻三倍 for ×3), triple = 3, 多/加 N% = 1 + N/100, 少/减/降 N% = 1 − N/100.

The same module claims the words that *ask* for something — a cheaper or faster pick, a
price ("一个月多少钱") — so that no slot reader turns them into a job of one month or a
budget; what the message asks is decided once, in :mod:`gpu_advisor.reading.intent`. It
also reads the correction cues that make a task word replace the old task ("不对，是推理
不是训练").
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.lexicon import GAP, INFER, TRAIN
from gpu_advisor.reading.requirements.result import Edit
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

_SLOT_WORDS: tuple[tuple[str, str], ...] = (
    ("budget", r"预算|钱|价格|价钱|费用|成本|(?<![a-z])(?:budget|price|cost|spend)(?![a-z])"),
    ("concurrency", r"并发|用户数?|人数|(?<![a-z])(?:concurrency|users|people)(?![a-z])"),
    ("qps", r"(?<![a-z])(?:qps|rps|traffic)(?![a-z])|请求量|流量|调用量"),
    ("context_len", r"上下文|(?<![a-z])context(?![a-z])"),
    ("duration_hours", r"时长|天数|(?<![a-z])duration(?![a-z])"),
    ("gpu_count", r"卡数|显卡数量|(?<![a-z])(?:gpus|cards)(?![a-z])"),
)
_SLOT = "|".join(f"(?P<{name}>{pattern})" for name, pattern in _SLOT_WORDS)
_FACTOR = (
    r"(?P<half>(?:再|又)?(?:少|减少|降|砍|省)(?:一半|掉一半)|减半|砍半|对半|打对折|一半"
    r"|(?<![a-z])(?:half|halve[ds]?|cut in half|by half)(?![a-z]))"
    r"|(?P<double>翻(?:个|一)?倍|加倍|(?:再)?(?:加|多|增加)(?:一|个)倍|(?<![a-z])(?:double[ds]?|twice)(?![a-z]))"
    r"|(?P<triple>(?<![a-z])triple[ds]?(?![a-z]))"
    r"|翻\s*+(?P<times>[二两三四五六七八九十\d]{1,2})\s*+倍"
    r"|(?P<more>多|加|增加|提高|涨|上调|(?<![a-z])(?:up|raise|increase|more)(?![a-z]))\s*+(?:by\s)?\s*+"
    r"(?P<pct_up>\d{1,3})\s*+%"
    r"|(?P<less>少|减|减少|降|降低|下调|砍|(?<![a-z])(?:cut|down|lower|reduce|less)(?![a-z]))\s*+(?:by\s)?\s*+"
    r"(?P<pct_down>\d{1,3})\s*+%"
)
_SCALE = (
    lazy(
        r"(?<![a-z])(?:(?P<less>cut|reduce|lower|drop)|(?P<more>raise|increase|bump|grow))\s++(?:the\s++|my\s++)?"
        rf"(?:{_SLOT})\s++by\s++(?P<pct>\d{{1,3}})\s*+%"
    ),
    lazy(rf"(?:{_SLOT})\s*+[x*]\s*+(?P<times>\d{{1,2}})(?![\d.a-z])"),
    lazy(rf"(?:{_SLOT}){GAP}{{0,6}}?(?:{_FACTOR})"),
    lazy(rf"(?:{_FACTOR}){GAP}{{0,6}}?(?:{_SLOT})"),
    lazy(rf"(?:{_FACTOR})"),
)
_SET_VERB = (
    r"(?:改成|换成|改为|变成|调到|调成|调为|改到|换到|设为|设成|设到|提到|提高到|升到|加到|降到|减到|降低到|减少到"
    r"|(?<![a-z])(?:to|=)(?![a-z]))"
)
_NAMED_SET = lazy(
    rf"(?:把|将|(?<![a-z])(?:change|set|make|bump|raise|lower|cut|increase|reduce|drop)\s++(?:the\s++|my\s++)?)?"
    rf"\s*+(?:{_SLOT}){GAP}{{0,4}}?{_SET_VERB}\s*+(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w)(?![a-z]))?"
)
# "换成 72B" names a model size, not a new value for the last slot: the size reader takes it.
_NOT_A_SIZE = r"(?!\s*+(?:b|bn|billion|亿|参数)(?![a-z]))"
_SET = lazy(
    r"(?:改成|换成|改为|变成|调到|调成|改到|换到|(?<![a-z])(?:make it|change it to|set it to|go with))\s*+"
    rf"(?P<num>{NUMBER}){_NOT_A_SIZE}(?:\s*+(?P<suf>k|w)(?![a-z]))?(?:\s*+(?:instead|吧|呢))?"
    rf"|(?<![\d.])(?P<num2>{NUMBER}){_NOT_A_SIZE}(?:\s*+(?P<suf2>k|w)(?![a-z]))?\s*+(?:instead|才对)(?![a-z])"
)
_ASKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "price",
        lazy(
            r"(?:一个月|每个?月|一小时|每个?小时|一天|一年|每年)\s*+(?:要|得|大概|大约|需要)?\s*+(?:花)?\s*+多少钱"
            r"|多少钱\s*+(?:一个月|每个?月|一小时|每个?小时)"
            r"|(?<![a-z])how much\s+(?:is it\s+|does it cost\s+|would it cost\s+)?"
            r"(?:per|a|an|each)\s+(?:month|hour|day|year)"
            # asked, not stated: "monthly cost under 5000" is a budget, so only at the end
            r"|(?<![a-z])(?:monthly|hourly)\s+(?:cost|price|bill|rent)(?=\s*+[?？]|\s*+$)"
            r"|(?<![a-z])(?:cost|price|rent)\s+(?:per|a|each)\s+(?:month|hour)(?=\s*+[?？]|\s*+$)"
            r"|(?:月租|月费|每月费用|每个月费用)\s*+(?:是)?\s*+(?:多少|几多)"
        ),
    ),
    (
        "cheaper",
        lazy(
            r"便宜(?:一)?(?:点|些)|更便宜|再便宜|太贵|有点贵|贵了|省钱|省点钱|划算(?:一)?点"
            # a relative cut, not an amount: "预算再压一压" is never a budget of ¥1
            r"|再压(?:一)?压|压一压|压一下|压低(?:一)?(?:点|些)?|再降(?:一)?(?:点|些|档)?|降一档|砍一砍"
            r"|(?<![a-z])(?:ch[ea]{1,3}pe?r|less expensive|too expensive|too pricey"
            r"|save money|lower cost)(?![a-z])"
        ),
    ),
    (
        "faster",
        lazy(r"快(?:一)?(?:点|些)|更快|太慢|(?<![a-z])(?:faster|quicker|too slow|speed it up)(?![a-z])"),
    ),
)
_NEGATED_TASK = lazy(
    r"(?:不是|不要|并非|而非|(?<![a-z])(?:not|no|rather than|instead of)\s)\s*+(?:做|搞|要|用来)?\s*+"
    rf"(?P<task>{TRAIN.pattern}|{INFER.pattern})"
)
# "不是32b，是14b", "13B not 30B", "不是 qwen2.5 32b": the negated value (and a name glued to
# it) is read as said and dropped, so the value kept is the one asserted, not the first one.
# A bare number asserted right after it ("不是10个人，是20个") takes the negated value's slot.
_UNIT_SLOTS: tuple[tuple[str, str], ...] = (
    ("concurrency", r"个人|人|位|路|users?|people|concurrent"),
    ("budget", r"块|元"),
    ("qps", r"qps"),
    ("gpu_count", r"张卡|张|台"),
)
_UNIT = "|".join(f"(?P<u_{name}>{pattern})" for name, pattern in _UNIT_SLOTS)
_ANY_UNIT = "|".join(pattern for _, pattern in _UNIT_SLOTS)
_ASSERT = r"(?:(?:而)?是|(?<![a-z])(?:but|it'?s|it is|make it)(?![a-z]))"
_NEGATED_VALUE = lazy(
    rf"(?:(?:{_SLOT})\s*+(?:的|is|was)?\s*+)?"
    r"(?<!为什么)(?<!为啥)(?<!怎么)(?:而不是|不是|并非|而非"
    r"|(?<![a-z])(?<!why )(?:not|isn't|rather than|instead of)\s)\s*+"
    rf"(?:[a-z][a-z\-]{{0,12}}\s?\d[\w.\-]{{0,12}}\s*+)?(?<![\d.])(?P<negated>{NUMBER})(?![/×x*]\s*+\d)"
    rf"(?:\s*+(?:b|bn|billion|亿|k|w|万|千|个(?!人)|{_UNIT})(?![a-z]))?"
    rf"(?:(?:\s*+[,，;；]\s*+{_ASSERT}?|\s*+{_ASSERT})\s*+(?P<asserted>{NUMBER})\s*+(?:个(?!人)|{_ANY_UNIT})?(?![\d.a-z万千亿]))?"
)
_CORRECTION = lazy(
    r"不对|错了|搞错|说错|其实是|我是说|我的意思是|应该是|改成"
    r"|(?<![a-z])(?:actually|i meant|sorry|correction)(?![a-z])"
)


def read_edits(scan: Scan) -> None:
    """Scale edits, then "set" edits, then the words that ask; each claims what it read."""
    for pattern in _SCALE:
        for match in scan.matches(pattern):
            factor = _factor(match)
            if factor is not None:
                scan.edits.append(Edit(slot=_slot_of(match), op="scale", factor=factor))
                scan.claim(*match.span())
    for match in scan.matches(_NAMED_SET):  # "把并发调到30", "预算改成两万": the slot is named
        slot = _slot_of(match)
        value = _set_value(match, binary=slot == "context_len")  # "上下文改成 32k" is 32,768
        if value is not None:
            scan.edits.append(Edit(slot=slot, op="set", value=value))
            scan.claim(*match.span())
    for match in scan.matches(_SET):
        value = _set_value(match)
        if value is not None:
            scan.edits.append(Edit(slot=None, op="set", value=value))
            scan.claim(*match.span())
    claim_asks(scan)


def claim_asks(scan: Scan) -> None:
    """Claim the words that ask for a price, a cheaper or a faster pick: not slots."""
    for _, pattern in _ASKS:
        for match in scan.matches(pattern):
            scan.claim(*match.span())


def read_negated_values(scan: Scan) -> None:
    """Drop a value the message negates ("不是32b，是14b"): only the asserted one is read.

    A bare number asserted after it ("不是10个人，是20个") is a set edit of the negated
    value's slot; with no unit to name the slot ("不是8个，是16个") the edit carries the
    negated number, and the dialog changes the slot that holds it. With nothing asserted,
    the asserted part is left for the other readers.
    """
    for match in scan.matches(_NEGATED_VALUE):
        slot = _slot_of(match) or next((name for name, _ in _UNIT_SLOTS if match.group(f"u_{name}")), None)
        value = parse_number(match.group("asserted")) if match.group("asserted") else None
        was = None if slot else parse_number(match.group("negated"))
        if value is not None and (slot is not None or was is not None):
            scan.edits.append(Edit(slot=slot, op="set", value=value, was=was))
            scan.claim(*match.span())
        else:
            scan.claim(match.start(), match.start("asserted") if match.group("asserted") else match.end())


def read_corrections(scan: Scan) -> None:
    """A negated task word is dropped ("不是训练"); a correction marks ``task`` as replaced."""
    negated = False
    for match in scan.matches(_NEGATED_TASK):
        scan.claim(*match.span("task"), understood=False)
        negated = True
    if negated or next(scan.matches(_CORRECTION), None) is not None:
        scan.replace.append("task")


def drop_unused_replace(scan: Scan) -> None:
    """A correction marker only stands when the message did give a task."""
    if "task" not in scan.slots:
        scan.replace = [name for name in scan.replace if name != "task"]


def _slot_of(match: re.Match[str]) -> str | None:
    return next((name for name, _ in _SLOT_WORDS if match.groupdict().get(name)), None)


def _factor(match: re.Match[str]) -> float | None:
    groups = match.groupdict()
    if groups.get("half"):
        return 0.5
    if groups.get("double"):
        return 2.0
    if groups.get("triple"):
        return 3.0
    if groups.get("times"):
        return parse_number(groups["times"])
    if groups.get("pct_up"):
        return 1.0 + float(groups["pct_up"]) / 100.0
    if groups.get("pct_down") and float(groups["pct_down"]) < 100:
        return 1.0 - float(groups["pct_down"]) / 100.0
    if groups.get("pct"):
        share = float(groups["pct"]) / 100.0
        return 1.0 + share if groups.get("more") else (1.0 - share if share < 1 else None)
    return None


def _set_value(match: re.Match[str], binary: bool = False) -> float | None:
    groups = match.groupdict()
    number = groups.get("num") or groups.get("num2")
    value = parse_number(number or "")
    suffix = groups.get("suf") or groups.get("suf2")
    if value is None:
        return None
    return value * {"k": 1024.0 if binary else 1e3, "w": 1e4}.get(suffix or "", 1.0)
