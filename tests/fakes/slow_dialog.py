"""A dialog that stalls on one message, standing in for a parser sent astray (issue 14: 44 s).

Turns start their workers with the local dialog's class, so this one runs in the worker
processes too. The stall is a busy loop, not a sleep: like a runaway regex it holds the GIL.
"""

from __future__ import annotations

import time
from datetime import date

from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply

STALL = "stall on this message"
STALL_S = 600.0


class SlowDialog(Dialog):
    def handle(
        self, state: ConversationState, text: str, today: date | None = None
    ) -> tuple[Reply, ConversationState]:
        if STALL in text:
            until = time.monotonic() + STALL_S
            while time.monotonic() < until:
                pass
        return super().handle(state, text, today)
