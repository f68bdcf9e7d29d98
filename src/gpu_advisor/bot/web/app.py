"""``build_app(config)``: the aiohttp Application with routes, middleware, store, turns and knowledge."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace

from aiohttp import web

from gpu_advisor import knowledge
from gpu_advisor.bot import metrics
from gpu_advisor.bot.admission import Admission
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.ratelimit import RateLimiter
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.turn import Conversations, Turn, executor_for
from gpu_advisor.bot.turn_calls import UseCatalog
from gpu_advisor.bot.web import api, guard, job_api, openapi, ops, pages, sessions
from gpu_advisor.bot.web.config import WebConfig
from gpu_advisor.bot.web.context import CONTEXT, WebContext

log = logging.getLogger(__name__)
WATCH_S = 1.0  # the watchdog's period: lost capacity comes back within about this
WATCHDOG = web.AppKey("watchdog", asyncio.Task[None])
SERVER_NAME = "gpu-advisor"  # in place of aiohttp's "Python/3.x aiohttp/3.x": no version to look up


def build_app(config: WebConfig, dialog: Dialog | None = None, store: Store | None = None) -> web.Application:
    """Raises ``CatalogError`` when ``config.catalog`` is unreadable or invalid (nothing is served).

    A ``dialog`` handed in also sets the class the turn workers build (tests instrument it).
    """
    config = replace(config, cors_origins=tuple(guard.normalize_origin(o) for o in config.cors_origins))
    dialog = dialog or Dialog(knowledge.load())
    if config.catalog:
        operator = knowledge.catalogs.read_file(config.catalog, dialog.kb)
        dialog.reload(knowledge.catalogs.with_catalog(dialog.kb, operator))
    owned = store is None
    store = store or Store(config.db_path)
    conversations = Conversations(dialog, store, api.PLATFORM)
    per_session = RateLimiter(config.session_per_minute)
    executor = executor_for(conversations, config.workers, None, config.turn_deadline_s)
    admission = Admission(
        config.workers,
        config.queue_limit,
        config.per_client_queue,
        min(config.queue_wait_s, config.turn_deadline_s),
        # a turn is killed at its deadline: a slot held well past it was lost, and is taken back
        hard_limit_s=2 * config.turn_deadline_s + config.queue_wait_s,
        target_s=config.queue_target_s,
    )
    ctx = WebContext(
        config=config,
        dialog=dialog,
        store=store,
        turn=Turn(conversations, executor, per_session, admission=admission),
        per_ip=RateLimiter(config.ip_per_minute),
        per_session=per_session,
        admission=admission,
    )
    app = web.Application(
        middlewares=[ops.observe, guard.cors, guard.errors, guard.limits],
        client_max_size=config.max_catalog_bytes,
    )
    app[CONTEXT] = ctx
    _routes(app)
    app.on_response_prepare.append(_server_header)
    app.on_startup.append(_start_turns)
    app.on_cleanup.append(_stop_turns)
    if owned:
        app.on_cleanup.append(lambda _app: _close(ctx.store))
    return app


def _routes(app: web.Application) -> None:
    app.router.add_post("/api/chat", api.chat)
    sessions.add_routes(app)  # the widget's chart and "start over"
    app.router.add_post("/api/estimate", api.estimate)
    app.router.add_post("/api/recommend", api.recommend)
    app.router.add_post("/api/analyze", api.analyze)
    app.router.add_post("/api/quote", api.quote)
    app.router.add_post("/api/job", job_api.job)
    app.router.add_get("/api/catalog", api.get_catalog)
    app.router.add_put("/api/admin/catalog", api.put_catalog)
    app.router.add_get("/openapi.json", openapi.serve)
    app.router.add_get("/widget.js", pages.widget)
    app.router.add_get("/", pages.index)
    ops.add_routes(app)


async def _server_header(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Server"] = SERVER_NAME


async def _start_turns(app: web.Application) -> None:
    """The workers are up before the first request, so every turn has its deadline.

    They build the shipped knowledge; an operator's catalog (a file, or YAML/CSV that the
    workers could not read) is handed to them as it stands here.
    """
    ctx = app[CONTEXT]
    if ctx.config.catalog:
        await ctx.turn.executor.broadcast(UseCatalog(ctx.dialog.kb.catalog))
    await ctx.turn.executor.initialize()
    app[WATCHDOG] = asyncio.create_task(watch(ctx), name="watchdog")


async def watch(ctx: WebContext, period_s: float = WATCH_S) -> None:
    """Restore lost capacity (issue 40): slots held by requests that are gone or overdue are taken
    back, dead turn workers are started again, whether or not a request comes to notice."""
    while True:
        await asyncio.sleep(period_s)
        try:
            ctx.admission.reclaim()
            if ctx.turn.executor.heal():
                metrics.WORKERS_RESTARTED.inc()
                log.warning("watchdog: a turn worker had died; starting another")
        except Exception:  # the watchdog must outlive whatever it finds
            log.exception("watchdog check failed")


async def _stop_turns(app: web.Application) -> None:
    watchdog = app.get(WATCHDOG)
    if watchdog is not None:
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
    await app[CONTEXT].turn.executor.shutdown()


async def _close(store: Store) -> None:
    store.close()
