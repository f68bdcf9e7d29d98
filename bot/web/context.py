"""What the handlers share: the dialog core (which holds the active knowledge), the store, the limits."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from bot.dialog import Dialog
from bot.ratelimit import RateLimiter
from bot.store import Store
from bot.web.config import WebConfig


@dataclass
class WebContext:
    config: WebConfig
    dialog: Dialog  # dialog.kb is the active knowledge; an admin upload swaps it via dialog.reload
    store: Store
    per_ip: RateLimiter
    per_session: RateLimiter


CONTEXT = web.AppKey("context", WebContext)
