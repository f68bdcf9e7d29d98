"""A reply that only names a China-market card (its price, the nearest offers) says its caveat.

A plan on such a card, and a verdict on it, carry the caveat from ``engine.rules.china_cards``;
a price lookup names the card too ("910B 多少钱": not in the catalog, here is the nearest), so
it says the same caveat in its short form: the rebuilt 4090's warranty, the Ascend stack, the
H20's slow prefill (``china_cards.named_caveats``), in the user's language (issue 47).
"""

from __future__ import annotations

from gpu_advisor.bot.dialog.words import caveat
from gpu_advisor.engine.rules.china_cards import named_caveats
from gpu_advisor.engine.specs import Knowledge


def caveat_lines(kb: Knowledge, lang: str, gpu: str | None) -> list[str]:
    """ "⚠ …" for each caveat the card ``gpu`` carries wherever it is named; none for other cards."""
    card = kb.gpus.get(gpu or "")
    return [f"⚠ {caveat(lang, f)}" for f in named_caveats(card, kb)] if card is not None else []
