"""Bot tokens: read from the environment (or a file it names), and kept out of every log line.

A filter on the message is not enough: when the Bot API rejects a token (401, or 404
for a wrong ``--base-url``), PTB's ``InvalidToken`` carries the token in its text, and
the traceback that ``log.exception`` prints is formatted after every filter has run.
So the redaction sits in each handler's formatter, on the finished line — message,
arguments, exception text and stack alike — and the cached ``exc_text`` is cleaned too,
for any other handler formatting the same record.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

MASK = "<token>"


def redact(text: str, secret: str) -> str:
    return text.replace(secret, MASK) if secret else text


class RedactToken(logging.Filter):
    """Replace the token in a record's message and arguments (what ``caplog`` and filters see)."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secret:
            message = record.getMessage()
            if self.secret in message:
                record.msg, record.args = redact(message, self.secret), None
        return True


class RedactingFormatter(logging.Formatter):
    """Wraps a handler's formatter and removes the token from everything it writes."""

    def __init__(self, inner: logging.Formatter, secret: str) -> None:
        super().__init__()
        self.inner, self.secret = inner, secret

    def format(self, record: logging.LogRecord) -> str:
        line = self.inner.format(record)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secret)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secret)
        return redact(line, self.secret)


def install_redaction(secret: str, quiet: tuple[str, ...] = ()) -> None:
    """Redact on every root handler; ``quiet`` loggers (e.g. httpx, which logs URLs) go to WARNING."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactToken(secret))
        handler.setFormatter(RedactingFormatter(handler.formatter or logging.Formatter(), secret))
    for name in quiet:
        logging.getLogger(name).setLevel(logging.WARNING)


def read_token(variable: str) -> str:
    """``$VARIABLE``, or the contents of the file named by ``$VARIABLE_FILE``."""
    token = os.environ.get(variable, "").strip()
    path = os.environ.get(f"{variable}_FILE")
    if not token and path:
        token = Path(path).read_text(encoding="utf-8").strip()
    if not token:
        raise SystemExit(f"set {variable} (or {variable}_FILE) to the bot's token")
    return token
