"""What the handlers share: the dialog core (which holds the active knowledge), the turns, the limits."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from bot.dialog import Dialog
from bot.ratelimit import ConversationLocks, RateLimiter
from bot.store import Store
from bot.turns import Turns
from bot.web.config import WebConfig


@dataclass
class WebContext:
    config: WebConfig
    dialog: Dialog  # dialog.kb is the active knowledge; an admin upload swaps it via dialog.reload
    store: Store
    turns: Turns  # chat turns, in worker processes with a deadline (config.workers)
    per_ip: RateLimiter
    per_session: RateLimiter
    new_sessions: RateLimiter  # conversations started per client address per hour
    locks: ConversationLocks  # one session's turns in order, though they run in several workers


CONTEXT = web.AppKey("context", WebContext)
