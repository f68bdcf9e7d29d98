"""What the widget asks about its own session besides a chat turn: the plan's chart, and "start over".

``POST /api/chat/chart`` ``{"session_id"}`` answers the conversation's current plan as a
PNG (404 without one), drawn where the turns run (``turn_calls.Chart``), as Telegram and
Discord draw theirs. ``POST /api/chat/forget`` replaces the stored conversation with an
empty one, so "start over" forgets on the server too, not only in the browser (204). The
session id travels in the body, never in a URL that logs or a Referer could keep. Both take
a turn worker's time, so both pass admission control like a chat turn (issue 40).
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from gpu_advisor.bot.dialog import ConversationState
from gpu_advisor.bot.turn import Conversations
from gpu_advisor.bot.turn_calls import Chart, Chat
from gpu_advisor.bot.web.api import PLATFORM, admitted, lang_of, read_model
from gpu_advisor.bot.web.context import CONTEXT
from gpu_advisor.bot.web.errors import error, rate_limited
from gpu_advisor.bot.web.replies import REPLIES, Replies
from gpu_advisor.bot.web.schemas import SessionRequest


@dataclass(frozen=True)
class Forget:
    """The session's conversation replaced by an empty one: what it said is gone from the store."""

    session: str

    def run(self, host: Conversations) -> None:
        with host.store.transaction():
            host.store.save(PLATFORM, self.session, self.session, ConversationState())


async def chart(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    session = (await read_model(request, SessionRequest)).session_id
    if ctx.per_session.retry_after((session, session)) > 0:  # a flooding session gets no pictures either
        raise rate_limited("conversation")
    async with admitted(request, lang_of(request)):
        png = await ctx.turn.ask(Chart(Chat(session, session, None)))
    if png is None:
        raise error(404, "this conversation has no plan to draw yet", field="session_id")
    return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "no-store"})


async def forget(request: web.Request) -> web.Response:
    session = (await read_model(request, SessionRequest)).session_id
    async with admitted(request, lang_of(request)):
        await request.app[CONTEXT].turn.ask(Forget(session))
    return web.Response(status=204)


def add_routes(app: web.Application) -> None:
    app[REPLIES] = Replies()  # a chat message's repeat answered from memory (bot.web.replies)
    app.router.add_post("/api/chat/chart", chart)
    app.router.add_post("/api/chat/forget", forget)
