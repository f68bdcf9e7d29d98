"""``build_app(config)``: the aiohttp Application with routes, middleware, store and knowledge."""

from __future__ import annotations

from dataclasses import replace

from aiohttp import web

import knowledge
from bot.dialog import Dialog
from bot.ratelimit import RateLimiter
from bot.store import Store
from bot.web import api, guard, openapi, pages
from bot.web.catalog import read_catalog_file, with_catalog
from bot.web.config import WebConfig
from bot.web.context import CONTEXT, WebContext


def build_app(config: WebConfig, dialog: Dialog | None = None, store: Store | None = None) -> web.Application:
    """Raises ``CatalogError`` when ``config.catalog`` is unreadable or invalid (nothing is served)."""
    config = replace(config, cors_origins=tuple(guard.normalize_origin(o) for o in config.cors_origins))
    dialog = dialog or Dialog(knowledge.load())
    if config.catalog:
        dialog.reload(with_catalog(dialog.kb, read_catalog_file(config.catalog, dialog.kb)))
    owned = store is None
    ctx = WebContext(
        config=config,
        dialog=dialog,
        store=store or Store(config.db_path),
        per_ip=RateLimiter(config.ip_per_minute),
        per_session=RateLimiter(config.session_per_minute),
    )
    app = web.Application(
        middlewares=[guard.cors, guard.errors, guard.limits], client_max_size=config.max_catalog_bytes
    )
    app[CONTEXT] = ctx
    app.router.add_post("/api/chat", api.chat)
    app.router.add_post("/api/estimate", api.estimate)
    app.router.add_post("/api/recommend", api.recommend)
    app.router.add_post("/api/analyze", api.analyze)
    app.router.add_get("/api/catalog", api.get_catalog)
    app.router.add_put("/api/admin/catalog", api.put_catalog)
    app.router.add_get("/openapi.json", openapi.serve)
    app.router.add_get("/widget.js", pages.widget)
    app.router.add_get("/", pages.index)
    if owned:
        app.on_cleanup.append(lambda _app: _close(ctx.store))
    return app


async def _close(store: Store) -> None:
    store.close()
