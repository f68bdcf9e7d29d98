"""A relative cut of a stated month's budget: "砍 25%", "cut it by a third", "压到八成", "预算打八折" (a
yearly "年付打85折" is a discount, not a cut).

Read from normalised text (``text.normalize``: Traditional already Simplified) as the share
of the budget that is KEPT: a cut of 25 % keeps 0.75, "压到八成" keeps 0.8, "cut it by a
third" keeps 2/3. A percentage or a fraction is a cut only beside a cutting word, so "25%
utilisation", "年付85折" or "15% off yearly" (a yearly discount, ``reading.quote``) is never one. The base is
the month's money said in the same message (``reading.rate_words.month_budget``).
"""

from __future__ import annotations

import re

_CUT = r"(?:砍|降|减|減|少|压|壓|省|削|cut|lower|reduce|trim|drop|slash)"
_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_BY_PCT = re.compile(rf"{_CUT}[^,;，。\d%]{{0,8}}?(?:by )?(?P<p>\d{{1,2}}(?:\.\d+)?) ?%")
_TO_PCT = re.compile(rf"{_CUT}[^,;，。\d%]{{0,6}}?(?:到|至|to) ?(?P<p>\d{{1,2}}(?:\.\d+)?) ?%")
_TO_TENTHS = re.compile(
    rf"(?:{_CUT}[^,;，。\d]{{0,4}}?(?:到|至)|预算 ?打) ?"
    r"(?P<n>[一二三四五六七八九]|\d)(?P<m>[一二三四五六七八九]|\d)? ?(?:成|折)"
)
_BY_TENTHS = re.compile(rf"{_CUT}[^,;，。\d]{{0,4}}?(?P<n>[一二三四五六七八九]|\d) ?成")
_PCT_CUT = re.compile(r"(?P<p>\d{1,2}(?:\.\d+)?) ?% ?(?:cut|reduction)(?![a-z])")
_FRACTION = re.compile(
    rf"{_CUT}[^,;，。\d]{{0,16}}?(?:by )?"
    r"(?:(?P<third>三分之一|a third|one third|1/3)|(?P<quarter>四分之一|a quarter|one quarter|1/4)"
    r"|(?P<half>一半|half|1/2))"
)


_OTHER = re.compile(
    r"延迟|时延|显存|内存|利用率|功耗|耗时|时间|速度|tokens?|latency|memory|vram|utili[sz]ation|power|time|speed"
)
_BREAKS = ",;，。；\n"


def kept_share(low: str) -> float | None:
    """The share of the budget kept after the cut the text asks for, or None when it asks none
    (a cut of latency, memory or time in the same clause is not a cut of money)."""
    kept = _read(low)
    return None if kept is None or _OTHER.search(_clause(low, kept[1])) else kept[0]


def _clause(low: str, at: int) -> str:
    start = max(low.rfind(c, 0, at) for c in _BREAKS) + 1
    ends = [i for i in (low.find(c, at) for c in _BREAKS) if i >= 0]
    return low[start : min(ends) if ends else len(low)]


def _read(low: str) -> tuple[float | None, int] | None:
    """The share kept (None when out of range) and where the cut is said."""
    if m := _TO_PCT.search(low):
        return _share(float(m["p"]) / 100), m.start()
    if m := _BY_PCT.search(low):
        return _share(1 - float(m["p"]) / 100), m.start()
    if m := _TO_TENTHS.search(low):
        tenths = _digit(m["n"]) + (_digit(m["m"]) / 10 if m["m"] else 0)
        return _share(tenths / 10), m.start()
    if m := _BY_TENTHS.search(low):  # "降三成": three tenths off
        return _share(1 - _digit(m["n"]) / 10), m.start()
    if m := _PCT_CUT.search(low):  # "a 25% cut"
        return _share(1 - float(m["p"]) / 100), m.start()
    if m := _FRACTION.search(low):
        return (2 / 3 if m["third"] else 3 / 4 if m["quarter"] else 1 / 2), m.start()
    return None


# A cut asked with no amount: "预算再压一压", "再便宜点", "预算少一点", "lower the budget a bit".
_VAGUE = re.compile(
    r"(?:预算|价格|价钱|费用|成本|月租)[^,;，。\d多]{0,4}?(?:再|能|可以)?(?:压|砍|降|减|少|省|低)(?!多少|几)"
    r"|(?:再|能|可以)(?:压|砍|降|省)(?:一压|一点|一些|点|些|一下|下)"
    r"|(?:再|更)?便宜(?:一)?(?:点|些)(?!的)"
    r"|(?:cut|lower|reduce|trim|shrink|squeeze) (?:the |my |our )?(?:budget|cost|price|bill)"
    r"|(?:budget|cost|price)s? (?:lower|down)|(?:a bit|a little|something) cheaper|cheaper,? please"
)
_ASKS = re.compile(r"有没有|有无|哪个|哪张|is there|are there|any |which ")


def vague_cut(low: str) -> bool:
    """A cut of the money with no amount ("预算再压一压", "便宜点", "lower the budget a bit"):
    asked, not a question of what exists ("有没有更便宜的" is a plan follow-up), and never a cut
    of latency, memory or time."""
    if kept_share(low) is not None or _ASKS.search(low) or _OTHER.search(low):
        return False
    return bool(_VAGUE.search(low))


def _digit(c: str) -> int:
    return _DIGIT.get(c) or int(c)


def _share(kept: float) -> float | None:
    return kept if 0 < kept < 1 else None
