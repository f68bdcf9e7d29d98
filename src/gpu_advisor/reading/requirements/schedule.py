"""How long the GPUs are needed: a duration in hours, or always on.

"7×24", "24/7", "长期", "常驻", "always on" mean the machine never stops, which changes
the pricing question from hourly to monthly, so they are read before anything else can
take "24" as a number. A duration is a number with a time unit (跑三天 = 72 h, 一周 = 168,
两周 = 336, 一个月 = 720, for 3 days, within a week). "3月" is March, so Chinese months
need 个 (3个月), and a year count above 100 is a date (2024年), not a duration.
"24 小时都要在线" is always on, not a 24-hour job; "不用一直开着" and "一次性的" say it is
not (``always_on=False``). Budget periods (每月, per hour) are claimed by ``money.py`` earlier, so they never
reach this reader.
"""

from __future__ import annotations

import re

from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.reading.requirements.lexicon import ALWAYS_ON, NOT_ALWAYS, ONE_OFF
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import COUNT_WORDS, NUMBER, SIGN, parse_number

HOURS_PER: dict[str, float] = {
    "minute": 1 / 60,
    "hour": 1.0,
    "day": 24.0,
    "week": 168.0,
    "month": HOURS_PER_MONTH,
    "year": 8760.0,
}
_UNITS = (
    ("minute", r"分钟|(?:minutes?|mins?)(?![a-z])"),
    ("hour", r"个?小时|(?:hours?|hrs?|h)(?![a-z0-9])"),
    ("day", r"天|(?:days?)(?![a-z])"),
    ("week", r"周|个?星期|个?礼拜|(?:weeks?|wks?)(?![a-z])"),
    ("month", r"个月|(?:months?)(?![a-z])"),
    ("year", r"年|(?:years?)(?![a-z])"),
)
_UNIT = "|".join(f"(?P<{name}>{pattern})" for name, pattern in _UNITS)
_EN_COUNT = "|".join(word for word in COUNT_WORDS if (word.isascii() and len(word) > 1) or word == "a")
_DURATION = lazy(
    rf"{SIGN}(?:(?P<num>{NUMBER})|(?P<half>半)|(?<![a-z])(?P<word>{_EN_COUNT})\s)\s*+(?:个)?\s*+(?:{_UNIT})"
)
_LARGEST_YEAR_COUNT = 100  # 2024年 is a date
# "就这周用一下", "this month only": the current week / month / day as a duration.
_THIS_PERIOD = lazy(
    r"(?:这|本|这个)(?P<week>周|星期|礼拜)|(?:这|本|这个)(?P<month>月)(?!份?\d)|(?P<day>今天)"
    r"|(?<![a-z])this\s+(?:(?P<week2>week)|(?P<month2>month))(?![a-z])|(?<![a-z])(?P<day2>today)(?![a-z])"
)
# "白天用，晚上关", "business hours only": a service used part of every day, held all month.
_DAYTIME = lazy(
    r"白天用|白天开|晚上关|夜里关|夜间关|下班(?:就)?关|上班时间|工作时间(?:用|内)?|只在工作日"
    r"|(?<![a-z])(?:business|working|office)\s+hours(?![a-z])|(?<![a-z])daytime(?![a-z])|9\s*-?\s*to\s*-?\s*5"
)


_NEGATION_REACH = 24


def read_always_on(scan: Scan) -> None:
    """Always-on phrases, a negated one ("不用一直开着") as ``False``, and one-off jobs."""
    for match in scan.matches(ALWAYS_ON):
        before = scan.text[max(0, match.start() - _NEGATION_REACH) : match.start()]
        negated = NOT_ALWAYS.search(before) is not None
        scan.put("always_on", not negated)
        scan.claim(*match.span())
    for match in scan.matches(ONE_OFF):
        scan.put("always_on", False)
        scan.claim(*match.span())
    for match in scan.matches(_DAYTIME):
        scan.put("always_on", True)
        scan.claim(*match.span())
        if not scan.has_issue("daytime_only"):
            scan.report("daytime_only", "always_on", hours=_DAY_HOURS)


_DAY_HOURS = 12  # a working day the service is used


def read_duration(scan: Scan) -> None:
    for match in scan.matches(_THIS_PERIOD):  # the group that matched names the unit: week, month2, day…
        unit = (match.lastgroup or "").rstrip("2")
        scan.put_number("duration_hours", HOURS_PER[unit], match.span())
    for match in scan.matches(_DURATION):
        unit = next(name for name in HOURS_PER if match.group(name))
        count = _count_of(match)
        if count is None or (unit == "year" and abs(count) > _LARGEST_YEAR_COUNT):
            continue
        sign = -1.0 if match.group("neg") else 1.0
        scan.put_number("duration_hours", sign * count * HOURS_PER[unit], match.span())


def _count_of(match: re.Match[str]) -> float | None:
    if match.group("half"):
        return 0.5
    if match.group("word"):
        return COUNT_WORDS[match.group("word")]
    return parse_number(match.group("num"))
