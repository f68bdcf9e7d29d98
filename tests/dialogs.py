"""Talking to the dialog core in tests: a conversation as a list of messages."""

from __future__ import annotations

from functools import cache
from typing import Any

from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply


def talk(
    dialog: Dialog, *messages: str, state: ConversationState | None = None
) -> tuple[Reply, ConversationState]:
    """Send ``messages`` in order (``"!payload"`` presses a button); the last reply and the state."""
    state = state or ConversationState()
    reply = None
    for m in messages:
        reply, state = dialog.press(state, m[1:]) if m.startswith("!") else dialog.handle(state, m)
    assert reply is not None
    return reply, state


@cache
def _to_simplified() -> Any:
    import opencc

    return opencc.OpenCC("tw2s")


def simplified(text: str) -> str:
    """A reply read back in Simplified: a Traditional message is answered in Traditional
    (``bot.dialog.script``), and tests written for the Simplified words compare on this."""
    return str(_to_simplified().convert(text))
