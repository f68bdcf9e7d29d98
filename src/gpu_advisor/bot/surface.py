"""What a chat surface is: a thin adapter between its platform and the one turn.

Like Errbot's ``Backend`` contract (``errbot/backends/base.py``, smallest in ``null.py``):
a surface says which platform it is, turns its platform's update into a ``Chat`` and
text or a button, and shows what the turn gave back. It holds no rule of its own: rate
limits, dedupe, the plan log, operator commands and the chart-after-/plan rule are the
turn's (``bot.turn``); deep links are ``bot.links``'s. ``converse`` is the whole of a
surface's part in a turn; every surface (terminal, Telegram, Discord, web) reaches the
turn through it, and the test surface (``tests/fakes/test_surface.py``) implements
nothing more, so every behaviour test can run through it.

``Where`` is the platform's own handle on the place a reply goes (a Telegram message or
button press, a Discord interaction, an HTTP session); ``Shown`` is what showing gives
back to the platform's caller (the reply shown for the bots and the terminal, the HTTP
response for the web), never ``None``: ``None`` from ``converse`` means nothing was shown.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol, TypeVar, runtime_checkable

from gpu_advisor.bot.turn import Turn, Turned
from gpu_advisor.bot.turn_calls import Chat, Quota

Where_contra = TypeVar("Where_contra", contravariant=True)
Shown_co = TypeVar("Shown_co", covariant=True)
W = TypeVar("W")
S = TypeVar("S")


@runtime_checkable
class Surface(Protocol[Where_contra, Shown_co]):
    """The transport contract: its platform's name, the turn it feeds, how a turn is shown."""

    platform: str
    turn: Turn

    def pictures(self, where: Where_contra) -> bool:
        """A chart can be shown next to a reply there."""
        ...

    async def show(self, where: Where_contra, turned: Turned) -> Shown_co:
        """Render the reply (and a chart, if the turn drew one) on the platform."""
        ...


async def converse(
    surface: Surface[W, S],
    where: W,
    chat: Chat,
    text: str | None = None,
    button: str | None = None,
    *,
    save: bool = True,
    keep_plan: bool = False,
    quota: Quota | None = None,
    client: Hashable | None = None,
    arrived: float | None = None,
) -> S | None:
    """One message in, one turn, its reply shown; ``None`` (nothing shown) for a redelivered update.

    ``save=False`` answers without remembering (a replay, a deep link); ``keep_plan`` brings
    the plan back with the reply (the surface shows more of it than the text); ``quota`` is
    charged if the conversation is new (``QuotaExceeded`` past it, nothing shown); ``client`` and
    ``arrived`` are who the turn is admitted as and when it came in (``Turn.take``).
    """
    pictures = surface.pictures(where)
    turned = await surface.turn.take(
        chat,
        text,
        button,
        save=save,
        keep_plan=keep_plan,
        pictures=pictures,
        quota=quota,
        client=client,
        arrived=arrived,
    )
    return None if turned is None else await surface.show(where, turned)
