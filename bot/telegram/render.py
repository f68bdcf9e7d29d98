"""Replies as Telegram messages: HTML with every dynamic value escaped, split under 4096.

The dialog core writes plain text; we escape all of it (so "<script>" or "a<b" in a
model name can never break the markup) and only add our own tags around headings.
Quick replies become an inline keyboard whose callback_data is the button payload
(ASCII, ≤ 64 bytes by construction in ``bot.dialog.reply``).
"""

from __future__ import annotations

import html
from functools import lru_cache

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot import textsplit
from bot.dialog import Button

MAX_MESSAGE = 4096
BUTTONS_PER_ROW = 3


def to_html(text: str) -> str:
    """Escape everything; make the first line (the pick or the question) bold."""
    lines = [html.escape(line) for line in text.split("\n")]
    if lines and lines[0]:
        lines[0] = f"<b>{lines[0]}</b>"
    return "\n".join(lines)


def split(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Message-sized chunks; always at least one, so an empty reply still answers."""
    return textsplit.split(text, limit) or [text[:limit]]


def keyboard(buttons: list[Button]) -> InlineKeyboardMarkup | None:
    if not buttons:
        return None
    return _markup(tuple((b.label, b.payload) for b in buttons))


@lru_cache(maxsize=512)
def _markup(buttons: tuple[tuple[str, str], ...]) -> InlineKeyboardMarkup:
    """Built once per distinct keyboard: PTB's objects are immutable, and building one costs
    more than rendering the reply's text (the dialog asks the same few questions)."""
    rows = [buttons[i : i + BUTTONS_PER_ROW] for i in range(0, len(buttons), BUTTONS_PER_ROW)]
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=payload) for label, payload in row] for row in rows]
    )
