"""When a training job must be done: "一周内训完", "3天内", "within 48 hours", "by Friday".

A deadline is a constraint on the plan (``Workload.deadline_hours``; the engine drops
plans that take longer), not the rental period, so it is read before durations are:
"一周内" read as a deadline cannot later become ``duration_hours``. A span is a count,
a time unit and a word that makes it a limit (内/以内/之内 after it; within, in under,
no more than before it). A weekday ("by Friday", "周五前") counts whole days from the
``today`` the caller passes in; without one it is left unread, because the reader has
no clock. Patterns are linear: bounded gaps, no nested quantifiers.
"""

from __future__ import annotations

import re
from datetime import date

from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import COUNT_WORDS, NUMBER, parse_number

HOURS: dict[str, float] = {"hour": 1.0, "day": 24.0, "week": 168.0, "month": HOURS_PER_MONTH}
_ZH_UNIT = r"(?P<hour>个?小时|h)|(?P<day>天|日)|(?P<week>周|个?星期|个?礼拜)|(?P<month>个月)"
_EN_UNIT = r"(?P<hour>hours?|hrs?|h)|(?P<day>days?)|(?P<week>weeks?)|(?P<month>months?)"
_EN_WORDS = "|".join(w for w in COUNT_WORDS if w.isascii() and w.isalpha())
_ZH = lazy(rf"(?P<num>{NUMBER}|半)?\s?(?:{_ZH_UNIT})\s?(?:之|以)?内")
_EN = lazy(
    rf"(?:within|in\s(?:under|less\sthan)|no\smore\sthan|at\smost)\s"
    rf"(?:(?P<num>\d+(?:\.\d+)?)|(?P<word>{_EN_WORDS}))?\s?(?:{_EN_UNIT})(?![a-z])"
)
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ZH_DAYS = "一二三四五六日"
_EN_DAY = "|".join(d[:3] for d in _DAYS)
_EN_BY_DAY = lazy(rf"(?:by|before|until)\s(?:this\s|next\s)?(?P<day>{_EN_DAY})[a-z]*")
_ZH_BY_DAY = lazy(rf"(?:本|这|下)?(?:周|星期|礼拜)(?P<day>[{_ZH_DAYS}天])(?:之)?前")


def read_deadline(scan: Scan, today: date | None = None) -> None:
    """Set ``deadline_hours`` from the first deadline phrase in the message."""
    for pattern in (_ZH, _EN):
        for match in scan.matches(pattern):
            unit = next(name for name in HOURS if match.group(name))
            count = _count(match)
            if count is not None:
                scan.put_number("deadline_hours", count * HOURS[unit], match.span())
    if today is not None:
        _read_weekday(scan, today)


def _count(match: re.Match[str]) -> float | None:
    """The count before the unit: digits, Chinese numerals, 半, an English word, or one."""
    word = match.groupdict().get("word")
    num = match.group("num")
    if word:
        return COUNT_WORDS[word]
    if num == "半":
        return 0.5
    return 1.0 if num is None else parse_number(num)


def _read_weekday(scan: Scan, today: date) -> None:
    """ "by Friday" / "周五前": whole days from ``today`` to that weekday (next week's if it is today)."""
    for pattern in (_EN_BY_DAY, _ZH_BY_DAY):
        for match in scan.matches(pattern):
            scan.put_number("deadline_hours", 24.0 * days_until(today, _weekday(match["day"])), match.span())


def _weekday(name: str) -> int:
    """Monday = 0 … Sunday = 6, from "fri" or from 五 / 日 / 天."""
    if name in _ZH_DAYS or name == "天":
        return 6 if name in "日天" else _ZH_DAYS.index(name)
    return next(i for i, day in enumerate(_DAYS) if day.startswith(name))


def days_until(today: date, weekday: int) -> int:
    """Days from ``today`` to the next ``weekday``; a week when it is that day already."""
    return (weekday - today.weekday()) % 7 or 7
