"""Cut long replies into chat-sized pieces at line breaks (Telegram 4,096, Discord 4,096 / 1,024)."""

from __future__ import annotations

from collections.abc import Iterator


def split(text: str, limit: int) -> list[str]:
    """Cut at line breaks so no chunk exceeds ``limit``; a single over-long line is cut hard."""
    chunks: list[str] = []
    current = ""
    for line in text.split("\n"):
        for piece in _cut(line, limit):
            candidate = f"{current}\n{piece}" if current else piece
            if len(candidate) > limit:
                chunks.append(current)
                current = piece
            else:
                current = candidate
    if current.strip():
        chunks.append(current)
    return chunks


def _cut(line: str, limit: int) -> Iterator[str]:
    """Hard cuts for one line, never between a backslash and the character it escapes."""
    while len(line) > limit:
        at = limit - 1 if line[limit - 1] == "\\" else limit
        yield line[:at]
        line = line[at:]
    yield line
