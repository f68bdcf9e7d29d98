"""The answer card's headline facts (the pick, its price, how it fits, how fast) for the surfaces.

Discord shows them as embed fields, the terminal and Telegram put the price beside the
pick. Only an answer that picked something has them: the core gives ``pick`` and
``price`` as parts of the reply, and the summary's segments say how it fits and how fast
(the one with tokens per second is the speed). A title is never taken apart — a verdict's
"全参微调 不能 · LoRA 能 · QLoRA 能" is not a pick and a price. Surfaces lay these out;
none of them invents a fact.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.bot.dialog import Reply

SEP, DOT = " · ", "·"
SPEED_MARKS = ("token/s", "tokens/s", "tok/s")


@dataclass(frozen=True)
class Headline:
    pick: str
    price: str | None = None
    fit: str | None = None
    speed: str | None = None


def headline(reply: Reply) -> Headline | None:
    """An answer's facts, or ``None`` for anything but an answer with a pick (a verdict, a question…)."""
    pick, price = _text(reply.pick), _text(reply.price)
    if reply.kind != "answer" or pick is None:
        return None
    segments = [s.strip() for line in reply.summary for s in line.split(DOT) if s.strip()]
    speed = [s for s in segments if any(mark in s for mark in SPEED_MARKS)]
    fit = [s for s in segments if s not in speed]
    return Headline(pick, price, SEP.join(fit) or None, SEP.join(speed) or None)


def price_line(reply: Reply) -> str | None:
    """The price, when the core gives it apart and the title does not already say it."""
    price = _text(reply.price)
    return price if price and price not in (reply.title or "") else None


def _text(value: str | None) -> str | None:
    return value if value and value.strip() else None
