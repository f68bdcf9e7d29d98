"""Buy or rent with a card and no purchase price: the rent for the period said, first (issue 44).

"自己买 A100 还是租 A100 划算，用一年" names the card and the period but no price to buy at and
no model: the catalog answers the renting half (a100-40g-1x for 12 months: ¥2,240 × 12 =
¥26,880 paid yearly, ¥33,600 month by month), which is the most the card may cost to buy,
before electricity, for buying to pay off within that time. The purchase price is asked
for, not the model: the payback needs only it (and the electricity price).
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_lines import gpu_name
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.price_lookup import lookup
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.quote import MoneyReading
from gpu_advisor.reading.use_words import Use

DEFAULT_MONTHS = 12
"""With no period said, a year: the usual horizon of a buy-or-rent question."""


def rent_side_money(kb: Knowledge, reading: MoneyReading, use: Use, lang: str) -> Content | None:
    """The catalog's rent of the named cards over the months said, or None (no card, a purchase
    price said: ``buy_rent_money`` answers it; a card the catalog does not rent)."""
    if reading.gpu is None or reading.purchase is not None:
        return None
    count = reading.count or 1
    months = use.months or reading.depreciation_months or DEFAULT_MONTHS
    hours = months * HOURS_PER_MONTH
    listed = lookup(kb, reading.gpu, count, hours, yearly=False)
    if not listed.in_catalog or not listed.lines or listed.lines[0].unit != "month":
        return None
    line = listed.lines[0]
    what = locales.t(lang, "followup.gpus", count=count, gpu=gpu_name(lang, kb, reading.gpu))
    rent = line.total
    lines = [
        locales.t(
            lang,
            "money.buy_ask.rent",
            months=months,
            monthly=locales.money(lang, line.monthly, line.currency),
            total=locales.money(lang, rent, line.currency),
        )
    ]
    if months >= 12 and listed.yearly_discount:
        yearly = lookup(kb, reading.gpu, count, hours, yearly=True).lines[0]
        rent = yearly.total
        lines.append(
            locales.t(
                lang,
                "money.buy_ask.yearly",
                monthly=locales.money(lang, yearly.unit_price * yearly.machines, line.currency),
                months=months,
                total=locales.money(lang, rent, line.currency),
            )
        )
    lines.append(locales.t(lang, "money.buy_ask.ceiling", total=locales.money(lang, rent, line.currency)))
    title = locales.t(lang, "money.buy_ask.title", what=what, months=months)
    return Content(title=title, summary=lines)
