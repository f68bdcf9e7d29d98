"""The rental period a price question asks about: "包月", "一周", "10 days", "按年付".

"4 卡 A100 一周多少钱" asks for a week's rent, "包月多少" for a month's, "按年付呢" for a
month at the yearly rate. Read from the normalised text (Chinese numerals already digits
where ``text.normalize`` turns them, otherwise read by ``text.numbers``); a period the
slot readers already turned into ``duration_hours`` ("10 days") is used as it is. With
no period word the answer is for one month, the catalog's own unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

HOURS = {
    "hour": 1.0,
    "day": 24.0,
    "week": 168.0,
    "month": HOURS_PER_MONTH,
    "quarter": 3 * HOURS_PER_MONTH,
    "year": 12 * HOURS_PER_MONTH,
}
_YEARLY = lazy(
    r"包年|按年|年付|年缴|年繳|年租|租一年|包一年|一年包|一年总共|一年下来|全年|一整年|yearly|annual(?:ly)?|per\s+year|pay\s+by\s+the\s+year"
    r"|a\s+(?:whole|full)\s+year|for\s+(?:a|one)\s+(?:full\s+|whole\s+)?year"
)
_AND_MONTH = lazy(r"包月|月租|每月|一个月|monthly|per\s+month|a\s+month")
"""A month asked beside the year ("包月和包年各多少", "monthly and yearly"): both are priced."""
_MONTH_OF_YEARLY = lazy(
    r"(?:按年付|年付|年缴|包年)的?(?:话|時|时)?\s?(?:一个月|每个?月|每月)"
    r"|(?:a|per)\s+month\s+(?:if|when)\s+(?:i\s+)?(?:pay|paid|paying|billed)\s+(?:yearly|annually|by\s+the\s+year)"
)
"""The month is the unit of the yearly price ("按年付一个月多少", "per month if I pay yearly"), not a
second question."""
_A_YEAR = lazy(
    r"包年|年租|包一年|租一年|一年包|一年总共|一年下来|一年多少|全年|一整年"
    r"|一年[^，。,；;？?!！\s]{0,6}?(?:多少|几多|幾多|要花|得花)"
    r"|(?<![a-z])(?:for|per|over|in)\s+(?:a|one|1|the)\s+(?:whole\s+|full\s+)?year"
    r"|(?:yearly|annual)\s+(?:price|cost|rent|bill|total)|a\s+whole\s+year|a\s+year'?s\s+(?:rent|total|worth)"
    r"|(?<![a-z])per\s+year(?![a-z])|(?:cost|be|is|it|much)\s+a\s+year(?![a-z])"
    r"|(?<![a-z])(?:a|one|1)\s+year(?=\s*+(?:[?？.!！,，]|$))"
)
"""Renting for a year (priced as twelve months at the yearly rate), as against paying a month yearly
(年付); a year's total asked in other words ("年付的话一年最少要多少钱", "what's the bill over one
year", "一年要多少錢", "how much is an A100 a year?") is the same: whoever asks a year's price is
given the yearly-billing figure, with the month-by-month total beside it."""
_UNITS: tuple[tuple[str, str], ...] = (
    ("year", r"年(?!付)|years?"),
    ("quarter", r"个?季度|quarters?"),
    ("month", r"个?月|months?"),
    ("week", r"周|星期|礼拜|weeks?"),
    ("day", r"天|日|days?"),
    ("hour", r"小时|个小时|钟头|hours?|hrs?|h(?![a-z])"),
)
# "4090 月租" is a card's monthly rent, not 4,090 months: a unit followed by 租/付/费/缴 is a rate,
# and the digits of a card's name ("A100 月缴") are never a count of months.
_COUNTED = lazy(
    rf"(?<![a-z])(?P<num>{NUMBER})\s*+(?P<unit>{'|'.join(f'(?:{u})' for _, u in _UNITS)})(?![a-z])"
    r"(?!\s*+(?:租|付|费|價|价|缴))"
)
_SINGLE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("hour", lazy(r"每小时|按小时|按时|一小时|per\s+hour|hourly|an?\s+hour|/\s*+h(?:our|r)?\b")),
    ("day", lazy(r"每天|按天|包日|包天|一天|per\s+day|daily|a\s+day")),
    ("week", lazy(r"每周|按周|一周|一个?星期|per\s+week|weekly|a\s+week")),
    ("month", lazy(r"包月|按月|月付|每月|一个?月|per\s+month|monthly|a\s+month")),
    ("quarter", lazy(r"一个季度|一季度|包季|按季|per\s+quarter|quarterly|a\s+quarter")),
)


@dataclass(frozen=True)
class Period:
    hours: float
    yearly: bool


def asks_month_and_year(low: str) -> bool:
    """Both a month's and a year's price are asked ("包月跟包年各多少", "monthly and yearly", "月租多少？
    年繳呢": a month, then paying by the year)."""
    if _MONTH_OF_YEARLY.search(low):
        return False  # "按年付一个月多少": the month on a yearly plan, one figure
    return (_A_YEAR.search(low) or _YEARLY.search(low)) is not None and _AND_MONTH.search(low) is not None


def read_period(low: str, duration_hours: float | None = None) -> Period:
    """The period ``low`` asks a price for; one month when it names none."""
    yearly = _YEARLY.search(low) is not None
    a_year = duration_hours is None or duration_hours >= HOURS["year"] - 1e-6  # "一年" read as a duration
    if a_year and _A_YEAR.search(low):
        # "包年多少钱", "一年要多少錢", "how much is an A100 a year?": a year's rent at the yearly
        # rate the catalog states, never twelve months at list price (issue 44)
        return Period(HOURS["year"], True)
    if yearly:
        return Period(HOURS["month"], True)  # "按年付呢": the month's price on a yearly plan
    if duration_hours:
        return Period(float(duration_hours), False)
    counted = _COUNTED.search(low)
    if counted is not None and (value := parse_number(counted.group("num"))):
        unit = next(name for name, pattern in _UNITS if re.fullmatch(pattern, counted.group("unit")))
        return Period(value * HOURS[unit], False)
    for unit, pattern in _SINGLE:
        if pattern.search(low):
            return Period(HOURS[unit], False)
    return Period(HOURS["month"], False)
