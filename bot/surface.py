"""What a chat surface is: a thin adapter between its platform and the one turn.

Like Errbot's ``Backend`` contract (``errbot/backends/base.py``, smallest in ``null.py``):
a surface says which platform it is, turns its platform's update into a ``Chat`` and
text or a button, and shows what the turn gave back. It holds no rule of its own: rate
limits, dedupe, the plan log and the chart-after-/plan rule are the turn's
(``bot.turn``). ``converse`` is the whole of a surface's part in a turn; the test surface
(``tests/fakes/test_surface.py``) implements nothing more and every behaviour test can
run through it.
"""

from __future__ import annotations

from typing import Protocol

from bot.turn import Turn, Turned
from bot.turn_calls import Chat


class Surface(Protocol):
    """The transport contract: its platform's name, the turn it feeds, how a turn is shown."""

    platform: str
    turn: Turn

    @property
    def pictures(self) -> bool:
        """The surface can show a chart next to a reply."""
        ...

    async def show(self, chat: Chat, turned: Turned) -> None:
        """Render the reply (and a chart, if the turn drew one) on the platform."""
        ...


async def converse(
    surface: Surface, chat: Chat, text: str | None = None, button: str | None = None
) -> Turned | None:
    """One message in, one turn, its reply shown; ``None`` (nothing shown) for a redelivered update."""
    turned = await surface.turn.take(chat, text, button, pictures=surface.pictures)
    if turned is not None:
        await surface.show(chat, turned)
    return turned
