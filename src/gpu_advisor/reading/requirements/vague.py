"""Amounts people say loosely: ranges ("三四十", "30-40", "两三天") and vague words.

A range is read as its **upper end**: "三四十个人用" sizes for 40 concurrent users and
"两三天" prices 3 days, because a plan that covers the busy end of what was said never
surprises anyone, while the midpoint would be short half the time. Vague words take a
typical value (:data:`VAGUE_WORDS`): 几个 = 5, 几十 = 50, 十几 = 15, 上百 = 100,
"a couple" = 2, "a few" = 3, "several" = 5, "dozens" = 50; a multiplier after them
counts ("a couple hundred" = 200, "几百" = 500). "~10", "10 左右", "ten-ish", "十来个"
and "about ten" are 10 ("X来", "X多" are "X and a little", read as X).
Every such reading is said back through an ``approximated`` issue with what was typed,
so the user can correct it.

Requests per day ("每天一万次调用") become peak QPS the same way: the busiest hour
carries :data:`PEAK_HOUR_SHARE` of them, spread over its 3600 seconds.

Daily actives are not simultaneous users. Little's law (Little 1961, L = λW) gives the
number in the system as arrival rate × time spent: the peak-hour arrival rate is
DAU × :data:`PEAK_HOUR_SHARE` per hour, and each user stays
:data:`SESSION_MINUTES` minutes, so concurrency = DAU × share × minutes / 60. The two
constants are assumptions (a tenth of a day's traffic in the busiest hour is the usual
telephony/web rule of thumb; a ten-minute chat session), said back through the
``concurrency_from_daily_users`` issue with their values.
"""

from __future__ import annotations

import math
import re

from gpu_advisor.text.numbers import COUNT_WORDS, NUMBER, parse_number

PEAK_HOUR_SHARE = 0.1
"""Share of a day's users active in the busiest hour (assumption, stated to the user)."""
SESSION_MINUTES = 10.0
"""Minutes one user keeps the assistant busy in a visit (assumption, stated to the user)."""

_ZH_DIGITS = "一二两三四五六七八九"
_ZH_SCALE = {
    "十": 10.0,
    "百": 100.0,
    "千": 1000.0,
    "万": 1e4,
    "十万": 1e5,
    "百万": 1e6,
    "千万": 1e7,
    "亿": 1e8,
}
VAGUE_WORDS: dict[str, float] = {
    "几": 5.0,
    "数": 5.0,
    "十几": 15.0,
    "上": 1.0,  # 上百 = 100, 上千 = 1000: "reaching a hundred"
    "好几": 5.0,
    "a couple of": 2.0,
    "a couple": 2.0,
    "couple of": 2.0,
    "a few": 3.0,
    "few": 3.0,
    "several": 5.0,
    "dozens of": 50.0,
    "dozens": 50.0,
    "a dozen": 12.0,
    "a handful of": 5.0,
    "a handful": 5.0,
    "hundreds of": 500.0,
    "hundreds": 500.0,
    "thousands of": 5000.0,
}
_EN_SCALE = {"hundred": 100.0, "thousand": 1000.0}
_EN_TENS = {
    "twenty": 20.0,
    "thirty": 30.0,
    "forty": 40.0,
    "fifty": 50.0,
    "sixty": 60.0,
    "seventy": 70.0,
    "eighty": 80.0,
    "ninety": 90.0,
    "a hundred": 100.0,
}
_EN_WORDS = "|".join(sorted((w for w in VAGUE_WORDS if w.isascii()), key=lambda w: (-len(w), w)))
_EN_NUMBER_WORDS = "|".join(
    [*_EN_TENS, *(w for w in COUNT_WORDS if w.isascii() and len(w) > 2 and w != "single")]
)

# One loose amount, optionally after "about"; exactly one named alternative matches. A
# plain number counts only after "about" (约 5000) or before 左右/上下/ish (5000 左右).
VAGUE = (
    r"(?P<approx>~|约|大约|大概|差不多|(?<![a-z])(?:about|around|roughly|approximately)\s)?\s*+"
    rf"(?:(?<![{_ZH_DIGITS}十百千万\d])十(?P<tlo>[{_ZH_DIGITS}])、?(?P<thi>[{_ZH_DIGITS}])(?![{_ZH_DIGITS}十百千万亿])"
    rf"|(?<![{_ZH_DIGITS}十百千万\d])(?P<zlo>[{_ZH_DIGITS}])、?(?P<zhi>[{_ZH_DIGITS}])(?P<zscale>十万|百万|千万|[十百千万亿])?"
    rf"|(?<![\d.a-z])(?P<alo>\d+)\s*+(?:-|~|到|至|to|、|/|或)\s*+(?P<ahi>\d+)(?![\d.])(?P<ascale>[百千万])?"
    rf"|(?<![{_ZH_DIGITS}十百千万])(?P<zword>十几|好几|几|数|上)(?P<zwscale>[十百千万])?(?![{_ZH_DIGITS}十百千万])"
    rf"|(?<![a-z])(?P<eword>{_EN_WORDS})(?:\s++(?P<escale>hundred|thousand))?(?![a-z])"
    rf"|(?P<ish>{NUMBER}|(?<![a-z])(?:{_EN_NUMBER_WORDS}))\s*+-?\s*+(?:ish|左右|上下)(?![a-z])"
    rf"|(?P<lai>{NUMBER})\s*+[来多](?=\s*+[个位名号人天周])"
    rf"|(?(approx)(?P<about>{NUMBER}|(?<![a-z])(?:{_EN_NUMBER_WORDS})(?![a-z]))|(?!))"
    r")"
)


def vague_value(match: re.Match[str]) -> float | None:
    """The number a loose amount stands for (upper end of a range, typical value of a word)."""
    groups = match.groupdict()
    if groups.get("tlo"):  # 十五六 → 16: a range in the teens
        high = _zh_range(groups["tlo"], groups["thi"], None)
        return 10.0 + high if high is not None else None
    if groups.get("zlo"):
        return _zh_range(groups["zlo"], groups["zhi"], groups.get("zscale"))
    if groups.get("alo"):
        low, high = float(groups["alo"]), float(groups["ahi"])
        scale = _ZH_SCALE.get(groups.get("ascale") or "", 1.0)
        return high * scale if high > low else None
    if groups.get("zword"):
        return _zh_word(groups["zword"], groups.get("zwscale"))
    if groups.get("eword"):
        return VAGUE_WORDS[groups["eword"]] * _EN_SCALE.get(groups.get("escale") or "", 1.0)
    number = groups.get("about") or groups.get("ish") or groups.get("lai")
    if number:
        word = number.strip()
        if word in _EN_TENS:
            return _EN_TENS[word]
        return float(COUNT_WORDS[word]) if word in COUNT_WORDS else parse_number(word)
    return None


def _zh_range(low: str, high: str, scale: str | None) -> float | None:
    """三四十 → 40, 两三 → 3, 三五 → 5; the second digit must be the larger."""
    lo, hi = parse_number(low), parse_number(high)
    if lo is None or hi is None or hi <= lo:
        return None
    return hi * _ZH_SCALE.get(scale or "", 1.0)


def _zh_word(word: str, scale: str | None) -> float | None:
    unit = _ZH_SCALE.get(scale or "", 1.0)
    if word == "上":
        return unit if scale else None  # 上百 = 100; a bare 上 is not an amount
    if word == "十几":
        return 15.0 * unit
    return VAGUE_WORDS[word] * unit


def concurrency_from_daily(daily_users: float) -> int:
    """Simultaneous users at the peak hour for a number of daily actives (Little's law)."""
    return max(1, math.ceil(daily_users * PEAK_HOUR_SHARE * SESSION_MINUTES / 60.0))
