"""How much of each kind of input is read: one cap per kind, decided here once.

A chat message is a requirement ("部署 70B，并发 20"): no real one is longer than
:data:`CHAT_CHARS` (the parser's own cap), and the cap bounds what a hostile message
costs. A sheet sent with ``/analyze`` is a server configuration as a vendor pastes it,
often several thousand characters with the network card on the last lines, so it is
read exactly as ``gpu-advisor analyze`` reads it: up to :data:`SHEET_CHARS`, the sheet
reader's cap, which also says when it cut (``truncated``, shown as a note). Whenever
input is cut, the reply says so.
"""

from __future__ import annotations

import unicodedata

from gpu_advisor.reading.dialog_words import SHEET_COMMAND_WORD as _SHEET_COMMAND_WORD
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS
from gpu_advisor.text.hanzi import SURROGATE, without_control
from gpu_advisor.text.sheet_lines import MAX_CHARS

CHAT_CHARS = MAX_INPUT_CHARS
SHEET_CHARS = MAX_CHARS
_SHEET_COMMAND = "/analyze"


def is_sheet(text: str) -> bool:
    """Whether the message is ``/analyze`` (or Telegram's ``/analyze@bot``) with a sheet."""
    return _SHEET_COMMAND_WORD.match(text) is not None


def limit_of(text: str) -> int:
    """Characters of ``text`` to keep before routing it.

    A sheet keeps one character past the sheet reader's cap, so the reader itself sees
    that it was longer and cuts it with its note; the cap is enforced there, once.
    """
    command = _SHEET_COMMAND_WORD.match(text)
    if command is not None:
        return command.end() + SHEET_CHARS + 1
    return CHAT_CHARS


def clean(text: str) -> tuple[str, bool]:
    """Control characters and lone surrogates out (``text.hanzi``'s one rule), cut at the
    cap for its kind; says whether it cut."""
    text = unicodedata.normalize("NFC", without_control(SURROGATE.sub(" ", text))).strip()
    limit = limit_of(text)
    return text[:limit], len(text) > limit


def has_words(text: str) -> bool:
    """True when the text has letters or CJK (not only emoji, digits or punctuation)."""
    return any(unicodedata.category(ch).startswith("L") for ch in text)
