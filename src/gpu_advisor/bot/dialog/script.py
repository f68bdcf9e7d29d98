"""Replies in the script the user writes: a message in Traditional characters is answered
in Traditional.

The readers work in Simplified (``text.hanzi`` folds what they need), and the zh locale
is written once, in Simplified. A reply to someone writing Traditional is converted as a
whole by OpenCC's Simplified→Traditional (Taiwan) table, which knows the phrase-level
cases a character table gets wrong (发 → 發 or 髮, 后 → 後 or 后), then two corrections
for words our sentences use where its phrase table picks the rarer form (并发 → 並發, not
併發; 只 as "only" never 隻). OpenCC is imported on the first Traditional message, so the
other users pay nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from gpu_advisor.text.hanzi import SIMPLIFIED, TRADITIONAL

if TYPE_CHECKING:
    from gpu_advisor.bot.dialog.reply import Reply

_ONLY_TRADITIONAL = frozenset(TRADITIONAL) - frozenset(SIMPLIFIED)
_ONLY_SIMPLIFIED = frozenset(SIMPLIFIED) - frozenset(TRADITIONAL)
_AFTER = (("併發", "並發"), ("隻", "只"))


def writes_traditional(text: str) -> bool:
    """Whether the message uses a character only Traditional writing has (萬, 張, 訓, 顯 …)."""
    return any(ch in _ONLY_TRADITIONAL for ch in text)


def script_after(text: str, traditional_before: bool) -> bool:
    """Whether to answer in Traditional after ``text``.

    A message whose characters are the same in both scripts ("改用 int4", "好的") says
    nothing about how its writer writes, so the conversation keeps the script it had;
    a character only one script has decides.
    """
    if writes_traditional(text):
        return True
    if any(ch in _ONLY_SIMPLIFIED for ch in text):
        return False
    return traditional_before


@cache
def _converter() -> Any:
    import opencc  # imported on first use: ~80 ms, and only Traditional writers need it

    return opencc.OpenCC("s2tw")


def traditional(text: str) -> str:
    """``text`` in Traditional characters (Taiwan forms), with our two corrections."""
    out: str = _converter().convert(text)
    for wrong, right in _AFTER:
        out = out.replace(wrong, right)
    return out


def in_traditional(reply: Reply) -> Reply:
    """Every word of ``reply`` in Traditional: its parts, its plain text and its button labels."""
    return rewritten(reply, traditional)


def rewritten(reply: Reply, change: Callable[[str], str]) -> Reply:
    """``reply`` with ``change`` applied to every line people read, code sections excepted.

    One walker for every whole-reply rewrite (the Traditional script here, the user's
    spelling of a model in ``bot.dialog.spelling``), so a part added to ``Reply`` later is
    rewritten by all of them or by none. Commands are copied verbatim: never rewritten.
    """
    sections = [
        s.model_copy(
            update={"heading": change(s.heading) if s.heading else s.heading}
            | ({} if s.code else {"lines": [change(line) for line in s.lines]})
        )
        for s in reply.sections
    ]
    new = reply.model_copy(
        update={
            "lead": [change(x) for x in reply.lead],
            "title": change(reply.title) if reply.title else reply.title,
            "pick": change(reply.pick) if reply.pick else reply.pick,
            "price": change(reply.price) if reply.price else reply.price,
            "summary": [change(x) for x in reply.summary],
            "sections": sections,
            "footer": [change(x) for x in reply.footer],
            "text": "" if reply.structured else change(reply.text),
            "buttons": [b.model_copy(update={"label": change(b.label)}) for b in reply.buttons],
        }
    )
    if new.structured:
        new.text = new.as_text()  # from the parts, so a code line in it stays as it was
    return new
