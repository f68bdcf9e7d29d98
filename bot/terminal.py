"""The terminal surface: an interactive chat, a line-per-message script mode, and one-shot asks.

An adapter only: it reads lines, hands them to the dialog core, prints replies and
stores state after every turn. In interactive mode a number presses the matching
quick-reply button; in script mode a line ``button:<payload>`` does.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from bot.dialog import ConversationState, Dialog, Reply

if TYPE_CHECKING:  # `gpu-advisor ask` keeps no state: it should not load sqlite-utils (and numpy)
    from bot.store import Store

PLATFORM = "terminal"
BUTTON_PREFIX = "button:"
COLOURS = {"question": "\033[36m", "answer": "\033[32m", "error": "\033[33m", "reset": "\033[0m"}


def default_db() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "gpu-advisor"
    base.mkdir(parents=True, exist_ok=True)
    return base / "state.db"


def reply_json(reply: Reply) -> dict[str, Any]:
    """The script-mode contract: {"text", "buttons", "lang", "requirements", "plan"} and the
    reply's parts ("lead", "title", "summary", "sections", "footer", "chart")."""
    return {
        "text": reply.text,
        "buttons": [b.model_dump() for b in reply.buttons],
        "lang": reply.lang,
        "requirements": reply.requirements,
        "plan": reply.plan.model_dump(mode="json") if reply.plan else None,
        **reply.card_json(),
    }


class Session:
    """One terminal user's conversation, persisted through ``store``."""

    def __init__(self, dialog: Dialog, store: Store, user: str, chat: str = "local") -> None:
        self.dialog, self.store, self.user, self.chat = dialog, store, user, chat

    def send(self, line: str, lang: str | None = None) -> Reply:
        state = self.store.load(PLATFORM, self.chat, self.user)
        if lang and not state.lang_locked:
            state = state.model_copy(update={"lang": lang})
        if line.startswith(BUTTON_PREFIX):
            reply, state = self.dialog.press(state, line[len(BUTTON_PREFIX) :].strip())
        else:
            reply, state = self.dialog.handle(state, line)
        self.store.save(PLATFORM, self.chat, self.user, state)
        if reply.kind == "answer" and reply.plan is not None and not line.startswith("/"):
            self.store.log_plan(PLATFORM, reply.plan)
        return reply

    def state(self) -> ConversationState:
        return self.store.load(PLATFORM, self.chat, self.user)


def run_script(session: Session, lines: IO[str], out: IO[str]) -> int:
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        out.write(json.dumps(reply_json(session.send(line)), ensure_ascii=False) + "\n")
        out.flush()
    return 0


def _show(reply: Reply, colour: bool) -> None:
    start = COLOURS.get(reply.kind, "") if colour else ""
    end = COLOURS["reset"] if colour and start else ""
    print(f"{start}{reply.text}{end}")
    for i, b in enumerate(reply.buttons, start=1):
        print(f"  [{i}] {b.label}")


def run_interactive(session: Session) -> int:
    """A readline chat; a bare number presses that button, Ctrl-D or /quit leaves."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input())
    colour = sys.stdout.isatty() and os.environ.get("NO_COLOR") is None
    last = session.send("/start")
    _show(last, colour)
    while True:
        try:
            line = input("> ").strip()
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if line in ("/quit", "/exit"):
            return 0
        if line.isdigit() and 1 <= int(line) <= len(last.buttons):
            line = BUTTON_PREFIX + last.buttons[int(line) - 1].payload
        last = session.send(line)
        _show(last, colour)


def ask(dialog: Dialog, text: str, lang: str | None, as_json: bool) -> int:
    """One message, one answer, nothing stored."""
    reply = dialog.quick(text, lang)
    if as_json:
        print(
            json.dumps(
                {
                    "lang": reply.lang,
                    "requirements": reply.requirements,
                    "missing": reply.missing,
                    "assumed": reply.assumed,
                    "plan": reply.plan.model_dump(mode="json") if reply.plan else None,
                    "text": reply.text,
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        print(reply.text)
    return 0


def local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "local"
