"""The answer card's headline facts (the pick, its price, how it fits, how fast) for the surfaces.

Discord shows them as embed fields, the terminal and Telegram put the price beside the
pick. The core may give ``pick`` and ``price`` as parts of the reply; a reply that does
not is read from its title ("✅ Rent: 1× NVIDIA T4 (t4-1x) · $120/mo": the last " · "
segment is the price) and summary (the segment with tokens per second is the speed,
the rest is how it fits). Surfaces lay these out; none of them invents a fact.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.dialog import Reply

SEP, DOT = " · ", "·"
SPEED_MARKS = ("token/s", "tokens/s", "tok/s")


@dataclass(frozen=True)
class Headline:
    pick: str
    price: str | None = None
    fit: str | None = None
    speed: str | None = None


def headline(reply: Reply) -> Headline | None:
    """An answer's facts, or ``None`` for anything but an answer with a title (a question, help…)."""
    pick, price = _part(reply, "pick"), _part(reply, "price")
    if reply.kind != "answer" or (reply.title is None and pick is None):
        return None
    if pick is None:
        pick, price = _split_title(reply.title or "", price)
    segments = [s.strip() for line in reply.summary for s in line.split(DOT) if s.strip()]
    speed = [s for s in segments if any(mark in s for mark in SPEED_MARKS)]
    fit = [s for s in segments if s not in speed]
    return Headline(pick, price, SEP.join(fit) or None, SEP.join(speed) or None)


def price_line(reply: Reply) -> str | None:
    """The price, when the core gives it apart and the title does not already say it."""
    price = _part(reply, "price")
    return price if price and price not in (reply.title or "") else None


def _split_title(title: str, price: str | None) -> tuple[str, str | None]:
    if price is not None or DOT not in title:
        return title, price
    pick, _, tail = title.rpartition(DOT)
    return pick.strip(), tail.strip()


def _part(reply: Reply, name: str) -> str | None:
    """A part the core may add (``pick``, ``price``), read only when it is text."""
    value = getattr(reply, name, None)
    return value if isinstance(value, str) and value.strip() else None
