"""What the handlers share: the dialog core (which holds the active knowledge), the turn, the limits."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from gpu_advisor.bot.admission import Admission
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.ratelimit import RateLimiter
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.turn import Turn
from gpu_advisor.bot.web.config import WebConfig


@dataclass
class WebContext:
    config: WebConfig
    dialog: Dialog  # dialog.kb is the active knowledge; an admin upload swaps it via dialog.reload
    store: Store
    turn: Turn  # chat turns and engine requests; workers with a deadline (config.workers)
    per_ip: RateLimiter
    per_session: RateLimiter  # the turn's own limit: chat messages per session
    admission: Admission  # a fair, bounded queue for the workers, keyed by client network


CONTEXT = web.AppKey("context", WebContext)
# Who the request is for fair shares and per-client limits: the client's network (set by guard.limits).
CLIENT = web.RequestKey("client", str)
# When the request came in (time.monotonic(), set by ops.observe): admission counts from it.
ARRIVED = web.RequestKey("arrived", float)
