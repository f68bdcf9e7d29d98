"""Handlers for worker processes under test (``python -m gpu_advisor.bot.workers`` imports them by name)."""

from __future__ import annotations

import os
import time
from typing import Any

from gpu_advisor.bot.workers import Handler


class TwoPartError(Exception):
    """Pickles, but ``pickle.loads`` calls ``TwoPartError(message)`` and fails."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")


def toy(prefix: str) -> Handler:
    """``echo`` answers, ``fail`` raises, ``die`` ends the process mid-call, ``pid`` says who answered,
    ``remember`` keeps a value that ``recall`` returns."""
    memory: dict[str, Any] = {}

    def handle(method: str, args: tuple[Any, ...]) -> Any:
        if method == "remember":
            memory["value"] = args[0]
            return None
        if method == "recall":
            return memory.get("value")
        if method == "echo":
            return prefix + str(args[0])
        if method == "fail":
            raise ValueError(f"refused {args[0]}")
        if method == "fail_oddly":
            raise TwoPartError("odd", "two arguments")
        if method == "die":
            os._exit(3)
        if method == "slow":
            time.sleep(float(args[0]))
            return "late"
        if method == "pid":
            return os.getpid()
        raise KeyError(method)

    return handle


def broken() -> Handler:
    raise RuntimeError("this worker cannot start")
