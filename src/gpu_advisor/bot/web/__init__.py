"""The web surface: an HTTP API and an embeddable chat widget for rental sites.

An adapter like ``bot/telegram``: handlers translate HTTP to the dialog core, the
engine contract (``bot.contract``) and back, and never compose answers themselves.
``build_app(WebConfig(...))`` returns the aiohttp Application; ``gpu-advisor web``
runs it (``bot.web.run``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpu_advisor.bot.web.app import build_app
    from gpu_advisor.bot.web.config import WebConfig

__all__ = ["WebConfig", "build_app"]


def __getattr__(name: str) -> Any:
    """``build_app`` and ``WebConfig`` load aiohttp on first use, so a module of this package
    that needs none of it (``bot.web.processes``, the supervisor the Telegram CLI also uses)
    can be imported without it."""
    if name == "build_app":
        from gpu_advisor.bot.web.app import build_app

        return build_app
    if name == "WebConfig":
        from gpu_advisor.bot.web.config import WebConfig

        return WebConfig
    raise AttributeError(name)
