"""Log lines for operators: plain text by default, one JSON object a line when asked.

Why JSON: a log collector (Loki, CloudWatch, journald's export) indexes fields, so a
line that carries ``turn`` lets an operator pull every line of one request across the
web process and its workers' reports. ``GPU_ADVISOR_LOG_FORMAT=json`` turns it on.

The turn id lives in a ``contextvars.ContextVar``: asyncio copies the context into each
task, so concurrent requests in one event loop never see each other's id. The web
surface sets it per request (``X-Request-Id`` if the proxy sent a sane one, else a new
random id) and echoes it in the response; a line logged outside any turn has
``"turn": null``. Token redaction (``bot.secrets.install_redaction``) wraps whichever
formatter is installed here, so it runs on the finished JSON line as on a text one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from types import TracebackType

TURN_ID: ContextVar[str | None] = ContextVar("gpu_advisor_turn_id", default=None)
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# A caller's request id is kept only if it is short and plain: it goes into every log line.
SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


def new_turn_id(offered: str | None = None) -> str:
    """``offered`` (a proxy's X-Request-Id) when it is safe to log, else 16 random hex digits."""
    if offered and SANE_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex[:16]


@contextlib.contextmanager
def turn_context(turn_id: str) -> Iterator[str]:
    """Every line logged inside the block, in this task, carries ``turn_id``."""
    token = TURN_ID.set(turn_id)
    try:
        yield turn_id
    finally:
        TURN_ID.reset(token)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ts (UTC, ISO 8601), level, logger, message, turn, and exc if any."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "turn": getattr(record, "turn", None) or TURN_ID.get(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False)


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)
        return
    logging.getLogger("gpu_advisor").critical("uncaught exception", exc_info=(kind, value, tb))


def _log_thread_uncaught(args: threading.ExceptHookArgs) -> None:
    if args.exc_value is not None:
        logging.getLogger("gpu_advisor").critical(
            "uncaught exception in thread %s",
            getattr(args.thread, "name", "?"),
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
        )


LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def configure_from(environ: Mapping[str, str]) -> None:
    """``configure`` from ``GPU_ADVISOR_LOG_FORMAT``/``_LEVEL`` alone, checked as ``Settings`` checks
    them: what a one-shot command needs, without loading pydantic-settings (about 75 ms)."""
    log_format = environ.get("GPU_ADVISOR_LOG_FORMAT", "text")
    level = environ.get("GPU_ADVISOR_LOG_LEVEL", "WARNING")
    for variable, value, allowed in (
        ("GPU_ADVISOR_LOG_FORMAT", log_format, LOG_FORMATS),
        ("GPU_ADVISOR_LOG_LEVEL", level, LOG_LEVELS),
    ):
        if value not in allowed:
            raise SystemExit(f"setting {variable}: Input should be {' or '.join(map(repr, allowed))}")
    configure(log_format, level)


def configure(log_format: str = "text", level: str = "WARNING") -> None:
    """A stderr handler for a CLI process, in ``log_format`` ("text" or "json"), at ``level``.

    Like ``logging.basicConfig`` it does nothing when the root logger has handlers already
    (an embedding application's, or pytest's), so a library caller keeps its own logging.
    In JSON an uncaught exception (main thread or another) is logged as one line too, instead
    of Python's multi-line traceback breaking the stream a collector parses.
    """
    root = logging.getLogger()
    if root.handlers:
        return
    if log_format == "json":
        sys.excepthook = _log_uncaught
        threading.excepthook = _log_thread_uncaught
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    root.addHandler(handler)
    root.setLevel(level)
