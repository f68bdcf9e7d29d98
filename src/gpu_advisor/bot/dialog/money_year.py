"""Beside a year's rent at the yearly rate, the same months paid month by month, and the saving.

"A100 包年多少" / "一年要多少錢" / "how much is an A100 a year?" are priced at the catalog's
yearly rate (``reading.period``): ¥2,800 × 0.8 × 12 = ¥26,880 for a100-40g-1x. Whoever asks a
year's price also weighs it against paying month by month, so the list-price total
(¥2,800 × 12 = ¥33,600) and the difference (¥6,720, 20 %) follow on one line. The figures
come from ``engine.price_lookup``'s line; nothing is computed twice.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.engine.billing import VendorQuote
from gpu_advisor.engine.price_lookup import PriceAnswer

MONTHS_IN_A_YEAR = 12


def month_by_month_line(lang: str, a: PriceAnswer) -> str | None:
    """Beside a yearly price: the list-price total of a year (or more) and what paying yearly
    saves, a month's list price and its saving for a month on a yearly plan, or that the
    offer has no yearly discount; None for a price that is not yearly."""
    if not a.in_catalog or not a.lines:
        return None
    line = a.lines[0]
    if not line.yearly or line.unit != "month":
        return None
    if not a.yearly_discount:  # "T4 一年多少钱": no discount, so the year is twelve list months
        return locales.t(lang, "prices.no_yearly_discount")
    if line.billed_units < MONTHS_IN_A_YEAR:  # "A100 按年付呢", "how much do I save if I pay yearly"
        return locales.t(
            lang,
            "prices.month_beside",
            monthly=locales.money(lang, line.monthly, line.currency),
            saving=locales.money(lang, line.monthly - line.unit_price * line.machines, line.currency),
            percent=round(line.discount * 100),
        )
    listed = line.monthly * line.billed_units
    return locales.t(
        lang,
        "prices.month_by_month",
        monthly=locales.money(lang, line.monthly, line.currency),
        months=locales.number(lang, line.billed_units),
        listed=locales.money(lang, listed, line.currency),
        saving=locales.money(lang, listed - line.total, line.currency),
        percent=round(line.discount * 100),
    )


def year_line(lang: str, q: VendorQuote) -> str | None:
    """A quoted month for a year: twelve months at the quote's yearly rate and month by month
    ("A800 八卡整机 5 万一个月，年付 85 折": ¥42,500 × 12 = ¥510,000; ¥600,000; saves ¥90,000)."""
    month = q.monthly()
    if month is None:
        return None
    yearly = q.yearly()
    if yearly is None or yearly >= month:
        return locales.t(
            lang,
            "prices.quote_year_flat",
            monthly=locales.money(lang, month, q.currency),
            total=locales.money(lang, month * MONTHS_IN_A_YEAR, q.currency),
        )
    return locales.t(
        lang,
        "prices.quote_year",
        yearly=locales.money(lang, yearly, q.currency),
        total=locales.money(lang, yearly * MONTHS_IN_A_YEAR, q.currency),
        monthly=locales.money(lang, month, q.currency),
        listed=locales.money(lang, month * MONTHS_IN_A_YEAR, q.currency),
        saving=locales.money(lang, (month - yearly) * MONTHS_IN_A_YEAR, q.currency),
    )
