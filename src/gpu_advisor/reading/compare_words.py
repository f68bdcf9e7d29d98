"""Whether a card comparison asks about money: "价差多少", "compare a100 and h100 prices".

``reading.question_form`` hears a price question on its own ("多少钱", "how much"); inside a
comparison the money is often one noun ("价差", "prices", "cost difference") that would
not make a price question alone, yet asks for the catalog's prices side by side
(``bot.dialog.compare_view``, through ``Message.heard``). The words are the lexicon's
:data:`~gpu_advisor.reading.lexicon.COMPARE_MONEY`.
"""

from __future__ import annotations

from gpu_advisor.reading import lexicon

_MONEY = lexicon.pattern(*lexicon.COMPARE_MONEY)


def compare_asks_money(low: str) -> bool:
    """Whether a (normalised) comparison mentions price or cost at all."""
    return _MONEY.search(low) is not None
