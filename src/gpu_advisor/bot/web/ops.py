"""Operator endpoints and the per-request bookkeeping: /healthz, /readyz, /metrics, turn ids.

``/healthz`` answers 200 while the event loop runs (a liveness probe: restart me if not); it
never touches the database. ``/readyz`` answers 200 only when the store answers
(``Storage.ping``) within ``READY_TIMEOUT_S`` and the knowledge is loaded (GPUs and offers
present); otherwise 503 with the failed checks, so a load balancer stops sending chats that
would only get "try again later". A store that may be used from another thread (PostgreSQL)
is pinged there, so a hung database server never blocks the event loop, and so never
``/healthz`` behind it; an SQLite file is read in place (local, and bound to its thread).
Readiness also asks whether this process can take work at all (issue 40): its turn workers
are all running (``workers``), and not every worker slot has been held past the wait a
request may queue (``capacity``) — a process whose slots leaked or whose workers hang would
otherwise answer 503 to every turn while its probes said 200. ``/metrics`` is
Prometheus' text format (``bot.metrics``). None of them is rate-limited: they live
outside ``/api/`` and answer without touching a turn worker.

``observe`` is the outermost middleware: it gives the request its turn id (logged on
every line, echoed as ``X-Request-Id``) and records what Prometheus should know from
the finished response — latency of engine routes, the error code of a failure, a 429.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from gpu_advisor.bot import metrics
from gpu_advisor.bot.logs import new_turn_id, turn_context
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.web.context import ARRIVED, CONTEXT
from gpu_advisor.bot.web.proxies import trusted

log = logging.getLogger(__name__)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ENGINE_ROUTES = {
    "/api/chat": "chat",
    "/api/quote": "quote",
    "/api/estimate": "estimate",
    "/api/recommend": "recommend",
    "/api/analyze": "analyze",
}
READY_TIMEOUT_S = 2.0  # below the probes' own timeouts (compose and the Dockerfile use 4-5 s)


def add_routes(app: web.Application) -> None:
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", serve_metrics)


async def healthz(request: web.Request) -> web.Response:
    return web.json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    checks = {
        "store": await _store_answers(ctx.store),
        "knowledge": _knowledge_loaded(ctx.dialog.kb),
        "workers": ctx.turn.executor.capable,
        "capacity": not ctx.admission.stalled(ctx.admission.wait_s),
    }
    ready = all(checks.values())
    return web.json_response(
        {"status": "ready" if ready else "not_ready", "checks": checks}, status=200 if ready else 503
    )


async def _store_answers(store: Store) -> bool:
    try:
        if store.threadsafe:
            await asyncio.wait_for(asyncio.to_thread(store.ping), READY_TIMEOUT_S)
        else:
            store.ping()
    except TimeoutError:
        log.warning("readiness: the store did not answer within %g s", READY_TIMEOUT_S)
        return False
    except Exception as exc:  # any failure means "send no traffic here"; it is logged, not raised
        log.warning("readiness: the store did not answer: %s", exc)
        return False
    return True


def _knowledge_loaded(kb: object) -> bool:
    return bool(getattr(kb, "gpus", None)) and bool(getattr(getattr(kb, "catalog", None), "offers", None))


async def serve_metrics(request: web.Request) -> web.Response:
    """Only to the configured addresses (``metrics_from``), or with the admin token: 403 otherwise."""
    from gpu_advisor.bot.web.api import authorize
    from gpu_advisor.bot.web.guard import client_address

    ctx = request.app[CONTEXT]
    if not trusted(client_address(request), ctx.config.metrics_from):
        authorize(request, ctx)
    body, content_type = metrics.exposition()
    return web.Response(body=body, headers={"Content-Type": content_type})


@web.middleware
async def observe(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn id around the request; latency, errors, refusals and queue depth for engine routes."""
    turn_id = new_turn_id(request.headers.get("X-Request-Id"))
    route = ENGINE_ROUTES.get(request.path) if request.method == "POST" else None
    request[ARRIVED] = time.monotonic()  # admission control counts the deadline from here
    with turn_context(turn_id):
        started = time.perf_counter()
        if route:
            metrics.QUEUE_DEPTH.inc()
        try:
            response = await handler(request)
        finally:
            if route:
                metrics.QUEUE_DEPTH.dec()
        if route and response.status < 400:
            metrics.PLAN_SECONDS.labels(route).observe(time.perf_counter() - started)
            if route == "chat":
                metrics.TURNS.labels("web").inc()
        _count_failure(response)
    response.headers["X-Request-Id"] = turn_id
    return response


def _count_failure(response: web.StreamResponse) -> None:
    if response.status == 429:
        metrics.RATE_LIMITED.inc()
    if response.status >= 400:
        metrics.ERRORS.labels(_error_code(response)).inc()


def _error_code(response: web.StreamResponse) -> str:
    """The JSON contract's ``error.code`` (``bad_input``, ``rate_limited``…), else ``http_<status>``."""
    body = getattr(response, "body", None)
    if isinstance(body, bytes) and body.startswith(b"{"):
        try:
            code = json.loads(body).get("error", {}).get("code")
        except (ValueError, AttributeError):
            code = None
        if isinstance(code, str) and code.isidentifier() and len(code) <= 40:
            return code
    return f"http_{response.status}"
