"""One canonical spelling of a message before any pattern looks at it.

Chinese IMEs type full-width forms (ＱＰＳ, １３Ｂ, ，), Taiwanese and Hong Kong users
type Traditional characters (萬, 億, 張, 訓練), counts come with a multiplication sign
(8×H100) and case is arbitrary. NFKC folds the width forms; a small hand table maps the
Traditional characters the lexicon actually uses (a full OpenCC table is megabytes and
buys nothing here); then everything is lower-cased so patterns can be written once.

Language is decided on the raw text, deterministically: any Han character (or CJK
punctuation / full-width form, which only a Chinese IME produces) means Chinese.
Statistical detectors misjudge short mixed text such as "需要 2x A100 for training".

Normalising is also what keeps every slot pattern linear in the message length. Slot
patterns put ``\\s*`` between a number, a unit and a keyword (``16 个 用户 的 并发``);
over a long run of whitespace several such quantifiers can split the run between them
in quartic many ways ("1" + 450 spaces + "x" took 44 s). So every run of whitespace
(any Unicode space, tab, U+3000, zero-width characters) becomes one character: a
newline if the run held a line break (a newline ends a clause for the readers), else
one space. A run of one repeated character is cut to :data:`MAX_REPEAT`, and lone
surrogates (half a UTF-16 pair, which cannot be encoded) become spaces, so nothing the
readers quote back can fail to print.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from reading.hanzi import SURROGATE, TO_SIMPLIFIED, without_control

Lang = Literal["zh", "en"]


# Width-independent symbols NFKC leaves alone: multiplication signs become "x" (8×H100,
# 7×24), the various minus signs and dashes become "-".
_SYMBOLS = {"×": "x", "✕": "x", "✖": "x", "⨯": "x", "−": "-", "‐": "-", "‑": "-", "‒": "-", "–": "-"}
_TABLE = TO_SIMPLIFIED | str.maketrans(_SYMBOLS)  # one Traditional table (reading.hanzi)

# Control characters (reading.hanzi.CONTROL) and lone surrogates become spaces so they
# separate words instead of gluing them; zero-width characters vanish.
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff]")
MAX_REPEAT = 32
"""Longest run of one repeated character kept; no quantity or keyword needs more."""

_WHITESPACE_RUN = re.compile(r"\s{2,}+")
_REPEAT_RUN = re.compile(rf"(.)\1{{{MAX_REPEAT},}}+", re.DOTALL)

_CHINESE = re.compile(
    r"[\u3000-\u303f\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)


def normalize(text: str) -> str:
    """Fold width, Traditional characters, symbols and case so patterns match one spelling."""
    text = _ZERO_WIDTH.sub("", SURROGATE.sub(" ", without_control(text)))
    text = unicodedata.normalize("NFKC", text)
    text = _WHITESPACE_RUN.sub(_one_space, text.translate(_TABLE).lower())
    return _REPEAT_RUN.sub(_capped, text)


def _one_space(run: re.Match[str]) -> str:
    """A newline if the run ends a line (a clause break for the readers), else a space."""
    return "\n" if "\n" in run.group() else " "


def _capped(run: re.Match[str]) -> str:
    return run.group()[:MAX_REPEAT]


def language_of(text: str) -> Lang:
    """Chinese if the raw text holds any Han character or Chinese-IME punctuation, else English."""
    return "zh" if _CHINESE.search(text) else "en"
