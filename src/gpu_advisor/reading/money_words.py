"""The words around an amount that say what it is: currency, period, per card, and the scan for amounts.

Shared by the quote reader (``reading.quote``): an amount is money only when a currency
marks it (¥58,000, 9万元, $2.5, 2.5 usd) or a period follows it with a slash (1.6/卡时,
58000/月). The period and the per-card mark are read from the few characters after
the amount (``/月``, ``每小时``, ``/卡时``, ``per gpu-hour``, ``a month``) or, for words
vendors put first, before it (包月 ¥9万, 每小时 ¥180, 年付 …).

Every pattern is one pass over normalised text (``text.normalize``: one space per run,
repeats capped) with possessive quantifiers and no nested repetition, so a message of
pathological spaces or digits costs time linear in its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, parse_number

CUR_BEFORE = r"(?:(?P<cb>nt\$|us\$|¥|\$|rmb|cny|usd|twd|ntd|人民币|美元|新?台币)\s?)"
CUR_AFTER = r"(?:\s?(?P<ca>元|块钱?|rmb|cny|usd|twd|ntd|新?台币|美元|美金|刀|dollars?|yuan)(?![a-z]))"
AMOUNT = rf"(?P<num>{NUMBER})(?:\s?(?P<suf>k|w)(?![a-z]))?(?!\s?折)"
SLASH_PERIOD = r"(?=\s?/\s?(?:卡|张|月|小时|时|天|年|h|hr|hour|month|day|year|gpu|card|mo)(?![a-z]))"

# An amount is money when a currency marks it, or a "/period" follows it (checked in ``amounts``).
MONEY = lazy(rf"(?<![a-z0-9.]){CUR_BEFORE}?{AMOUNT}{CUR_AFTER}?")
_SLASH_PERIOD = lazy(SLASH_PERIOD)
USD_WORDS = frozenset(("$", "us$", "usd", "美元", "美金", "刀", "dollar", "dollars"))
TWD_WORDS = frozenset(("nt$", "twd", "ntd", "台币", "新台币"))
SCALES = {"k": 1e3, "w": 1e4}

_PER = r"(?:/|每|per|a|an|一|按|each)"
_CARD = r"(?:卡|张|gpu|card|显卡)"
PERIOD_AFTER: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "card_hour",
        lazy(rf"^\s?{_PER}?\s?(?:{_CARD}\s?(?:-|/|每|per)?\s?(?:小?时|hours?|hr|h)(?![a-z]))"),
    ),
    ("card_month", lazy(rf"^\s?{_PER}\s?{_CARD}\s?(?:/|每|per|a)?\s?(?:个)?(?:月|month|mo)(?![a-z])")),
    ("hour", lazy(rf"^\s?{_PER}\s?(?:个)?(?:小时|时|hours?|hrs?|h)(?![a-z])")),
    ("day", lazy(rf"^\s?{_PER}\s?(?:天|日|days?)(?![a-z])")),
    ("month", lazy(rf"^\s?(?:{_PER}\s?(?:个)?(?:月|month|mo)|monthly)(?![a-z])")),
    ("year", lazy(rf"^\s?(?:{_PER}\s?(?:年|years?|yr)|yearly|annually)(?![a-z])")),
)
PERIOD_BEFORE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("card_hour", lazy(r"(?:每卡每小时|每卡时|一卡时|单卡每小时|每张卡每小时)\s?$")),
    ("card_month", lazy(r"(?:包月每卡|包月每张|包月一张|每卡每月|每张每月|单卡包月|单卡月租)\s?$")),
    ("hour", lazy(r"(?:每小时|按小时|按时|小时价|时租|一小时|一个小时|hourly)\s?$")),
    ("day", lazy(r"(?:每天|按天|包天|daily)\s?$")),
    ("month", lazy(r"(?:包月|每月|月租|月付|按月|monthly|一个月(?:要|得|收|租金)?)\s?$")),
    ("year", lazy(r"(?:包年|每年|年租|annually|yearly)\s?$")),
)
# "… per H100", "/每张 A800": the amount is per card when a card word follows "per".
PER_CARD_AFTER = lazy(
    rf"^[^,;，。；\n]{{0,12}}?(?:per|每|/|a|each)\s?(?:张\s?)?(?:{_CARD}|[a-z]{{1,2}}\d{{2,4}})"
)


@dataclass(frozen=True, slots=True)
class Amount:
    """One amount of money found in the text: value, currency, and where it sits."""

    value: float
    currency: str
    start: int
    end: int
    marked: bool  # a currency said so (not just a "/period")


def amounts(text: str) -> list[Amount]:
    """Every amount of money in normalised ``text``, in order."""
    out: list[Amount] = []
    for m in MONEY.finditer(text):
        value = parse_number(m["num"])
        if value is None:
            continue
        if m["suf"]:
            value *= SCALES[m["suf"]]
        word = (m["cb"] or m["ca"] or "").rstrip("钱")
        if not word and not (
            _SLASH_PERIOD.match(text, m.end())
            or _period_first(text, m.start(), m.end())
            or _rent_rate(text, m.start(), m.end())
        ):
            continue
        currency = "USD" if word in USD_WORDS else "TWD" if word in TWD_WORDS else "CNY"
        out.append(Amount(value, currency, m.start(), m.end(), bool(word)))
    return out


_NOT_A_PRICE = lazy(
    r"\s?(?:个)?(?:小时|hours?|hrs?|h|卡|张|台|天|days?|gpus?|cards?|tokens?|gb?|%|度|kwh|个月|[月年周季](?![付租缴费])|季度)(?![a-z])"
)


def _period_first(text: str, start: int, end: int) -> bool:
    """A bare amount right after a price's period word (包月 9万, 每小时 180), not a count or a size."""
    if _NOT_A_PRICE.match(text, end):
        return False
    before = text[max(0, start - 8) : start]
    return any(pattern.search(before) for _, pattern in PERIOD_BEFORE)


_RENT_WORD = lazy(
    r"租|报价?|報價?|供应商|供應商|机房|機房|商家|厂商|廠商|云|雲|整机|整台|整機"
    r"|(?<![a-z])(?:rent(?:ing|al)?|cloud|quoted?|offer(?:ed|s)?|vendor|supplier|provider|host)(?![a-z])"
)
_AMOUNT_NEXT = lazy(r"\s?(?:[¥$]|nt\$|us\$|台币|新台币)?\s?\d")
_RATE_AFTER = lazy(rf"^\s?{_PER}\s?(?:个)?(?:小时|hours?|hr|天|日|days?|月|months?)(?![a-z])")


def _rent_rate(text: str, start: int, end: int) -> bool:
    """A bare amount followed by its period in a message about renting or an offer ("租的话 2.5
    一小时", "机房，3090 一张 2300 一个月", "renting is 3 an hour"): the rent's price. Without
    such a word close before it, "500 a day" stays a count."""
    period = _RATE_AFTER.match(text[end : end + 12])
    if period is None or _AMOUNT_NEXT.match(text, end + period.end()):
        return False  # "报价 4090 每小时 2.5 元": the period is the next amount's, 4090 a card
    return _RENT_WORD.search(text[max(0, start - 40) : start]) is not None


def period_of(text: str, a: Amount, before_from: int = 0) -> str | None:
    """The unit an amount is priced per, from the words right after it, else right before it."""
    after = text[a.end : a.end + 24]
    for per, pattern in PERIOD_AFTER:
        if pattern.search(after):
            return _per_card(per, after)
    before = text[max(before_from, a.start - 12) : a.start]
    for per, pattern in PERIOD_BEFORE:
        if pattern.search(before):
            return _per_card(per, after)
    return None


def _per_card(per: str, after: str) -> str:
    """ "$2.5/hr per H100": an hourly or monthly price followed by "per <card>" is per card."""
    if per.startswith("card_") or not PER_CARD_AFTER.search(after):
        return per
    return f"card_{per}" if per in ("hour", "day", "month", "year") else per


OFFER_WEIGHED = lazy(
    r"贵不贵|貴不貴|太贵|太貴|偏贵|偏貴|贵吗|貴嗎|贵了|貴了|便宜吗|便宜嗎|合理吗|合理嗎|正常吗|正常嗎|值不值|值吗|值嗎|坑|划算吗|划算嗎|合算吗"
    r"|(?<![a-z])(?:expensive|pricey|overpriced|over-priced|rip-?off|fair|reasonable|good\s+(?:deal|price)|too\s+much)(?![a-z])"
)
"""A price offered for a card, weighed ("3090 整卡 2500 一个月，贵不贵", "is 1,200 a month for a
T4 expensive?"): judged against the catalog's price for the same card."""

_CPU_UPGRADE = lazy(r"(?P<n>\d{1,3})\s?(?:核|个核|vcpus?|cores?|-core)(?![a-z])")
_RAM_UPGRADE = lazy(
    r"(?P<n>\d{2,4})\s?g(?:b|ib)?\s?(?:的\s?)?(?:内存|记忆体|記憶體|ram|memory)"
    r"|(?:内存|记忆体|記憶體|ram|memory)[^,;，。\d]{0,8}?(?P<m>\d{2,4})\s?g(?:b|ib)?(?![a-z])"
)


def upgrades_asked(text: str) -> list[str]:
    """The catalog upgrade ids a price question names: "升到 16 核" → cpu-16c, "128G 内存" → ram-128g.

    The ids follow the catalog's naming (``Catalog.addons``: cpu-<cores>c, ram-<GB>g); an id the
    catalog does not list is said as such by the answer, never priced."""
    out: list[str] = []
    if (m := _CPU_UPGRADE.search(text)) is not None:
        out.append(f"cpu-{int(m['n'])}c")
    if (m := _RAM_UPGRADE.search(text)) is not None:
        out.append(f"ram-{int(m['n'] or m['m'])}g")
    return out


# The hosted-API providers a message names, as knowledge/api_prices.yaml spells ``provider``.
_PROVIDERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("OpenAI", lazy(r"openai|chatgpt|gpt-?\d|(?<![a-z])o[34](?:-mini)?(?![a-z0-9])")),
    ("Anthropic", lazy(r"anthropic|claude")),
    ("Google", lazy(r"gemini|google")),
    ("DeepSeek", lazy(r"deepseek|深度求索")),
    ("Alibaba Bailian", lazy(r"百炼|通义|qwen-?(?:plus|turbo|max)|bailian|dashscope|阿里云 ?api")),
    ("Zhipu", lazy(r"智谱|zhipu|glm-?\d|bigmodel")),
    ("Moonshot Kimi", lazy(r"kimi|moonshot|月之暗面")),
)


def providers_named(text: str) -> list[str]:
    """The API providers normalised ``text`` names ("比 OpenAI 的 API 便宜吗" → OpenAI), in table order.

    A model the user would run themselves ("跑 Qwen2.5-72B") is no provider: only a hosted
    API's own names (qwen-plus, 通义, 百炼) count for Alibaba."""
    return [name for name, pattern in _PROVIDERS if pattern.search(text)]


_ONE_MACHINE = lazy(
    r"一台|一整台|整台|整机|单台|一个节点|(?<![a-z])(?:an? |one |the |per )?(?:\d+ ?x ?)?[a-z0-9 -]{0,12}?"
    r"(?:node|box|server|machine)(?!s)"
)


def one_machine_asked(text: str) -> bool:
    """The cards are asked as one machine ("一台 8 卡 A100", "8卡整机", "an 8x H100 node"), not
    as so many cards however they come ("8 张 A100")."""
    return _ONE_MACHINE.search(text) is not None


_BY_THE_HOUR = lazy(
    r"按小时|按小時|按时|按時|按量|按钟点|小时计费|小時計費|计时|計時|时租|時租"
    r"|(?<![a-z])(?:by|per)\s+the\s+hour|(?<![a-z])hourly(?![a-z])|pay[- ]as[- ]you[- ]go|per\s+hour"
)
_BY_THE_MONTH = lazy(
    r"包月|按月|月租|月付|(?<![a-z])(?:by|per)\s+the\s+month|(?<![a-z])monthly(?![a-z])|a\s+month(?![a-z])|per\s+month"
)


def asks_hourly_or_monthly(text: str) -> bool:
    """The message weighs paying by the hour against a month's rent ("按小时还是包月划算",
    "cheaper by the hour or monthly?"), whether or not it says either price."""
    return _BY_THE_HOUR.search(text) is not None and _BY_THE_MONTH.search(text) is not None


_WHAT_IT_RENTS = lazy(
    r"能租什么|能租啥|租什么|租啥|租哪|什么卡|啥卡|哪些卡|哪张卡|哪款|够吗|够不够|够用吗|租得起|租的起|买得起"
    r"|(?<![a-z])(?:what|which)\s+(?:gpus?|cards?|machines?|servers?)|can\s+i\s+(?:rent|get|afford)"
    r"|(?<![a-z])(?:enough|afford|within\s+(?:it|that|the\s+budget|budget))(?![a-z])|预算内|预算之内|在预算"
)


def asks_what_it_rents(text: str) -> bool:
    """A budget asked about ("预算每月 3000 能租什么卡", "A100 够吗", "what GPU can I rent?"): what
    the money rents, answerable from the catalog before any model is named."""
    return _WHAT_IT_RENTS.search(text) is not None
