"""The test surface: the ``Surface`` contract at its smallest, a first-class surface.

It shows a turn by keeping it, so a behaviour test can read what any surface would have
rendered without a platform in the way (Errbot's ``NullBackend`` plays the same part).
Its ``where`` is the chat itself: there is no platform place apart from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_advisor.bot.turn import Turn, Turned
from gpu_advisor.bot.turn_calls import Chat


@dataclass
class TestSurface:
    """A surface whose screen is a list: ``shown`` holds every (chat, turn) in order."""

    __test__ = False  # not a pytest test class

    turn: Turn
    platform: str = "test"
    can_show_pictures: bool = True
    shown: list[tuple[Chat, Turned]] = field(default_factory=list)

    def pictures(self, where: Chat) -> bool:
        return self.can_show_pictures

    async def show(self, where: Chat, turned: Turned) -> Turned:
        self.shown.append((where, turned))
        return turned
