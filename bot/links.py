"""Deep links into a conversation: a payload a link carries, and the conversation it opens.

In a group, the full reasoning (``/why``) would flood the chat, so the bot offers a link
that opens a private chat instead; the private chat then shows the asker's ``/why`` *of
the group's conversation*, read-only. The payload names that conversation. Telegram's
``/start`` parameter allows only ``[A-Za-z0-9_-]`` (64 characters), so a negative group
id's "-" is written "m": ``why_m100777`` opens chat ``-100777``.

The link's address is the platform's (``t.me/<bot>?start=<payload>`` on Telegram); what the
payload says and which conversation it opens are decided here, once.
"""

from __future__ import annotations

from dataclasses import dataclass

WHY_PREFIX = "why_"
MAX_PAYLOAD = 64  # Telegram's limit on a /start parameter


@dataclass(frozen=True)
class Opened:
    """What a deep link asks for: ``command`` in the conversation of ``chat_id`` (never saved)."""

    chat_id: int
    command: str = "/why"


def why_payload(chat_id: int) -> str:
    """The payload for ``/why`` in the group ``chat_id``: ``-100777`` → ``why_m100777``."""
    payload = WHY_PREFIX + str(chat_id).replace("-", "m")
    assert len(payload) <= MAX_PAYLOAD, "a chat id is at most 20 characters"
    return payload


def opened(payload: str) -> Opened | None:
    """The conversation a payload opens, or ``None`` for a payload that is not a deep link of ours."""
    if not payload.startswith(WHY_PREFIX):
        return None
    chat = payload.removeprefix(WHY_PREFIX).replace("m", "-", 1)
    digits = chat.removeprefix("-")
    if not digits.isdigit() or not digits.isascii():
        return None
    return Opened(int(chat))
