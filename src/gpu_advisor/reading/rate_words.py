"""A price per second, minute or hour, a month's budget beside it, and "24/7", read from normalised text.

"¥0.08/分钟", "0.08 元每分钟", "$0.002 per second", "每秒 ¥0.001": a rate with its unit, kept
apart from any month's money so that a per-minute price is never read as a budget.
"每月 2000 块", "I have ¥3,000 a month", "每月预算 2000 元", "每月预算 3 万": the month's money a schedule is
held against. "24/7", "全天", "24 小时不停", "around the clock": a whole day, every day.

One pass per pattern over text from ``text.normalize`` (Traditional already Simplified).
"""

from __future__ import annotations

import re

from gpu_advisor.engine.rate import RateUnit
from gpu_advisor.engine.results import Money
from gpu_advisor.reading.money_words import Amount, amounts, period_of

_PER = r"(?:/|每|per|a|an|一)"
_SHORT_UNIT = re.compile(
    rf"\s?{_PER}\s?(?:(?P<s>秒钟?|seconds?|secs?|s)|(?P<m>分钟|分|minutes?|mins?))(?![a-z])"
)
_UNIT_FIRST = re.compile(r"(?:(?P<s>每秒钟?|按秒)|(?P<m>每分钟|按分钟))(?:计费|收费)?\s?$")
_HOUR_BEFORE = re.compile(r"(?:一|每|1 ?)小时|an hour|per hour|hourly")
_BARE_HOURLY = re.compile(
    r"(?:一|每|1 ?)(?:个)?小时 ?(?P<n>\d{1,4}(?:\.\d+)?)(?! ?(?:\d|\.|小时|个|h|天|张|卡|台|%|万|w|k|g))"
)
_VENDOR_MONTH = re.compile(r"包月|月租|按月|月付|monthly|(?<![a-z])or(?![a-z])|或")
_MONTH_BEFORE = re.compile(r"每月|每个月|一个月|月预算|月租|预算|budget|i have|我有|手上有|only have|只有")
_BARE_MONTH = re.compile(
    r"(?:每月|每个月|月预算|预算|月租|budget)[^,;，。\d]{0,4}?"
    r"(?P<n>\d{1,4}(?:\.\d+)?) ?(?P<s>万|w|k|千)(?![a-z])"
)
_SCALE = {"万": 1e4, "w": 1e4, "k": 1e3, "千": 1e3}
_ALL_DAY = re.compile(r"24 ?/ ?7|24 ?x ?7|全天|24 ?小时不停|around the clock|all day|nonstop|不停机|一直开")
_CLAUSE = ",;，。；\n"


def short_rate(low: str) -> tuple[Money, RateUnit] | None:
    """The first amount priced per second or per minute, with its unit."""
    for a in amounts(low):
        unit = _short_unit(low, a)
        if unit is not None:
            return Money(amount=a.value, currency=a.currency), unit
    return None


def _short_unit(low: str, a: Amount) -> RateUnit | None:
    m = _SHORT_UNIT.match(low, a.end) or _UNIT_FIRST.search(low[max(0, a.start - 8) : a.start])
    if m is None:
        return None
    return "second" if m["s"] else "minute"


def hourly_rate(low: str, cards: int | None) -> Money | None:
    """The first amount priced per hour; a per-card-hour price times the cards said."""
    for a in amounts(low):
        per = period_of(low, a)
        if per == "hour":
            return Money(amount=a.value, currency=a.currency)
        if per == "card_hour":
            return Money(amount=a.value * (cards or 1), currency=a.currency)
        if per is None and _HOUR_BEFORE.search(_clause_before(low, a)):  # "4090 一小时 3 块"
            return Money(amount=a.value, currency=a.currency)
    if m := _BARE_HOURLY.search(low):  # "A100 一小时 1.8": no currency said, yuan
        return Money(amount=float(m["n"]), currency="CNY")
    return None


def month_budget(low: str, vendor: bool = True) -> Money | None:
    """The month's money a schedule is held against: an amount per month, or one after 预算/"I have".

    ``vendor=False`` leaves out a vendor's monthly price ("包月 4000", "or ¥1,500 a month"): beside
    an hourly price it is the other way of paying (``money_stated.billing_choice``), not a budget."""
    for a in amounts(low):
        if _short_unit(low, a) is not None:
            continue
        if not vendor and _VENDOR_MONTH.search(_clause_before(low, a)):
            continue
        per = period_of(low, a)
        if per == "month" or (per is None and _MONTH_BEFORE.search(_clause_before(low, a))):
            return Money(amount=a.value, currency=a.currency)
    if m := _BARE_MONTH.search(low):  # "每月预算 3 万": no currency said, a scale word says money
        return Money(amount=float(m["n"]) * _SCALE[m["s"]], currency="CNY")
    return None


def _clause_before(low: str, a: Amount) -> str:
    """Up to 16 characters before the amount, not reaching back past a clause break."""
    before = low[max(0, a.start - 16) : a.start]
    return before[max(before.rfind(c) for c in _CLAUSE) + 1 :]


def all_day(low: str) -> bool:
    """The message asks to run it around the clock (24/7, 全天, 24 小时)."""
    return _ALL_DAY.search(low) is not None
