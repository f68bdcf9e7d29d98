"""An uploaded catalog, parsed where the turns run, not on the event loop.

A 10,000-row CSV takes a second or more of pure-Python parsing and validation; on the
event loop that second is taken from every chat the process serves. ``ParseUpload`` is a
call object like the turns' (``bot.execution.Call``): the executor runs it in a turn
worker, against that worker's knowledge, and sends the parsed ``Catalog`` back (a
``CatalogError`` comes back as itself). This module imports no web library, because the
worker unpickles the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_advisor.engine.specs import Catalog
from gpu_advisor.knowledge.catalogs import parse_upload


@dataclass(frozen=True)
class ParseUpload:
    body: bytes
    content_type: str
    operator: str | None

    def run(self, host: Any) -> Catalog:
        """``host`` is the worker's ``bot.turn.Conversations``: its dialog holds the knowledge."""
        return parse_upload(self.body, self.content_type, self.operator, host.dialog.kb)
