"""Chinese words in Traditional characters, for the surfaces the dialog does not write.

The dialog converts its replies with OpenCC (``bot.dialog.script``); the words a surface
adds itself — a chart's labels, Telegram's chart button, the widget's own chrome — are
converted here, character by character, with the one table the readers already keep
(``text.hanzi``: each Traditional character and its Simplified form), read backwards.
Where one Simplified character stands for two Traditional ones the table's first wins
(里 → 裡, 么 → 麼, 复 → 復, 并 → 並: the Taiwan forms of the words we write); a few
Simplified characters that are themselves everyday Traditional characters (制, 干, 台, 占,
布) are left alone, since 限制 and 平台 are written so in Taiwan too.
"""

from __future__ import annotations

from gpu_advisor.text.hanzi import SIMPLIFIED, TRADITIONAL, traditional_words

KEPT = "制干台占布"


def _table() -> dict[int, str]:
    out: dict[int, str] = {}
    for hant, hans in zip(TRADITIONAL, SIMPLIFIED, strict=True):
        if hans != hant and hans not in KEPT:
            out.setdefault(ord(hans), hant)
    return out


TO_TRADITIONAL = _table()
"""``str.translate`` table: Simplified character to its Traditional form (the first the table lists)."""

ONLY_TRADITIONAL = "".join(sorted(set(TRADITIONAL) - set(SIMPLIFIED)))
"""Characters only Traditional writing has: one in a message says its writer writes Traditional."""
ONLY_SIMPLIFIED = "".join(sorted(set(SIMPLIFIED) - set(TRADITIONAL)))
"""Characters only Simplified writing has."""


def to_traditional(text: str) -> str:
    """``text`` with every Simplified character the table knows written in Traditional
    (the words a character cannot decide, 复制 → 複製, first)."""
    return traditional_words(text).translate(TO_TRADITIONAL)
