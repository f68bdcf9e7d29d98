"""HTTP handlers: chat turns through the dialog core, the engine contract, the operator catalog.

Each handler reads a body, calls the one function that answers it and returns a model
from ``bot.web.schemas`` (the shapes the OpenAPI document promises). Chat state lives
in the shared SQLite store under platform "web", chat = user = session id. Chat turns
are the one turn every surface takes (``bot.turn.Turn``: its rate limit per session,
its lock per session, its plan log); they and the engine requests run through the same
executor (worker processes with a deadline), so one slow request cannot hold up others.
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from gpu_advisor import locales
from gpu_advisor.bot.admission import Overloaded, too_costly
from gpu_advisor.bot.contract import ContractError, engine_payload, parse_workload, validation_payload
from gpu_advisor.bot.engine_calls import Analyze, Estimate, Recommend
from gpu_advisor.bot.errors import InputError, read_json_object
from gpu_advisor.bot.execution import Call, CallTimedOut
from gpu_advisor.bot.quote_call import JudgeQuote, QuoteRequest
from gpu_advisor.bot.surface import converse
from gpu_advisor.bot.terminal import reply_json
from gpu_advisor.bot.turn import Turn, Turned
from gpu_advisor.bot.turn_calls import Chat, Quota, QuotaExceeded, UseCatalog
from gpu_advisor.bot.web.context import ARRIVED, CONTEXT, WebContext
from gpu_advisor.bot.web.errors import ApiError, error, overloaded, rate_limited, unavailable
from gpu_advisor.bot.web.guard import browser_lang, client_key, read_body
from gpu_advisor.bot.web.replies import REPLIES, update_key
from gpu_advisor.bot.web.schemas import AnalyzeRequest, CatalogUploaded, ChatRequest, ChatResponse
from gpu_advisor.bot.web.uploads import ParseUpload
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge import CatalogError
from gpu_advisor.knowledge.catalogs import CSV_TYPES, YAML_TYPES, with_catalog
from gpu_advisor.text.sheet_lines import MAX_CHARS as SHEET_CHARS

log = logging.getLogger(__name__)
PLATFORM = "web"
HOUR_S = 3600.0
M = TypeVar("M", bound=BaseModel)


def model_response(model: BaseModel) -> web.Response:
    return web.Response(text=model.model_dump_json(), content_type="application/json")


async def read_text(request: web.Request) -> str:
    try:
        return (await read_body(request)).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(422, "the body is not UTF-8 text", code="invalid_json") from exc


async def read_model(request: web.Request, model: type[M]) -> M:
    try:
        data = read_json_object(await read_text(request))
    except InputError as exc:
        raise ApiError(422, exc.payload) from exc
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        payload = validation_payload(exc)
        if payload["error"]["field"] == "" and exc.errors()[0]["type"] == "text_or_button":
            payload["error"]["field"] = payload["error"]["errors"][0]["field"] = "text"
        raise ApiError(422, payload) from exc


def lang_of(request: web.Request, given: str | None = None) -> str:
    """The language to refuse in: the body's ``lang``, else the browser's (Accept-Language), else zh."""
    return given or browser_lang(request)


def check_cost(text: str | None, lang: str, limit: int | None = None) -> None:
    """Refuse (422 ``too_costly``) a text whose normalised form would keep a worker too long."""
    price = too_costly(text, limit)
    if price is not None:
        cost, allowed = price
        message = locales.t(lang, "hardening.too_costly", cost=cost, allowed=allowed)
        raise error(422, message, field="text", code="too_costly", values={"cost": cost, "allowed": allowed})


@asynccontextmanager
async def admitted(request: web.Request, lang: str) -> AsyncIterator[None]:
    """Hold a turn-worker slot for the block, fairly per client network; 503 + Retry-After if refused."""
    try:
        async with request.app[CONTEXT].turn.admitted(client_key(request), request.get(ARRIVED)):
            yield
    except Overloaded as exc:
        text = locales.t(lang, "hardening.overloaded", seconds=exc.retry_after)
        raise overloaded(text, exc.retry_after) from None


# --- chat ---------------------------------------------------------------------------
class WebChats:
    """The web surface (``bot.surface.Surface``): a session's reply is the HTTP response.

    A refusal is an HTTP status: past the rate limit a 429, a store that cannot be written
    a 503, admission control's "busy" a 503 with Retry-After; past the deadline the polite
    reply is a 200 (the conversation as it was). The widget shows no charts.
    """

    platform = PLATFORM

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    def pictures(self, where: str) -> bool:
        return False

    async def show(self, where: str, turned: Turned) -> web.Response:
        if turned.refused == "rate":
            raise rate_limited("conversation")
        if turned.refused == "storage":
            raise unavailable(turned.reply.text)
        if turned.refused == "busy":
            raise overloaded(turned.reply.text, turned.retry_after)
        if turned.refused == "cost":
            raise error(422, turned.reply.text, field="text", code="too_costly")
        reply = turned.reply
        out = {**reply_json(reply), "session_id": where, "kind": reply.kind, "plan": reply.plan}
        return model_response(ChatResponse.model_validate(out))


async def chat(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    body = await read_model(request, ChatRequest)
    session = body.session_id or secrets.token_urlsafe(18)
    replies = request.app.get(REPLIES)
    if body.message_id is None or replies is None:
        return await _checked_turn(request, ctx, body, session)
    # A repeat of this message gets the first send's reply (bot.web.replies), limits or not: it
    # asks nothing new. The limits are checked only before a turn runs.
    return await replies.once(session, body.message_id, lambda: _checked_turn(request, ctx, body, session))


async def _checked_turn(
    request: web.Request, ctx: WebContext, body: ChatRequest, session: str
) -> web.Response:
    """The conversation's rate limit and the message's cost, then its turn."""
    if ctx.per_session.retry_after((session, session)) > 0:  # before it could count as a new session
        raise rate_limited("conversation")
    check_cost(body.text, lang_of(request, body.lang))  # a 422 that names the cost (the turn checks it too)
    return await _take_turn(request, ctx, body, session)


async def _take_turn(request: web.Request, ctx: WebContext, body: ChatRequest, session: str) -> web.Response:
    """The turn, admitted by ``Turn.take`` as this client's network: a new session is counted
    against its network's hourly quota, in the database (several server processes share one
    count) and by the turn itself, which knows whether the session is stored from the state it
    loads anyway."""
    chat_ = Chat(
        session, session, body.lang, update_key(session, body.message_id) if body.message_id else None
    )
    client = client_key(request)
    quota = Quota(f"new-session:{client}", ctx.config.sessions_per_ip_per_hour, HOUR_S)
    try:
        shown = await converse(
            WebChats(ctx.turn),
            session,
            chat_,
            body.text,
            body.button,
            keep_plan=True,
            quota=quota,
            client=client,
            arrived=request.get(ARRIVED),
        )
    except QuotaExceeded as exc:
        minutes = max(1, math.ceil(exc.wait_s / 60))
        text = locales.t(body.lang or "zh", "web.too_many_sessions", minutes=minutes)
        raise rate_limited("address", exc.wait_s, text) from None
    if shown is None and body.message_id is not None:  # answered before, by a process that kept the reply
        raise error(409, locales.t(body.lang or "zh", "web.duplicate"), field="message_id", code="duplicate")
    if shown is None:  # a web turn without a message key carries no update id: never a repeat
        raise unavailable(locales.t(body.lang or "zh", "dialog.storage_unavailable"))
    return shown


# --- the engine contract ------------------------------------------------------------
async def _run_engine(request: web.Request, call: Call[M]) -> M:
    """Where the chat turns run, with their deadline: past it a 503, the server unhurt."""
    try:
        async with admitted(request, lang_of(request)):
            return await request.app[CONTEXT].turn.ask(call)
    except CallTimedOut:
        raise unavailable("the request took too long to answer; simplify it and retry") from None
    except EngineError as exc:
        raise ApiError(422, engine_payload(exc)) from exc


async def _workload(request: web.Request) -> Workload:
    try:
        return parse_workload(await read_text(request))
    except ContractError as exc:
        raise ApiError(422, exc.payload) from exc


async def estimate(request: web.Request) -> web.Response:
    return model_response(await _run_engine(request, Estimate(await _workload(request))))


async def recommend(request: web.Request) -> web.Response:
    return model_response(await _run_engine(request, Recommend(await _workload(request))))


async def analyze(request: web.Request) -> web.Response:
    body = await read_model(request, AnalyzeRequest)
    check_cost(body.text, lang_of(request), SHEET_CHARS)
    return model_response(await _run_engine(request, Analyze(body.text)))


async def quote(request: web.Request) -> web.Response:
    """A vendor's quote judged for a workload (issue 30): ``bot.quote_call``."""
    body = await read_model(request, QuoteRequest)
    return model_response(await _run_engine(request, JudgeQuote(body)))


# --- the operator catalog -----------------------------------------------------------
async def get_catalog(request: web.Request) -> web.Response:
    return model_response(request.app[CONTEXT].dialog.kb.catalog)


def authorize(request: web.Request, ctx: WebContext) -> None:
    """Bearer token, compared in constant time: 401 without credentials, 403 with wrong ones."""
    token = ctx.config.admin_token
    if not token:
        raise error(403, "the admin API is disabled: start the server with an admin token")
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given:
        exc = error(401, "send 'Authorization: Bearer <admin token>'", field="Authorization")
        exc.headers["WWW-Authenticate"] = 'Bearer realm="gpu-advisor admin"'
        raise exc
    # aiohttp keeps bytes that are not UTF-8 as surrogates: encode them back, never fail
    if not hmac.compare_digest(given.strip().encode("utf-8", "surrogateescape"), token.encode()):
        log.warning("admin catalog upload refused: wrong token from %s", request.remote)
        raise error(403, "wrong admin token", field="Authorization")


async def put_catalog(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    authorize(request, ctx)
    kind = request.content_type
    if kind not in CSV_TYPES | YAML_TYPES:
        raise error(415, "send the catalog as text/csv or application/yaml", field="Content-Type")
    body = await read_body(request)
    try:  # in a turn worker: a big upload must not stall every chat on this process
        catalog = await ctx.turn.ask(ParseUpload(body, kind, request.query.get("operator")))
    except CatalogError as exc:
        raise ApiError(422, exc.payload) from exc
    except CallTimedOut:
        raise unavailable("the catalog took too long to read; split it or retry") from None
    ctx.dialog.reload(with_catalog(ctx.dialog.kb, catalog))
    await ctx.turn.executor.broadcast(UseCatalog(catalog))  # the workers answer with it too
    log.info("catalog replaced: %s, %d offers", catalog.operator, len(catalog.offers))
    return model_response(CatalogUploaded(operator=catalog.operator, offers=len(catalog.offers)))
