"""Money answered from what was said, before any model is named (issue 44).

"供应商报价 8卡H100 每小时 ¥180，包月 ¥9万，我要训练大约 300 小时，哪种划算" needs only
300 × ¥180 = ¥54,000 < ¥90,000; a purchase price with electricity and a period needs only
the card's TDP; a daily token volume needs only the API prices. Each function here takes
the message's money reading (``reading.quote.MoneyReading``) and its use of time and volume
(``reading.use_words.Use``) and returns a reply's parts, or None when what was said is not
enough (then the model question is asked as before). The fit check follows once a model
is named: ``then_fit`` says so at the end of every answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_lines import gpu_name
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.bot.dialog.stated_lines import (
    api_lines,
    api_rows_lines,
    beside_lines,
    buy_rent_lines,
    money_title,
    schedule_lines,
)
from gpu_advisor.engine import price_lookup
from gpu_advisor.engine.api_compare import TokenPrice, TokenVolume, api_months, rent_vs_api, user_price
from gpu_advisor.engine.billing import Period, QuotePrice, VendorQuote, schedule_hours
from gpu_advisor.engine.cost import HOURS_PER_MONTH, to_currency
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.payback import BuyRentAsk, buy_vs_rent
from gpu_advisor.engine.quote import beside_catalog, money_only
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.api_prices import api_reference
from gpu_advisor.knowledge.prices import reference
from gpu_advisor.reading.dialog_words import BUDGET
from gpu_advisor.reading.money_words import amounts
from gpu_advisor.reading.quote import MoneyReading
from gpu_advisor.reading.use_words import Use

FEW_HOURS_A_DAY = 4.0
"""'每天几个小时' / 'a few hours a day' is a daily schedule with no number: priced at 4 hours a
day (the middle of the three to five people mean), said as such, with the hours a day past
which a month's rent wins, so anyone who uses more sees where they stand."""


def hours_said(use: Use, reading: MoneyReading) -> tuple[float, Period, float | None] | None:
    """The hours to price and how: a daily schedule (a month of it), hours a month, or a job's total."""
    if use.hours_per_day is not None:
        return schedule_hours(use.hours_per_day), "month", use.hours_per_day
    if use.few_hours_a_day:  # a schedule, never a job of that many hours
        return schedule_hours(FEW_HOURS_A_DAY), "month", FEW_HOURS_A_DAY
    month = use.hours_per_month or reading.hours_per_month
    if month is not None:
        return month, "month", None
    if use.job_hours is not None:
        return use.job_hours, "job", None
    return None


def break_even_day_line(lang: str, hours_month: float) -> str:
    """The hours a day past which the month wins (break-even ÷ 30), or, past 24 h a day, that
    the hour wins however long the card runs ("每天用不到 26.7 小时" is no day)."""
    if hours_month / 30 > 24:
        return locales.t(lang, "money.stated.break_even_never", hours=hours_month)
    return locales.t(lang, "money.stated.break_even_day", per_day=hours_month / 30, hours=hours_month)


def quote_money(kb: Knowledge, reading: MoneyReading, use: Use, lang: str) -> Content | None:
    """A quote's billing for the hours said (a month of 720 h when none), with no model."""
    q = reading.quote() or billing_choice(reading)
    if q is None:
        return None
    said = hours_said(use, reading)
    hours, period, per_day = said or (HOURS_PER_MONTH, "month", None)
    try:
        m = money_only(q, kb, hours, period, reading.currency)
    except EngineError:
        return None
    lines = schedule_lines(lang, m.billing, m.quote, per_day)
    if use.few_hours_a_day and use.hours_per_day is None:
        lines.insert(0, locales.t(lang, "money.stated.few_hours", per_day=FEW_HOURS_A_DAY))
    beside = beside_catalog(m, kb)
    if beside is not None:  # is the quote fair: the catalog's same cards for the same hours
        lines += beside_lines(lang, beside, m.quote.count, gpu_name(lang, kb, m.gpu or ""))
    if (said is None or per_day is not None) and m.billing.break_even_hours_month is not None:
        # a schedule (said or "a few hours"), or no hours: where the month starts to win, a day
        even = m.billing.break_even_hours_month
        lines.append(break_even_day_line(lang, even))
    lines.append(locales.t(lang, "money.stated.then_fit"))
    return Content(title=money_title(lang, m, kb), summary=lines)


def billing_choice(reading: MoneyReading) -> VendorQuote | None:
    """Two ways of paying with no card named ("按小时 12 块和包月 6000"): still a quote to price."""
    if reading.gpu is not None or len({p.per for p in reading.prices}) < 2:
        return None
    currency = reading.prices[0].currency
    return VendorQuote(gpu="", prices=[p for p in reading.prices if p.currency == currency])


def buy_rent_money(kb: Knowledge, reading: MoneyReading, use: Use, lang: str) -> Content | None:
    """Buying at the stated price against renting the same cards, with no model."""
    if reading.purchase is None or reading.gpu is None:
        return None
    count = reading.count or 1
    month = _machine_month(reading, count)
    hour = next((p for p in reading.prices if p.per in ("hour", "card_hour")), None)
    per_day = use.hours_per_day
    hours = (
        schedule_hours(per_day)
        if per_day
        else (use.hours_per_month or reading.hours_per_month or HOURS_PER_MONTH)
    )
    ask = BuyRentAsk(
        gpu=reading.gpu,
        count=count,
        purchase_price=reading.purchase,
        rent_monthly=month,
        rent_hourly=_per_machine_hour(hour, count),
        electricity_per_kwh=reading.electricity,
        hosting_per_month=reading.hosting,
        hours_per_month=min(hours, HOURS_PER_MONTH),
        months=use.months or reading.depreciation_months,
        pue=reading.pue,
        currency=reading.currency,
    )
    try:
        result = buy_vs_rent(ask, kb, reference())
    except EngineError as exc:
        return _no_rent(kb, reading, count, lang) if exc.code == "no_rent_price" else None
    title, lines = buy_rent_lines(lang, result, kb)
    if ask.rent_hourly is not None and ask.rent_hourly.currency == reading.purchase.currency:
        lines.insert(0, _rent_hours_line(lang, reading.purchase, ask.rent_hourly))
    return Content(title=title, summary=lines)


def card_price_said(kb: Knowledge, reading: MoneyReading, low: str) -> Money | None:
    """A card's purchase price said with no period and no buying word ("4090 五万台币 值不值",
    "RTX 4090 US$1,800 worth it?"): one amount marked with its currency beside the card, in the
    range such a card sells for (0.3-3× the dated reference price, knowledge/prices.yaml). A
    rent would carry a period, a budget its word; a card with no reference price is not guessed."""
    if reading.gpu is None or reading.prices or reading.purchase is not None or BUDGET.search(low):
        return None
    marked = [a for a in amounts(low) if a.marked]
    if len(marked) != 1:
        return None
    said = marked[0]
    listed = reference().card_price(reading.gpu, said.currency)
    same = to_currency(listed.price, listed.currency, said.currency, kb.catalog.fx_to_cny) if listed else None
    if not same or not 0.3 <= said.value / same <= 3:
        return None
    return Money(amount=said.value, currency=said.currency)


def _no_rent(kb: Knowledge, reading: MoneyReading, count: int, lang: str) -> Content:
    """A purchase price for cards the catalog does not rent: the price against the dated reference
    purchase price where one is listed, and the one number still needed — what renting them costs."""
    assert reading.purchase is not None
    assert reading.gpu is not None
    price, gpu = reading.purchase, gpu_name(lang, kb, reading.gpu)
    title = locales.t(
        lang, "money.own.bought", count=count, gpu=gpu, price=price.amount, currency=price.currency
    )
    lines: list[str] = []
    ref = reference()
    listed = (
        ref.server_price(reading.gpu, count) if count > 1 else ref.card_price(reading.gpu, price.currency)
    )
    if listed is not None:
        same = to_currency(
            listed.price * (1 if count > 1 else count), listed.currency, price.currency, kb.catalog.fx_to_cny
        )
        if same is not None:
            values = {
                "ref": listed.price * (1 if count > 1 else count),
                "ref_currency": listed.currency,
                "converted": same,
                "currency": price.currency,
                "ratio": price.amount / same,
                "date": listed.date.isoformat(),
                "source": listed.source.split(" (")[0].split(": ")[0],  # its title; the row keeps the rest
            }
            key = "against_reference" if listed.currency != price.currency else "against_reference_same"
            lines.append(locales.t(lang, f"money.own.{key}", **values))
    lines.append(locales.t(lang, "money.own.no_rent", count=count, gpu=gpu))
    return Content(title=title, summary=lines)


def _machine_month(reading: MoneyReading, count: int) -> Money | None:
    """The machine's month: a monthly price, or a card-month price times the cards."""
    for p in reading.prices:
        if p.per in ("month", "card_month"):
            return Money(amount=p.amount * (count if p.per == "card_month" else 1), currency=p.currency)
    return None


def _rent_hours_line(lang: str, price: Money, hourly: Money) -> str:
    """ "用多久才回本" asked with an hourly rent: the rented hours that cost the purchase price
    (¥15,000 ÷ ¥2.5/h = 6,000 h, 250 days around the clock), before power, so the answer
    is in the unit the question asked; the months with power follow."""
    hours = price.amount / hourly.amount
    return locales.t(
        lang,
        "money.buy_rent.rent_hours",
        price=price.amount,
        rate=hourly.amount,
        hours=hours,
        days=hours / 24,
        currency=price.currency,
    )


def _per_machine_hour(price: QuotePrice | None, count: int) -> Money | None:
    """A machine's hour: a card-hour price times the cards."""
    if price is None:
        return None
    amount = price.amount * (count if price.per == "card_hour" else 1)
    return Money(amount=amount, currency=price.currency)


def api_money(
    kb: Knowledge,
    reading: MoneyReading,
    use: Use,
    lang: str,
    fallback: Money | None,
    named: Sequence[str] = (),
    model_known: bool = False,
) -> Content | None:
    """Rent against the APIs for the daily volume said: the user's own prices, or the reference
    table (only the providers ``named`` when the message names some: "比 OpenAI 便宜吗" is
    answered with OpenAI's prices); the rent is the one said, else ``fallback`` (the plan's
    pick), else the APIs alone. The fit question follows unless the model is known."""
    volume = _volume(use)
    if volume is None:
        return None
    prices = _prices(reading, use)
    asked = [p for p in prices if p.provider in named]
    prices = asked or prices
    rent = _rent_said(kb, reading) or fallback
    currency = reading.currency or (rent.currency if rent else kb.catalog.currency)
    rates = kb.catalog.fx_to_cny
    try:
        if rent is None:
            rows = api_months(volume, prices, rates, currency)
            title, lines = api_rows_lines(lang, volume.per_day, rows, currency)
            return Content(title=title, summary=lines)
        result = rent_vs_api(volume, rent, prices, rates, currency)
    except EngineError:
        return None
    title, lines = api_lines(lang, result)
    if reading.gpu is not None and lines:  # "would renting a T4 be cheaper": the rent names its cards
        gpus = locales.t(lang, "followup.gpus", count=reading.count or 1, gpu=gpu_name(lang, kb, reading.gpu))
        rent_line = locales.t(
            lang, "money.api_cmp.rent_card", gpus=gpus, rent=result.rent_monthly, currency=result.currency
        )
        lines = [rent_line, *lines[1:]]
    then = [] if model_known else [locales.t(lang, "money.stated.then_fit")]
    return Content(title=title, summary=[*lines, *then])


def _prices(reading: MoneyReading, use: Use) -> list[TokenPrice]:
    """The user's API prices (input and output, or one for every token), else the reference table."""
    if use.api_input_per_million is not None and use.api_output_per_million is not None:
        currency = use.api_currency or "CNY"
        return [
            user_price(
                Money(amount=use.api_input_per_million, currency=currency),
                Money(amount=use.api_output_per_million, currency=currency),
            )
        ]
    if reading.api_output_per_million is not None:
        return [user_price(reading.api_output_per_million)]
    return list(api_reference().token_apis)


def _volume(use: Use) -> TokenVolume | None:
    if use.input_per_day and use.output_per_day:
        return TokenVolume(input_per_day=use.input_per_day, output_per_day=use.output_per_day)
    if use.tokens_per_day:
        return TokenVolume(total_per_day=use.tokens_per_day)
    return None


def _rent_said(kb: Knowledge, reading: MoneyReading) -> Money | None:
    """The rent the message states (a month, or an hour × 720), else the catalog's for its card."""
    month = _machine_month(reading, reading.count or 1)
    if month is not None:
        return month
    for p in reading.prices:
        if p.per in ("hour", "card_hour"):
            count = (reading.count or 1) if p.per == "card_hour" else 1
            return Money(amount=p.amount * count * HOURS_PER_MONTH, currency=p.currency)
    if reading.gpu is None:
        return None
    answer = price_lookup.lookup(kb, reading.gpu, reading.count or 1, HOURS_PER_MONTH)
    if not answer.in_catalog or answer.total is None or answer.currency is None:
        return None
    return Money(amount=answer.total, currency=answer.currency)


__all__ = ["api_money", "billing_choice", "buy_rent_money", "card_price_said", "hours_said", "quote_money"]
