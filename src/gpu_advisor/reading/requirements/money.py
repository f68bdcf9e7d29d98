"""Budgets: an amount, its currency and the period it covers.

A number is money only when something says so: a currency sign or word (¥2000, 2000元,
$500, 500 dollars, 10块), a budget word in the same clause (预算一万, 月预算5千,
budget of 500), or a per-period rate (1.5万/月, 每月3000以内, 500 a month). The period
comes from words around the amount (每月/monthly → month, 每小时/per hour → hour,
总预算/total → total); per-day, per-week and per-year budgets are restated per month
because the Workload only knows month, hour and total.

Currencies: CNY (元, 块, rmb), USD ($, 美元, 刀), TWD (台币, NT$), HKD (港币, HK$), EUR (€,
欧元), JPY (日元, yen); "5个w" is 50 000 and "5k RMB 一个月" is 5000 a month, never 1. A
price per card ("每卡每小时 12 块", "$2 per GPU per hour") sets ``budget_per_gpu``.

Without a currency word the amount is taken as CNY and a ``currency_assumed`` issue asks
the dialog to confirm; without a period word it is taken as monthly (``period_assumed``).
"""

from __future__ import annotations

import math
import re

from gpu_advisor.reading.requirements.lexicon import CLAUSE_BREAK, CURRENCY_MARKS, GAP
from gpu_advisor.reading.requirements.scan import Scan, plain
from gpu_advisor.reading.requirements.vague import VAGUE, vague_value
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, SIGN, signed_value

_AMOUNT = rf"{SIGN}(?P<num>{NUMBER})(?:\s*+(?:个\s*+)?(?P<suf>k|w)(?![a-z])|(?!\s*+(?:个\s*+)?[kw](?![a-z])))"
# What may not follow an amount found by a budget word: units that make it a size,
# a count, a duration or a latency instead, and 个/月 so that 预算一万一个月 reads 一万.
_NOT_MONEY = (
    r"(?![\d.]|[个月周天年]|\s*+(?:亿|参数|tokens?|张|卡|台|并发|路|小时|分钟|毫秒|秒|用户|人"
    r"|(?:b|bn|billion|m|qps|h|x|gpus?|cards?|ms|s|sec|seconds?|hours?|hrs?|days?|weeks?|months?|years?"
    r"|users?|requests?|concurrent|context|ctx)(?![a-z])))"
)
_CURRENCY_WORD = (
    r"(?:元|块钱?|人民币|美元|美金|刀|新?台币|港币|港元|欧元|日元|€"
    r"|(?<![a-z])(?:rmb|cny|usd|dollars?|bucks|yuan|twd|ntd|hkd|eur|euros?|jpy|yen)(?![a-z]))"
)
_UNIT = r"(?:月|month|mo|小时|hour|hr|h|天|day|周|星期|week|年|year)s?(?![a-z])"
_BUDGET_WORD = (
    r"(?:预算|花费|成本|开销|费用|租金|价格|不超过|最多花|控制在"
    r"|(?<![a-z])(?:budget|spend|afford|cost|price)s?)"
)

_CORES = (
    lazy(rf"(?<![a-z])(?:rmb|cny|usd|twd|ntd|hkd|eur|nt\$|hk\$)\s*+{_AMOUNT}{_NOT_MONEY}"),
    lazy(rf"[¥$]\s*+{_AMOUNT}"),
    lazy(rf"€\s*+{_AMOUNT}"),
    lazy(rf"{_AMOUNT}\s*+{_CURRENCY_WORD}"),
    lazy(rf"{_BUDGET_WORD}{GAP}{{0,10}}?{_AMOUNT}{_NOT_MONEY}"),
    # "一个月 5600 的预算": the period and the amount before the budget word
    lazy(rf"(?:一个月|每个?月|一年|每年|一周|每周)?\s*+{_AMOUNT}\s*+(?:元|块钱?)?\s*+的?\s*+(?:预算|月预算)"),
    lazy(
        rf"(?:一个月|每个?月|一小时|每个?小时)\s*+(?:不超过|最多花?|顶多|封顶|上限)\s*+{_AMOUNT}{_NOT_MONEY}"
    ),
    lazy(
        rf"(?:每个?月|每个?小时|月)\s*+(?:不超过|最多|大概|约|控制在)?\s*+{_AMOUNT}(?=\s*+(?:以内|以下|之内|左右))"
    ),
    lazy(rf"{_AMOUNT}\s*+(?:/|每|per|一个?|a|an)\s*+(?:个)?\s*+(?:月|month|mo|小时|hour|hr|h)(?![a-z])"),
)
_PER_CARD = r"(?:\s*+(?:/|每|per|a|each)\s*+(?:张|块)?\s*+(?:gpu|card|卡)s?(?![a-z]))?"
_AFTER = lazy(
    rf"\s*+{_CURRENCY_WORD}?{_PER_CARD}(?:\s*+(?:/|每|per|a|an|一个?|each)\s*+(?:个)?\s*+{_UNIT})?"
    r"(?:\s*+(?:以内|以下|之内|左右|封顶|max|or less|at most|in total|total|overall|一共|总共))?"
)
_BEFORE = lazy(
    r"(?:每个?月|月度?|每个?小时|每天|每周|每年|总|一共|合计"
    r"|(?<![a-z])(?:monthly|hourly|daily|weekly|yearly|annual|total|overall"
    rf"|per\s+(?:hour|month|day|week|year))(?![a-z])){GAP}{{0,16}}$"
)
_PERIODS = (
    ("hour", lazy(r"小时|每时|hour|(?<![a-z])hr|/\s*+h(?![a-z])|per h(?![a-z])")),
    ("day", lazy(r"天|(?<![a-z])(?:days?|daily)(?![a-z])")),
    ("week", lazy(r"周|星期|week")),
    ("year", lazy(r"年|(?<![a-z])(?:years?|yearly|annual)")),
    ("month", lazy(r"月|month|(?<![a-z])mo(?![a-z])")),
    ("total", lazy(r"总|一共|合计|共计|total|overall|in all")),
)
_PER_GPU = lazy(r"每(?:张|块)?卡|单卡|/\s*+卡|(?:per|/|a|each)\s*+(?:gpu|card)(?![a-z])|每\s*+gpu")
_PER_GPU_AFTER = lazy(r"\s*+(?:(?:per|a|each)\s*+(?:gpu|card)(?![a-z])|/\s*+卡|每\s*+(?:张)?卡)")
_PER_GPU_REACH = 8  # "每卡每小时 12 块" before the amount; "an hour per card" after it
_TO_MONTH = {"day": 30.0, "week": 30.0 / 7.0, "year": 1.0 / 12.0}
_WINDOW = 24


_NOW = r"(?:现在|目前|当前|眼下|如今|(?<![a-z])(?:now|currently|right now|at the moment|today)(?![a-z]))"
_MONTHLY = (
    r"(?:一个月|每个?月|月租|包月|/\s*+月|(?<![a-z])(?:per month|a month|monthly|/\s*+mo(?:nth)?)(?![a-z]))"
)
_CURRENT = (
    lazy(
        rf"{_MONTHLY}\s*+(?:要|花|付|交|是|得|pay|paying|costs?)?\s*+[¥$€]?\s*+{_AMOUNT}(?:\s*+{_CURRENCY_WORD})?"
    ),
    lazy(
        rf"(?:付|花|交|(?<![a-z])(?:pay|paying|spend|spending))\s*+[¥$€]?\s*+{_AMOUNT}"
        rf"(?:\s*+{_CURRENCY_WORD})?\s*+{_MONTHLY}"
    ),
)
_NOW_REACH = 40  # the "now" word is in the same clause, a few words before the price


def read_current_cost(scan: Scan) -> None:
    """What the user pays now ("现在两张 A100 一个月 5600"): a monthly price to compare against,
    never a budget and never a one-month job (the period word is claimed with it)."""
    for match in (m for pattern in _CURRENT for m in scan.matches(pattern)):
        before = CLAUSE_BREAK.split(scan.source[max(0, match.start() - _NOW_REACH) : match.start()])[-1]
        if re.search(_NOW, before) is None:
            continue
        amount = signed_value(match)
        if amount is None or amount <= 0 or not math.isfinite(amount):
            continue
        currency = next((code for code, mark in CURRENCY_MARKS if mark.search(match.group())), "CNY")
        scan.put("current_cost", {"amount": float(amount), "currency": currency, "per": "month"})
        scan.claim(*match.span())


_LOOSE_MONEY = (
    lazy(rf"{VAGUE}\s*+{_CURRENCY_WORD}"),
    lazy(
        rf"{_BUDGET_WORD}{GAP}{{0,6}}?{VAGUE}(?![\d.]|\s*+(?:亿|参数|tokens?|张|卡|台|并发|路|人|b(?![a-z])))"
    ),
)


def read_loose_budget(scan: Scan) -> None:
    """A range or vague amount of money ("七八万块", "预算两三千") is a budget at its upper end, said back."""
    for pattern in _LOOSE_MONEY:
        for match in scan.matches(pattern):
            if match.group("about") or match.group("ish"):
                continue  # "around 2k": an exact amount said loosely, read with its suffix below
            value = vague_value(match)
            if value is None or "budget" in scan.slots:
                continue
            start = _extend_left(scan, match.start())
            end = _AFTER.match(scan.text, match.end())
            stop = end.end() if end else match.end()
            _put_budget(scan, value, scan.text[start:stop], (start, stop))
            scan.report("approximated", "budget", said=match.group().strip(), value=plain(value))


def read_budget(scan: Scan) -> None:
    """Every money span becomes ``budget``; the first one wins, later ones are conflicts."""
    for core in _CORES:
        for match in scan.matches(core):
            start = _extend_left(scan, match.start())
            end = _AFTER.match(scan.text, match.end())
            stop = end.end() if end else match.end()
            _put_budget(scan, signed_value(match), scan.text[start:stop], (start, stop))


def _extend_left(scan: Scan, start: int) -> int:
    """Start of a period word just before the amount ("月预算", "总预算", "monthly budget of")."""
    before = _BEFORE.search(scan.text, max(0, start - _WINDOW), start)
    return before.start() if before else start


def _put_budget(scan: Scan, amount: float | None, text: str, span: tuple[int, int]) -> None:
    scan.claim(*span, understood=False)
    if amount is None:
        return
    if amount <= 0 or not math.isfinite(amount):
        issue = "negative_number" if amount < 0 else "number_not_positive"
        scan.report(issue if math.isfinite(amount) else "number_too_large", "budget", value=plain(amount))
        return
    per = _period_of(text)
    if per in _TO_MONTH:
        scan.report("budget_period_converted", "budget", **{"from": per, "amount": plain(amount)})
        amount, per = round(amount * _TO_MONTH[per], 2), "month"
    elif per is None:
        scan.report("period_assumed", "budget", per="month")
        per = "month"
    scan.put("budget", {"amount": float(amount), "currency": _currency_of(scan, text), "per": per})
    scan.note(*span)
    if _PER_GPU.search(scan.source, max(0, span[0] - _PER_GPU_REACH), span[1]) or _PER_GPU_AFTER.match(
        scan.source, span[1]
    ):
        scan.budget_per_gpu = True
        scan.report("budget_per_gpu", "budget", amount=plain(amount))


def _period_of(text: str) -> str | None:
    for per, pattern in _PERIODS:
        if pattern.search(text):
            return per
    return None


def _currency_of(scan: Scan, text: str) -> str:
    """The currency a sign or word in the span names; else CNY, flagged as assumed only in an
    English message (nobody writing Chinese doubts that "预算 5000" is yuan, issue 44)."""
    for code, mark in CURRENCY_MARKS:
        if mark.search(text):
            return code
    if scan.lang != "zh":
        scan.report("currency_assumed", "budget", currency="CNY")
    return "CNY"
