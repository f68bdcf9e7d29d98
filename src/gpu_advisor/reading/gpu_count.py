"""How many cards a GPU name is written with: one grammar for the chat, quote and sheet readers.

Three readers used to count cards each their own way and disagreed on the same line:
"A100 x 12 ¥3/卡时" was 12 cards to the chat and sheet readers and no count to the quote
reader; "H100 整机 ¥180/小时" was a whole machine (eight) to the quote reader and no count
to the other two. The rules, in one place:

- a count is a number written right beside the name, before it ("8x H100", "8 卡 A100",
  "两张3090", "one A100", "an 8-GPU A100 server") or after it ("A100 x 12", "A100 8 卡");
- a number with a price mark is a price, not a count: "¥210 的 A100", "A100 3/卡时",
  "A100 12 元" (a currency sign before it, a currency, a slash or 卡时 after it);
- 整机 / "whole machine" is a whole box, :data:`WHOLE_BOX` cards (an HGX or DGX board
  holds eight), and 单卡 / "single GPU" one card, when no number is written.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import COUNT_WORDS, NUMBER, parse_number

WHOLE_BOX = 8
"""Cards in "H100 整机": an HGX/DGX board holds eight."""
MAX_GPUS = 64
"""More cards than this beside one name is not a count of cards."""
WINDOW = 24
"""How far before a name a count may stand ("8 张 NVIDIA A100")."""

_MEASURE = r"(?:x|\*|张卡|块卡|张|块|个|台|片|卡|pcs|-?\s*+(?:gpus?|cards?|way)(?![a-z]))"
"""What a count is written with: "8x", "8 张", "8-GPU" ("an 8-GPU A100 server"), "8-way"."""
_WORD = "|".join(sorted((w for w in COUNT_WORDS if w != "半"), key=lambda w: (-len(w), w)))
BEFORE = lazy(
    rf"(?:(?P<num>{NUMBER})|(?<![a-z])(?P<word>{_WORD}))\s*+{_MEASURE}?\s*+"
    r"(?:的|nvidia\s*+|tesla\s*+|geforce\s*+|rtx\s*+|英伟达)?\s*+$"
)
_SPEC = r"(?:\s*+(?:\d{2,3}\s*+g(?:b|ib)?|sxm\d?|pcie|nvl|hbm\d?e?)(?![a-z0-9]))*+"
"""What a sheet writes between a name and its count ("A100 80GB SXM4 x 8")."""
AFTER = lazy(
    rf"{_SPEC}\s*+(?:[x*]\s*+(?P<num>\d+)(?![\d.a-z])|(?P<cn>{NUMBER})\s*+(?:张|块|个(?!月|小时|星期|礼拜|钟)|台|片|卡)(?!时|\s*+/))"
)
_PRICE_SIGN = lazy(r"(?:[¥￥$€£]|(?<![a-z])(?:us|hk|nt|s)\$|(?<![a-z])(?:rmb|cny|usd|eur)(?![a-z]))\s*+$")
_PRICE_UNIT = lazy(r"\s*+(?:元|块钱|美元|刀|/|(?<![a-z])(?:rmb|cny|usd)(?![a-z]))")
ELSEWHERE = lazy(
    r"(?<![\d.])(?<!包月)(?<!每)(?P<n>\d{1,3}|[一二两三四五六七八九十]{1,2})\s*+(?:卡|张|块|片|颗)(?!时|\s*+/|\s*+(?:网|nic))"
    r"|(?<![\d.])(?P<e>\d{1,3})\s*+-?\s*+(?:gpus?|cards?)(?![a-z])"
    r"|(?<![a-z])(?:gpus?|cards?)\s*+x\s*+(?P<x>\d{1,3})(?![\d.])"
)
"""A count said elsewhere in the line ("8 卡训练型服务器", "8 GPUs", "GPU x 8"); not 卡时 or /卡."""
WHOLE = lazy(r"整机|整台|(?<![a-z])(?:whole\s+(?:machine|server|node|box)|full\s+node)(?![a-z])")
SINGLE = lazy(r"单卡|一张卡|(?<![a-z])single\s+(?:gpu|card)(?![a-z])")


@dataclass(frozen=True)
class Count:
    """Cards beside a name, and the span the name and its count cover together."""

    cards: float
    start: int
    end: int


def beside(text: str, start: int, end: int) -> Count | None:
    """The count written right beside the name at ``text[start:end]``, or None."""
    before = BEFORE.search(text, max(0, start - WINDOW), start)
    if before is not None and not _priced_before(text, before.start()):
        cards = _cards(before.group("word"), before.group("num"))
        if cards is not None:
            return Count(cards, before.start(), end)
    after = AFTER.match(text, end)
    if after is not None and _PRICE_UNIT.match(text, after.end()) is None:
        cards = parse_number(after.group("num") or after.group("cn"))
        if cards is not None and 0 < cards <= MAX_GPUS:
            return Count(cards, start, after.end())
    return None


def elsewhere(text: str) -> float | None:
    """The first count said in ``text`` away from any name, or None."""
    for match in ELSEWHERE.finditer(text):
        number = match.group("n") or match.group("e") or match.group("x")
        cards = COUNT_WORDS.get(number) or parse_number(number)
        if cards is not None and 0 < cards <= MAX_GPUS:
            return cards
    return None


def whole_or_single(text: str) -> float | None:
    """:data:`WHOLE_BOX` for 整机, 1 for 单卡, None when neither is said."""
    if SINGLE.search(text):
        return 1
    return WHOLE_BOX if WHOLE.search(text) else None


def _priced_before(text: str, start: int) -> bool:
    """ "¥210 的 A100": the number before the name is a price."""
    return _PRICE_SIGN.search(text, max(0, start - 4), start) is not None


def _cards(word: str | None, number: str | None) -> float | None:
    cards = COUNT_WORDS[word] if word else parse_number(number or "")
    return cards if cards is not None and 0 < cards <= MAX_GPUS else None
