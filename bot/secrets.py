"""Bot tokens: read from the environment (or a file it names), and kept out of every log line."""

from __future__ import annotations

import logging
import os
from pathlib import Path


class RedactToken(logging.Filter):
    """Replace the token wherever it appears in a log record's message or arguments."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secret:
            message = record.getMessage()
            if self.secret in message:
                record.msg, record.args = message.replace(self.secret, "<token>"), None
        return True


def install_redaction(secret: str, quiet: tuple[str, ...] = ()) -> None:
    """Filter every root handler; ``quiet`` loggers (e.g. httpx, which logs URLs) go to WARNING."""
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactToken(secret))
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
