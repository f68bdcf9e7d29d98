"""The web surface: an HTTP API and an embeddable chat widget for rental sites.

An adapter like ``bot/telegram``: handlers translate HTTP to the dialog core, the
engine contract (``bot.contract``) and back, and never compose answers themselves.
``build_app(WebConfig(...))`` returns the aiohttp Application; ``gpu-advisor web``
runs it (``bot.web.run``).
"""

from __future__ import annotations

from bot.web.app import build_app
from bot.web.config import WebConfig

__all__ = ["WebConfig", "build_app"]
