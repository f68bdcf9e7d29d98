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


# --- button ownership ---------------------------------------------------------------
# In a group every member sees the same buttons, but the conversation behind a card is its
# asker's: a press by anyone else must not act on it. The asker's id rides in the button's
# callback data (Telegram keeps ≤ 64 bytes of it), base 36 before a "|": ``"kf12oi|/why"``.
# A payload too long to carry an owner stays unbound (anyone may press it, as before), and
# so do buttons sent before owners were written.
OWNER_SEP = "|"
_DIGITS36 = "0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Pressed:
    """What a pressed button carries: the dialog payload, and whose conversation it belongs to."""

    payload: str
    owner: int | None = None

    def allowed(self, user_id: int) -> bool:
        """Anyone may press an unbound button; a bound one only its owner."""
        return self.owner is None or self.owner == user_id


def bind(payload: str, owner: int) -> str:
    """The callback data for ``payload`` pressed by ``owner`` only (unbound if it would not fit)."""
    data = _base36(owner) + OWNER_SEP + payload
    return data if len(data.encode()) <= MAX_PAYLOAD and owner >= 0 else payload


def pressed(data: str) -> Pressed:
    """Read callback data back: a bound payload and its owner, or the payload as it is."""
    owner, sep, payload = data.partition(OWNER_SEP)
    if not sep or not owner or not set(owner) <= set(_DIGITS36):
        return Pressed(data)
    return Pressed(payload, int(owner, 36))


def _base36(number: int) -> str:
    digits = ""
    while True:
        number, digit = divmod(number, 36)
        digits = _DIGITS36[digit] + digits
        if number == 0:
            return digits
