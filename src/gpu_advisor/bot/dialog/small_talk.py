"""A greeting or a thank-you is answered as one, not with "I didn't catch that".

People open a support chat with "你好" or "在吗" and close it with "谢谢": the whole
message is small talk, so the reply greets (and says what the bot does) or thanks, then
asks the open question as usual. Only a message that is nothing but such words counts;
"你好，部署 7B" describes a job and goes to the readers.
"""

from __future__ import annotations

from gpu_advisor.reading.dialog_words import ACK as _ACK
from gpu_advisor.reading.dialog_words import BYE as _BYE
from gpu_advisor.reading.dialog_words import HELLO as _HELLO
from gpu_advisor.reading.dialog_words import THANKS as _THANKS


def small_talk(low: str) -> str | None:
    """The locale key answering ``low`` (normalised text) when it is only small talk, else None."""
    text = low.strip()
    pairs = (
        ("dialog.welcome", _HELLO),
        ("dialog.thanks", _THANKS),
        ("dialog.bye", _BYE),
        ("dialog.ack", _ACK),
    )
    for key, pattern in pairs:
        if pattern.fullmatch(text):
            return key
    return None
