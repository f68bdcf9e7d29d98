"""Serving load and latency: concurrency, QPS, time to first token, request lengths.

Each slot is a keyword and a number in either order (并发16 / 16路并发 / 30 concurrent
users; 每秒20个请求 / 20 QPS / qps 20). A keyword may be separated from its number by a
few words of the same clause ("首token延迟要低于200ms", "first token under 300 ms"), but
never by a digit or a comma, so one keyword cannot reach a number that belongs to the
next phrase. TTFT is stored in milliseconds; a bare number with no unit is taken as
seconds when it is at most 10 (nobody asks for a 5 ms first token) and ms otherwise.

Whitespace between the parts is matched possessively (``\\s*+``): four greedy ``\\s*``
around optional words could split one long run of spaces in quartic many ways
("1" + 450 spaces + "x" took 44 s, issue 14). No part after a run starts with
whitespace, so taking the whole run at once never loses a match. The other slot
modules follow the same rule.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.lexicon import GAP
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, SIGN, parse_number, signed_value

_NUM = rf"{SIGN}(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w)(?![a-z])|(?!\s*+[kw](?![a-z])))"
_NEAR = rf"{GAP}{{0,10}}?"
# After a concurrency or QPS number: not a size, a length, a latency or money.
_NOT_LOAD = (
    r"(?![\d.]|\s*+(?:b|bn|m|ms|s|tokens?|gb|g|h|x|context|元|块|美元|\$|毫秒|秒|小时|天|亿|参数|张|卡|上下文)"
    r"(?![a-z]))"
)

_CONCURRENCY = (
    lazy(
        r"(?:并发|同时在线|(?<![a-z])concurrency|concurrent\s+(?:users|requests|sessions)"
        rf"|simultaneous\s+users|parallel\s+(?:users|requests)){_NEAR}(?<!p){_NUM}{_NOT_LOAD}"  # not "p99"
        r"(?:\s*+(?:个|位|路)?\s*+(?:人|用户|users?|requests?))?"
    ),
    lazy(
        rf"{_NUM}\s*+(?:个|位|路|人)?\s*+(?:用户|users?|requests?|sessions?)?\s*+(?:的)?\s*+"
        r"(?:路?并发|同时(?:在线|使用|访问|请求)?|concurren(?:t|cy)(?:\s+(?:users|requests|sessions))?"
        r"|simultaneous(?:\s+users)?"
        r"|(?:users?|requests?)\s+(?:at once|at the same time|in parallel))"
    ),
    lazy(rf"同时(?:有|服务|访问|使用)?\s*+{_NUM}\s*+(?:个|位)?\s*+(?:人|用户|请求|users?)"),
)
_QPS_WORDS = (
    r"qps|rps|req/s|reqs?/s|requests?\s*+/\s*+s(?:ec)?"
    r"|(?:requests?|reqs?|queries)\s+(?:per|a|/)\s*+sec(?:ond)?"
)
_QPS = (
    lazy(rf"每秒(?:钟)?{_NEAR}{_NUM}\s*+(?:个|次)?\s*+(?:请求|调用|查询|访问|queries|requests?|次)"),
    lazy(rf"{_NUM}\s*+(?:{_QPS_WORDS}|(?:次|个请求|个?请求)\s*+(?:/|每)\s*+秒)(?![a-z])"),
    lazy(rf"(?<![a-z])(?:qps|rps)(?![a-z]){_NEAR}{_NUM}{_NOT_LOAD}"),
)
_PER_MINUTE = (
    lazy(rf"每分钟{_NEAR}{_NUM}\s*+(?:个|次|条)?\s*+(?:请求|调用|消息|问题|对话)"),
    lazy(
        rf"{_NUM}\s*+(?:requests?|reqs?|msgs?|messages?|queries|calls|questions|chats)\s*+(?:per|a|/|每)\s*+"
        r"min(?:ute)?s?(?![a-z])"
    ),
    lazy(rf"{_NUM}\s*+(?:个|次|条)?\s*+(?:请求|调用|消息|问题)\s*+(?:/|每)\s*+分钟"),
)

_TTFT_WORD = (
    r"(?:首\s*+token|首个\s*+token|首字|首包|首词"
    r"|(?<![a-z])ttft|time[\s-]to[\s-]first[\s-]token|first[\s-]token)"
)
_LATENCY_UNIT = r"(?P<unit>ms|毫秒|milliseconds?|s|秒|secs?|seconds?)(?![a-z])"
_TTFT = (
    lazy(
        rf"{_TTFT_WORD}{_NEAR}{SIGN}(?P<num>{NUMBER})\s*+(?:{_LATENCY_UNIT})?(?:\s*+(?:以内|以下|之内|内))?"
    ),
    lazy(
        rf"{SIGN}(?P<num>{NUMBER})\s*+{_LATENCY_UNIT}\s*+(?:以内|以下|之内)?\s*+(?:的|(?:to|for|until|till|before)\s++(?:the\s++)?)?"
        rf"{_TTFT_WORD}"
    ),
)
_SECONDS_CEILING = 10.0
_TAIL = lazy(r"(?<![a-z\d])p99(?!\d)|99\s*+%|99\s*+分位|百分之九十九|tail")
_TAIL_REACH = 8


def read_ttft(scan: Scan) -> None:
    """A first-token limit; "p99 TTFT 1.5s" / "99% 的首 token" is the tail target (``ttft_ms_p99``)."""
    for pattern in _TTFT:
        for match in scan.matches(pattern):
            value = signed_value(match)
            if value is not None:
                value *= _milliseconds_per(match.group("unit"), value)
            window = scan.source[max(0, match.start() - _TAIL_REACH) : match.end()]
            slot = "ttft_ms_p99" if _TAIL.search(window) else "ttft_ms_max"
            scan.put_number(slot, value, match.span())


# "每个用户每秒至少 30 个 token", "each user needs at least 40 tok/s", "TPOT 30ms": a speed each
# stream must keep, a time-per-output-token target (1000 / tokens per second). A speed asked
# about ("能跑 50 tok/s 吗") is a claim to check, not this: the words require it.
_PER_STREAM = (
    r"(?:每(?:个)?\s*+(?:用户|人|路)|单路|(?<![a-z])(?:per|each|every)\s+(?:user|stream|person|request))"
)
_AT_LEAST = (
    r"(?:至少|不低于|最少|起码|达到|保证"
    r"|(?<![a-z])(?:at\s+least|minimum(?:\s+of)?|no\s+less\s+than)(?![a-z])|>=?)"
)
_PER_SECOND = r"(?:/\s*+s(?![a-z])|每秒|(?<![a-z])per\s+sec(?:ond)?(?![a-z]))"
_SPEED_UNIT = r"(?:个)?\s*+(?:tokens?|toks?|t)(?![a-z])"
_TPOT_SPEED = (
    lazy(
        rf"{_PER_STREAM}[^,，。;；\n]{{0,16}}?{_AT_LEAST}\s*+(?P<num>{NUMBER})\s*+{_SPEED_UNIT}(?:\s*+{_PER_SECOND})?"
    ),
    lazy(rf"{_AT_LEAST}\s*+(?P<num>{NUMBER})\s*+{_SPEED_UNIT}\s*+{_PER_SECOND}\s*+{_PER_STREAM}"),
)
_TPOT_MS = lazy(
    rf"(?:(?<![a-z])(?:tpot|itl)(?![a-z])|每个?\s*+token\s*+(?:间隔|延迟|耗时))\s*+(?:p99\s*+)?(?:<=?|≤|不超过|小于|以内|under|below)?\s*+"
    rf"(?P<num>{NUMBER})\s*+(?:ms|毫秒)"
)


def read_tpot(scan: Scan) -> None:
    """A per-stream speed the user requires, or a TPOT they state, as ``tpot_ms_p99``."""
    for pattern in _TPOT_SPEED:
        for match in scan.matches(pattern):
            if re.search(_PER_SECOND, scan.text[max(0, match.start() - 12) : match.end()]) is None:
                continue  # "每个用户至少 30 个 token" with no rate is not a speed
            speed = parse_number(match.group("num"))
            if speed is not None and speed > 0:
                scan.put_number("tpot_ms_p99", round(1000.0 / speed, 1), match.span())
    for match in scan.matches(_TPOT_MS):
        scan.put_number("tpot_ms_p99", parse_number(match.group("num")), match.span())


def _milliseconds_per(unit: str | None, value: float) -> float:
    if unit is None:
        return 1000.0 if abs(value) <= _SECONDS_CEILING else 1.0
    return 1.0 if unit in {"ms", "毫秒"} or unit.startswith("milli") else 1000.0


def read_load(scan: Scan) -> None:
    """Concurrency, then QPS (per second, or per minute divided by 60)."""
    for pattern in _CONCURRENCY:
        for match in scan.matches(pattern):
            scan.put_number("concurrency", signed_value(match), match.span())
    for pattern in _QPS:
        for match in scan.matches(pattern):
            scan.put_number("qps", signed_value(match), match.span())
    for pattern in _PER_MINUTE:
        for match in scan.matches(pattern):
            value = signed_value(match)
            scan.put_number("qps", None if value is None else value / 60.0, match.span())
