"""Slot readers for loose amounts: "三四十个人用", "日活五千左右", "两三天", "ten-ish people".

They run before the exact readers of ``traffic.py`` and ``schedule.py`` and claim what
they read, so "三四十个人" is never read as 4 people and "两三天" never as 3 of
something else. The values come from ``reading.requirements.vague`` (upper end of a
range, typical value of a vague word, Little's law for daily actives), and each reading
is said back as an issue so it can be corrected.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.scan import Scan, plain
from gpu_advisor.reading.requirements.schedule import HOURS_PER
from gpu_advisor.reading.requirements.vague import (
    PEAK_HOUR_SHARE,
    SESSION_MINUTES,
    VAGUE,
    concurrency_from_daily,
    vague_value,
)
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number, signed_value

_PEOPLE = (
    r"(?:个|位|名|号)?\s*+(?:人|用户|同事|员工|同学|客户|开发|程序员|people|persons|users?|folks|colleagues|employees"
    r"|testers|developers|devs|engineers|customers|clients|students|members|staff)"
    r"(?![a-z])"
)
_PEOPLE_ADJECTIVE = r"(?:internal|active|concurrent|beta|test|paying|regular|office|team|company|our)"
_LOOSE_LOAD = (
    lazy(rf"{VAGUE}\s*+(?:{_PEOPLE_ADJECTIVE}\s++)?{_PEOPLE}"),  # "a few internal users"
    lazy(rf"(?:并发|concurrency)\s*+(?:大概|约|about)?\s*+{VAGUE}"),
    lazy(rf"{VAGUE}\s*+(?:个|路)?\s*+(?:并发|concurrent|simultaneous)(?![a-z])"),  # "二三十个并发"
)
_PEOPLE_ABOUT = lazy(rf"(?<![\d.])(?P<num>{NUMBER})\s*+{_PEOPLE}\s*+(?:左右|上下)")
_PLAIN_PEOPLE = lazy(
    rf"(?<![\d.])(?P<num>{NUMBER})\s*+(?:个|位|名)?\s*+(?:人|员工|同事|用户|同学|客户|people|users|employees|staff)"
    r"(?:\s*+(?:左右|上下))?"
    r"\s*+(?:在?用|使用|同时|用它|use it|using it)"
)
_DAILY_WORD = r"(?:日活|dau|daily active users?|daily users)"
_DAILY = lazy(
    rf"{_DAILY_WORD}\s*+(?:用户)?\s*+(?:大概|约|有|是|of|about|around|:)?\s*+"
    rf"(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w)(?![a-z]))?"
    rf"|(?P<num2>{NUMBER})(?:\s*+(?P<suf2>k|w)(?![a-z]))?\s*+(?:的)?\s*+{_DAILY_WORD}"
    rf"|(?P<num3>{NUMBER})(?:\s*+(?P<suf3>k|w)(?![a-z]))?\s*+(?:users?|people)\s+(?:a|per|each|every|/)\s*+day(?![a-z])"
    rf"|(?:每天|每日|一天)\s*+(?:大概|约|有)?\s*+(?P<num4>{NUMBER})(?:\s*+(?P<suf4>k|w)(?![a-z]))?\s*+(?:个|位|名)?\s*+(?:用户|人)"
)
_CALLS = (
    r"(?:次|个|条|通)?\s*+(?:调用|请求|访问|问答|对话|会话|咨询"
    r"|calls|requests|queries|conversations|chats)(?![a-z])"
)
_DAILY_CALLS = lazy(
    rf"(?:每天|每日|一天|日均|(?<![a-z])daily)\s*+(?:大概|约|有|about|around)?\s*+"
    rf"(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w)(?![a-z]))?\s*+{_CALLS}"
    rf"|(?P<num2>{NUMBER})(?:\s*+(?P<suf2>k|w)(?![a-z]))?\s*+{_CALLS}\s*+(?:per|a|/|每)\s*+(?:day|天)"
)
_DURATION_UNITS = (
    ("hour", r"个?小时|(?:hours?|hrs?)(?![a-z])"),
    ("day", r"天|(?:days?)(?![a-z])"),
    ("week", r"周|个?星期|个?礼拜|(?:weeks?)(?![a-z])"),
    ("month", r"个月|(?:months?)(?![a-z])"),
)
_LOOSE_DURATION = lazy(
    rf"{VAGUE}\s*+(?:个)?\s*+(?:" + "|".join(f"(?P<{n}>{p})" for n, p in _DURATION_UNITS) + ")"
)
_WEEKEND = lazy(r"周末|(?<![a-z])(?:over the |on the |a |this )?weekend(?![a-z])")
_SCALES = {"k": 1e3, "w": 1e4}


def read_loose_load(scan: Scan) -> None:
    """Ranges and vague counts of people become ``concurrency`` (everyone may ask at once)."""
    for pattern in _LOOSE_LOAD:
        for match in scan.matches(pattern):
            value = vague_value(match)
            if value is not None:
                _put_approximate(scan, "concurrency", value, match)
    for match in scan.matches(_PEOPLE_ABOUT):  # "三百人左右"
        value = signed_value(match)
        if value is not None:
            _put_approximate(scan, "concurrency", value, match)
    for match in scan.matches(_PLAIN_PEOPLE):
        scan.put_number("concurrency", signed_value(match), match.span())


def read_daily_users(scan: Scan) -> None:
    """Daily actives become peak-hour concurrency by the rule in ``vague`` (said back)."""
    for match in scan.matches(_DAILY):
        number = next(match.group(g) for g in ("num", "num2", "num3", "num4") if match.group(g))
        suffix = next((match.group(g) for g in ("suf", "suf2", "suf3", "suf4") if match.group(g)), None)
        daily = parse_number(number)
        if daily is None:
            continue
        daily *= _SCALES.get(suffix or "", 1.0)
        value = concurrency_from_daily(daily)
        scan.put_number("concurrency", value, match.span())
        if scan.slots.get("concurrency") == value:
            scan.report(
                "concurrency_from_daily_users",
                "concurrency",
                daily=plain(daily),
                value=value,
                peak_share=PEAK_HOUR_SHARE,
                session_minutes=plain(SESSION_MINUTES),
            )


def read_daily_requests(scan: Scan) -> None:
    """Requests per day become peak QPS: the busiest hour carries PEAK_HOUR_SHARE of them.

    Conversations of several turns ("每天1万个对话，每个对话平均10轮") are that many
    requests each: every turn is one request to the model.
    """
    for match in scan.matches(_DAILY_CALLS):
        daily = parse_number(match.group("num") or match.group("num2"))
        if daily is None:
            continue
        daily *= _SCALES.get(match.group("suf") or match.group("suf2") or "", 1.0)
        daily *= _turns(scan)
        value = round(daily * PEAK_HOUR_SHARE / 3600.0, 3)
        scan.put_number("qps", value, match.span())
        if scan.slots.get("qps") == value:
            scan.report(
                "qps_from_daily_requests", "qps", daily=plain(daily), value=value, peak_share=PEAK_HOUR_SHARE
            )


_TURNS = lazy(
    rf"每(?:个|次|轮|通)?\s*+(?:对话|会话|咨询)?\s*+(?:平均|大概|约|大约)?\s*+(?P<num>{NUMBER})\s*+(?:轮|问|个来回)"
    rf"|(?P<num2>{NUMBER})\s*+(?:turns?|messages?)\s+(?:per|a|each)\s+(?:conversation|chat|session)(?![a-z])"
)


def _turns(scan: Scan) -> float:
    """Requests per conversation when the message says it (claimed), else 1."""
    for match in scan.matches(_TURNS):
        turns = parse_number(match.group("num") or match.group("num2"))
        if turns is not None and 1 <= turns <= 100:
            scan.claim(*match.span())
            return turns
    return 1.0


def read_loose_duration(scan: Scan) -> None:
    """ "两三天" → 72 h, "a couple of weeks" → 336 h; "周末" → 48 h. Upper end, said back."""
    for match in scan.matches(_LOOSE_DURATION):
        if _asks(scan, match):
            continue  # "要跑几天" asks how long; it states no duration
        count = vague_value(match)
        unit = next(name for name, _ in _DURATION_UNITS if match.group(name))
        if count is not None:
            _put_approximate(scan, "duration_hours", count * HOURS_PER[unit], match, shown=count)
    for match in scan.matches(_WEEKEND):
        _put_approximate(scan, "duration_hours", 2 * HOURS_PER["day"], match)


_ASKING_BEFORE = lazy(r"(?:要|需要|得|跑|训|训练|花|用|能)\s*+$")
_ASKING_AFTER = lazy(r"^\s*+(?:[？?吗呢]|能|才|可以|训完|跑完|搞定|完成)")


def _asks(scan: Scan, match: re.Match[str]) -> bool:
    """Whether a bare 几 is a question ("要跑几天", "几天能训完"), not an amount ("几天就够")."""
    if match.groupdict().get("zword") != "几":
        return False
    before = scan.text[max(0, match.start() - 4) : match.start()]
    return (
        _ASKING_BEFORE.search(before) is not None or _ASKING_AFTER.match(scan.text[match.end() :]) is not None
    )


def _put_approximate(
    scan: Scan, name: str, value: float, match: re.Match[str], shown: float | None = None
) -> None:
    """Set the slot and say so; ``shown`` is the number in the unit the user typed (两三天 → 3)."""
    scan.put_number(name, value, match.span())
    if scan.slots.get(name) == (round(value) if name == "concurrency" else value):
        said = match.group().strip()
        scan.report("approximated", name, said=said, value=plain(value if shown is None else shown))
