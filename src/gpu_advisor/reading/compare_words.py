"""Whether a card comparison asks about money: "价差多少", "compare a100 and h100 prices".

``reading.question_form`` hears a price question on its own ("多少钱", "how much"); inside a
comparison the money is often one noun ("价差", "prices", "cost difference") that would
not make a price question alone, yet asks for the catalog's prices side by side
(``bot.dialog.compare_view``). Linear patterns on the normalised text.
"""

from __future__ import annotations

from gpu_advisor.text.lazy import lazy

_MONEY = lazy(
    r"价差|差价|价格|价钱|价位|租金|多少钱|贵多少|便宜多少|贵几倍|费用|成本|划算|合算|性价比|省钱|更省|值得"
    r"|\b(prices?|pricing|costs?|cheaper|pricier|more expensive|rent(al)? (fee|price)s?"
    r"|cost[- ]effective|value for money|bang for (the|my) buck|better (deal|value)|worth it)\b"
)
"""Money named in a comparison; value asked ("哪个更划算", "more cost-effective") is money too:
it is weighed on the two prices."""


def compare_asks_money(low: str) -> bool:
    """Whether a (normalised) comparison mentions price or cost at all."""
    return _MONEY.search(low) is not None
