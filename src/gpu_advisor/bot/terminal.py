"""The terminal surface: an interactive chat, a line-per-message script mode, and one-shot asks.

An adapter only: it reads lines, hands each to the one turn every surface takes
(``bot.turn.Turn``, run in this process: state, dialog, save, plan log) and prints the
reply. In interactive mode a reply is printed as a card: the title (the pick and its price)
bold and coloured, section headings bold, the price on its own line when the core gives it
apart; a number presses the matching quick-reply button, and how to leave (/quit) and get
help (/help) is said at the start. In script mode a line ``button:<payload>`` presses one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from gpu_advisor import locales
from gpu_advisor.bot import cardparts
from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply

if TYPE_CHECKING:  # `gpu-advisor ask` keeps no state: it should not load sqlite-utils (and numpy)
    from gpu_advisor.bot.store import Store
    from gpu_advisor.bot.turn import Turn, Turned

log = logging.getLogger(__name__)
PLATFORM = "terminal"
BUTTON_PREFIX = "button:"
COLOURS = {"question": "\033[36m", "answer": "\033[32m", "error": "\033[33m", "reset": "\033[0m"}
BOLD, DIM = "\033[1m", "\033[2m"


def default_db() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "gpu-advisor"
    base.mkdir(parents=True, exist_ok=True)
    return base / "state.db"


def reply_json(reply: Reply) -> dict[str, Any]:
    """The script-mode contract: {"text", "buttons", "lang", "requirements", "plan"} and the
    reply's parts ("lead", "title", "summary", "sections", "footer", "chart") and "job", a
    non-LLM job's plan."""
    return {
        "text": reply.text,
        "buttons": [b.model_dump() for b in reply.buttons],
        "lang": reply.lang,
        "requirements": reply.requirements,
        "plan": reply.plan.model_dump(mode="json") if reply.plan else None,
        **reply.card_json(),
    }


class Session:
    """One terminal user's conversation, persisted through ``store``; its turns run in this process.

    A ``bot.surface.Surface``: a line is a turn (``converse``), and showing it is handing the
    reply back to whoever prints it. A terminal shows no pictures.
    """

    platform = PLATFORM

    def __init__(self, dialog: Dialog, store: Store, user: str, chat: str = "local") -> None:
        import asyncio  # here, not at the top: a one-shot `ask` runs no loop

        from gpu_advisor.bot.turn import Conversations, Turn

        self.user, self.chat = user, chat
        self.turn: Turn = Turn(Conversations(dialog, store, PLATFORM))
        self._loop = asyncio.Runner()  # one loop for the session: the turn's locks live on it

    def send(self, line: str, lang: str | None = None) -> Reply:
        """One turn; ``lang`` is the client's language, taken by a first conversation."""
        from gpu_advisor.bot.surface import converse
        from gpu_advisor.bot.turn_calls import Chat

        chat = Chat(self.chat, self.user, lang)
        if line.startswith(BUTTON_PREFIX):
            button = line[len(BUTTON_PREFIX) :].strip()
            taking = converse(self, None, chat, button=button, keep_plan=True)
        else:
            taking = converse(self, None, chat, line, keep_plan=True)
        reply = self._loop.run(taking)
        assert reply is not None  # a terminal line has no update id to be redelivered
        return reply

    def pictures(self, where: None) -> bool:
        return False

    async def show(self, where: None, turned: Turned) -> Reply:
        return turned.reply

    def state(self) -> ConversationState:
        return self.turn.local.store.load(PLATFORM, self.chat, self.user)

    def close(self) -> None:
        self._loop.close()


def run_script(session: Session, lines: IO[str], out: IO[str]) -> int:
    with contextlib.closing(session):
        return _script(session, lines, out)


def _script(session: Session, lines: IO[str], out: IO[str]) -> int:
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        out.write(json.dumps(reply_json(session.send(line)), ensure_ascii=False) + "\n")
        out.flush()
    return 0


def card_text(reply: Reply, colour: bool) -> str:
    """The reply as the terminal shows it: the card's parts, styled with ``colour``, then its buttons."""
    lines = _card_lines(reply, colour) if reply.structured else [_styled(reply.text, _tint(reply, colour))]
    lines += [f"  [{i}] {b.label}" for i, b in enumerate(reply.buttons, start=1)]
    return "\n".join(lines)


def _card_lines(reply: Reply, colour: bool) -> list[str]:
    bold = BOLD if colour else ""
    lines = list(reply.lead)
    if reply.title is not None:
        lines.append(_styled(reply.title, bold + _tint(reply, colour)))
    price = cardparts.price_line(reply)
    if price is not None:
        lines.append(_styled(price, bold))
    lines += reply.summary
    for section in reply.sections:
        if section.lines:
            heading = [_styled(section.heading, bold)] if section.heading else []
            lines += [*heading, *(f"{section.bullet} {line}" for line in section.lines)]
    return lines + [_styled(line, DIM if colour else "") for line in reply.footer]


def _tint(reply: Reply, colour: bool) -> str:
    return COLOURS.get(reply.kind, "") if colour else ""


def _styled(text: str, style: str) -> str:
    return f"{style}{text}{COLOURS['reset']}" if style else text


def _show(reply: Reply, colour: bool) -> None:
    print(card_text(reply, colour))


def button_for(line: str, last: Reply) -> str | None:
    """The payload a typed line presses, or None when the line is a message.

    ASCII digits alone press the matching numbered button of whatever card is on screen —
    a question's choices or an answer card's "Why? / Costs / …" — as a tap would; "2 个人"
    or "２" are words for the dialog.
    """
    if not last.buttons or not _BUTTON_NUMBER.fullmatch(line):
        return None
    index = int(line)
    return last.buttons[index - 1].payload if 1 <= index <= len(last.buttons) else None


_BUTTON_NUMBER = re.compile(r"[0-9]{1,2}")
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
BURST_S = 0.03  # lines that arrive within 30 ms of each other were pasted, not typed


def run_interactive(session: Session) -> int:
    """A readline chat; a bare number presses that button, Ctrl-D or /quit leaves."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input())
    with contextlib.closing(session):
        return _chat(session, sys.stdout.isatty() and os.environ.get("NO_COLOR") is None)


def read_message(read_line: Callable[[], str], pending: Callable[[], bool]) -> str:
    """One message: a line, or a whole paste — a bracketed paste (the terminal wraps it in
    ESC[200~ … ESC[201~) or lines that arrive together (``pending`` says more is already there).

    A configuration sheet pasted after ``/analyze`` is one message, not one per line.
    """
    first = read_line()
    if PASTE_START in first:
        lines = [first.replace(PASTE_START, "")]
        while PASTE_END not in lines[-1]:
            lines.append(read_line())
        lines[-1] = lines[-1].replace(PASTE_END, "")
        return "\n".join(lines).strip()
    lines = [first]
    while pending():
        lines.append(read_line())
    return "\n".join(lines).strip()


def _pending_on_tty() -> bool:
    """More input already waiting on a terminal (a paste); never on a pipe, which is a script."""
    if not sys.stdin.isatty():
        return False
    import select

    ready, _, _ = select.select([sys.stdin], [], [], BURST_S)
    return bool(ready)


def _chat(session: Session, colour: bool) -> int:
    """The loop: only /quit (or /exit) and Ctrl-D end it; an empty line or a line of spaces is
    nothing to answer, and a turn that fails is said in the user's language, not a traceback
    that drops the user back into the shell with the rest of a paste."""
    last = session.send("/start")
    _show(last, colour)
    print(_styled(locales.t(last.lang, "surface.quit_help"), DIM if colour else ""))
    while True:
        try:
            line = read_message(_prompted(), _pending_on_tty)
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if not line:  # read_message strips: Enter alone, spaces, tabs, U+3000
            continue
        if line.lower() in ("/quit", "/exit"):
            return 0
        last = _turn(session, line, last)
        _show(last, colour)
        if line.split(maxsplit=1)[0].lower() == "/help":  # what only the terminal has
            print(locales.t(last.lang, "surface.terminal_help"))


def _turn(session: Session, line: str, last: Reply) -> Reply:
    """The reply to ``line`` (a number presses the button on screen); a fault is logged once
    with its traceback and answered with the dialog's apology, the conversation kept."""
    pressed = button_for(line, last)
    try:
        return session.send(BUTTON_PREFIX + pressed if pressed is not None else line)
    except Exception:
        log.exception("terminal turn failed on a %d-character line", len(line))
        text = locales.t(last.lang, "dialog.error_generic")
        return Reply(kind="error", lang=last.lang, text=text, buttons=last.buttons)


def _prompted() -> Callable[[], str]:
    """``input`` with the "> " prompt for a message's first line only (a paste's lines follow it)."""
    prompts = iter(["> "])
    return lambda: input(next(prompts, ""))


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
        import getpass

        return getpass.getuser()
    except (KeyError, OSError):
        return "local"
