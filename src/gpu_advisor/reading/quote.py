"""A pasted vendor quote, or a buy-vs-rent question, read into structured values.

"8×A800 80G ¥58,000/月 年付85折", "4090 ¥1.6/卡时", "H100 整机每小时 ¥180 或包月 ¥9 万",
"$2.5/hr per H100": the card (``text.names`` over the knowledge's ids and aliases), how
many per machine (8×, 8卡, 八卡, x8, 8-GPU; 整机 alone is an 8-card box), every price with
its period and per-card mark (``reading.money_words``), and the yearly discount (年付85折
pays 85 %: ``yearly_discount`` 0.15; "15% off yearly").

The same reading picks out what ownership needs, each by the words that mark it, before
the quote's prices are read (so "电费 0.6 元一度" is never a ¥0.6 budget or price):
electricity (电费 0.6 元一度, ¥0.8/kWh, 工业电 1 块), PUE, hosting (托管费 ¥3000/月),
a purchase price (买/采购/buy … ¥120万), depreciation (折旧 3 年), an API's price per
million tokens (¥8/百万 tokens, $0.6 per 1M tokens) and hours of use a month.

Text is normalised first (``text.normalize``: width, Traditional, case, whitespace),
then read by small patterns in one pass each (see /work/shared/notes/linear-time-parsing.md).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from gpu_advisor.engine.billing import PricePer, QuotePrice, VendorQuote
from gpu_advisor.engine.ownership import OwnershipAsk
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading import gpu_count
from gpu_advisor.reading.money_words import Amount, amounts, period_of
from gpu_advisor.text.names import index_of
from gpu_advisor.text.normalize import normalize
from gpu_advisor.text.numbers import NUMBER, parse_number

MAX_TEXT = 4000

_GPU = re.compile(
    r"(?:(?<=\dx)|(?<![a-z0-9]))(?:(?:nvidia|tesla|geforce|rtx|hgx|dgx) ?)*+"
    r"(?P<name>[a-z]{1,2}\d{1,4}[a-z]?|\d{4}d?|910b)(?![a-z0-9])"
    r"(?: ?(?P<mem>\d{2,3}) ?g(?:b)?(?![a-z]))?(?: ?(?P<form>sxm\d?|pcie|nvl)(?![a-z]))?"
)
_DISCOUNT_ZH = re.compile(
    r"(?:年付|年缴|年繳|包年|年租|按年|一年|年)\s?(?:打\s?)?"
    r"(?P<n>\d{1,2}(?:\.\d)?|[一二三四五六七八九]{1,2}) ?折"
)
_DISCOUNT_EN = re.compile(
    r"(?P<p>\d{1,2}(?:\.\d)?) ?% ?(?:off|discount)[^,;.\n]{0,20}?(?:year|annual)"
    r"|(?:year|annual)[^,;.\n]{0,20}?(?P<q>\d{1,2}(?:\.\d)?) ?% ?(?:off|discount)"
)

_ELECTRICITY = re.compile(r"电费|电价|工业电|商业电|民用电|一度电|每度电|electricity|power (?:price|cost)")
_KWH_AFTER = re.compile(r"^ ?(?:/|每|一|per|a)? ?(?:度|kwh|kw·h|kw/h|kilowatt)")
_PUE = re.compile(rf"pue ?(?:=|:|是|为|of)? ?(?P<num>{NUMBER})")
_HOSTING = re.compile(r"托管|机柜|机位|hosting|colo(?:cation)?|rack")
_BUY = re.compile(r"买|购|采购|入手|售价|buy|purchase|own|costs?(?! (?:per|an? (?:hour|month)))")
_API = re.compile(
    r"^ ?(?:/|每|per)? ?(?:百万|1m|m|million|1 million) ?tokens?"
    r"|^ ?(?:/|每|per|a) ?(?:百万|1m|m|million)(?![a-z])"
)
_API_BEFORE = re.compile(
    r"(?:每百万|百万) ?(?:tokens? ?)?(?:输出|输入)? ?$|per (?:1m|million) (?:output |input )?tokens? ?$"
)
"""The price of a million tokens written before the amount ("每百万 token 8 块", "每百万输出 8 块")."""
_DEPRECIATION = re.compile(
    rf"(?:折旧|摊销|depreciat\w*)[^,;，。\n\d]{{0,10}}?(?P<num>{NUMBER}) ?(?P<unit>年|个月|月|years?|months?)"
)
_HOURS_MONTH = re.compile(
    rf"(?:每月|一个月|每个月|月)[^,;，。\n\d]{{0,6}}?(?P<a>{NUMBER}) ?(?:个)?小时"
    rf"|(?P<b>\d{{1,3}}) ?(?:hours?|hrs?|h) (?:a|per|each|/) ?month"
)


@dataclass(slots=True)
class MoneyReading:
    """What a message says about money: a quote's card and prices, and ownership's inputs."""

    gpu: str | None = None
    count: int | None = None
    prices: list[QuotePrice] = field(default_factory=list)
    yearly_discount: float = 0.0
    electricity: Money | None = None
    pue: float | None = None
    hosting: Money | None = None
    purchase: Money | None = None
    depreciation_months: int | None = None
    api_output_per_million: Money | None = None
    hours_per_month: float | None = None
    currency: str | None = None  # the currency the user wrote in

    def quote(self) -> VendorQuote | None:
        """The vendor's quote, when the text names a card and at least one price."""
        if self.gpu is None or not self.prices:
            return None
        currency = self.prices[0].currency
        prices = [p for p in self.prices if p.currency == currency]
        return VendorQuote(
            gpu=self.gpu, count=self.count or 1, prices=prices, yearly_discount=self.yearly_discount
        )

    def ownership_ask(self) -> OwnershipAsk:
        return OwnershipAsk(
            purchase_price=self.purchase,
            electricity_per_kwh=self.electricity,
            pue=self.pue,
            hosting_per_month=self.hosting,
            depreciation_months=self.depreciation_months,
            hours_per_month=self.hours_per_month,
            api_output_per_million=self.api_output_per_million,
            currency=self.currency,
        )

    @property
    def about_ownership(self) -> bool:
        return any((self.electricity, self.purchase, self.hosting, self.api_output_per_million, self.pue))


def read(text: str, kb: Knowledge) -> MoneyReading:
    """Everything ``text`` says about a quote or about owning hardware."""
    return read_normalized(normalize(text[:MAX_TEXT]), kb)


def read_normalized(t: str, kb: Knowledge) -> MoneyReading:
    """``read`` for text already normalised once (a chat message's ``Message.low``)."""
    t = t[:MAX_TEXT]
    out = MoneyReading()
    _card(t, kb, out)
    out.yearly_discount = _discount(t)
    found = [a for a in amounts(t) if 0 < a.value < math.inf]  # ¥0 or 400 digits is no price
    rest = [a for a in found if not _ownership_amount(t, a, out)]
    out.prices = _first_per_period(t, rest)
    _ownership_words(t, out)
    marked = [a for a in found if a.marked]
    out.currency = marked[0].currency if marked else None
    return out


def _first_per_period(t: str, found: list[Amount]) -> list[QuotePrice]:
    """Each period's first price: the one billing reads (``VendorQuote.hourly`` takes the first
    hourly price, and so on), so a pasted price list of any length stays a quote of at most
    eight prices, one per way of billing."""
    prices: dict[str, QuotePrice] = {}
    for a in found:
        per = period_of(t, a)
        if per is not None and per not in prices:
            prices[per] = QuotePrice(amount=a.value, currency=a.currency, per=_as_per(per))
    return list(prices.values())


def _as_per(per: str) -> PricePer:
    assert per in ("hour", "card_hour", "day", "card_day", "month", "card_month", "year", "card_year")
    return per  # type: ignore[return-value]


def _card(t: str, kb: Knowledge, out: MoneyReading) -> None:
    """The first card the text names, and how many of it a machine holds (counted with the
    amounts of money blanked: "每卡时 3 块" is three yuan, never three cards)."""
    counted = _without_money(t)
    index = index_of(kb.gpus.values())
    for m in _GPU.finditer(t):
        name, mem, form = m["name"], m["mem"] or "", m["form"] or ""
        for spelling in (f"{name} {mem}g {form}", f"{name} {mem}g", f"{name} {form}", name):
            gpu = index.get(spelling) if "  " not in spelling and not spelling.endswith(" ") else None
            if gpu is not None:
                out.gpu, out.count = gpu, _count(counted, m.start(), m.end())
                return


def _without_money(t: str) -> str:
    """``t`` with each currency-marked amount blanked (positions kept, so a card found in ``t``
    is counted at the same place)."""
    for a in amounts(t):
        if a.marked:
            t = t[: a.start] + "_" * (a.end - a.start) + t[a.end :]
    return t


def _count(t: str, start: int, end: int) -> int | None:
    """Cards per machine by the one grammar (``reading.gpu_count``): 8×A800, A800 x8,
    8卡/八卡/8 GPUs anywhere, 整机 (8) or 单卡 (1)."""
    near = gpu_count.beside(t, start, end)
    cards = near.cards if near is not None else gpu_count.elsewhere(t) or gpu_count.whole_or_single(t)
    return int(cards) if cards else None


def _discount(t: str) -> float:
    """The share off for paying a year ahead: 年付85折 → 0.15, 年付8折 → 0.2, "15% off yearly" → 0.15."""
    zh = _DISCOUNT_ZH.search(t)
    if zh:
        paid = parse_number(zh["n"]) or 0.0
        paid = paid / 100 if paid >= 10 else paid / 10
        return round(1 - paid, 4) if 0 < paid < 1 else 0.0
    en = _DISCOUNT_EN.search(t)
    if en:
        off = float(en["p"] or en["q"]) / 100
        return off if 0 < off < 1 else 0.0
    return 0.0


def _clause_before(t: str, start: int, width: int = 16) -> str:
    """Up to ``width`` characters before ``start``, not reaching back past a clause break."""
    before = t[max(0, start - width) : start]
    cut = max(before.rfind(c) for c in ",;，。；\n")
    return before[cut + 1 :]


def _ownership_amount(t: str, a: Amount, out: MoneyReading) -> bool:
    """File an amount under electricity, API, hosting or purchase when its words say so."""
    before, after = _clause_before(t, a.start), t[a.end : a.end + 20]
    money = Money(amount=a.value, currency=a.currency)
    if _KWH_AFTER.match(after) or (_ELECTRICITY.search(before) and a.value < 10):
        out.electricity = out.electricity or money
    elif _API.match(after) or _API_BEFORE.search(before):
        out.api_output_per_million = out.api_output_per_million or money
    elif _HOSTING.search(before):
        out.hosting = out.hosting or money
    elif _BUY.search(_clause_before(t, a.start, 40)) and period_of(t, a) is None:
        out.purchase = out.purchase or money
    else:
        return False
    return True


_BARE_ELECTRICITY = re.compile(
    rf"(?:电费|电价|工业电|商业电|electricity)[^,;，。\n\d]{{0,6}}?(?P<num>{NUMBER})"
)
_BARE_PURCHASE = re.compile(r"(?<![a-z0-9.])(?P<num>\d+(?:\.\d+)?) ?(?:万|w)(?![a-z])")
# "买一张 4090 一万三": spoken ten-thousands with the thousands after them (一万三 = 13,000,
# 两万五 = 25,000); a digit before 万 counts too (1万3).
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_SPOKEN_WAN = re.compile(
    r"(?<![\d一二两三四五六七八九十百千])(?P<w>[一二两三四五六七八九]|\d)万(?P<k>[一二三四五六七八九\d])?(?![千百十万\d])"
)
# "买一张4090大概15000", "a 4090 costs 15000": a bare price after a price word (the card's own
# number has none before it), in the buying clause.
_BARE_PRICE = re.compile(
    r"(?:大概|大约|约|要|花了?|只要|才|价格|价钱|售价|for|at|costs?|about|around|~)\s?"
    r"(?P<num>\d{3,7}(?:,\d{3})*)(?![\d.a-z]| ?(?:万|w|k|%|卡|张|台|个|小时|天|年|月|度))"
)


def _spoken_wan(m: re.Match[str]) -> float:
    """一万三 → 13,000; 两万 → 20,000; 1万3 → 13,000."""

    def digit(c: str) -> int:
        return int(c) if c.isdigit() else _ZH_DIGITS[c]

    return digit(m["w"]) * 1e4 + (digit(m["k"]) * 1e3 if m["k"] else 0.0)


def _ownership_words(t: str, out: MoneyReading) -> None:
    """PUE, depreciation, hours a month, and amounts written without a currency."""
    if out.electricity is None and (m := _BARE_ELECTRICITY.search(t)):
        value = parse_number(m["num"])
        if value is not None and 0 < value < 10:
            out.electricity = Money(amount=value, currency="CNY")
    if (m := _PUE.search(t)) and (value := parse_number(m["num"])) and 1 <= value <= 3:
        out.pue = value
    if m := _DEPRECIATION.search(t):
        value = parse_number(m["num"]) or 0
        months = value * 12 if m["unit"].startswith(("年", "year")) else value
        out.depreciation_months = int(months) if 1 <= months <= 120 else None
    if m := _HOURS_MONTH.search(t):
        hours = parse_number(m["a"] or m["b"]) or 0
        out.hours_per_month = hours if 0 < hours <= 720 else None
    if out.purchase is None and (buy := _BUY.search(t)):
        m = _BARE_PURCHASE.search(t, buy.end())
        spoken = _SPOKEN_WAN.search(t, buy.end())
        if m and m.start() - buy.end() < 40:
            out.purchase = Money(amount=float(m["num"]) * 1e4, currency="CNY")
        elif spoken and spoken.start() - buy.end() < 40:
            out.purchase = Money(amount=_spoken_wan(spoken), currency="CNY")
        elif (p := _BARE_PRICE.search(t, buy.end())) and p.start() - buy.end() < 30:
            value = float(p["num"].replace(",", ""))
            if value >= 1000 and not re.search(r"[,;，。；]", t[buy.end() : p.start()]):
                out.purchase = Money(amount=value, currency="CNY")
