"""``gpu-advisor web``: serve the HTTP API, the chat page and the widget.

The admin token is read from the environment variable named by ``--admin-token-env``
(default ``GPU_ADVISOR_ADMIN_TOKEN``); without it ``PUT /api/admin/catalog`` answers
403. Listen on loopback and put a TLS-terminating proxy in front for a public site
(then pass ``--trust-forwarded-for`` so per-address limits see the real client).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from typing import Any

from bot.web.config import WebConfig

log = logging.getLogger(__name__)
TOKEN_ENV = "GPU_ADVISOR_ADMIN_TOKEN"
MIN_TOKEN_CHARS = 16
EXIT_BAD_INPUT = 2


def add_web_command(sub: Any) -> None:
    """Register ``web`` on the CLI's subparsers (``sub`` is ``parser.add_subparsers()``)."""
    p = sub.add_parser("web", help="serve the HTTP API and the chat widget for a rental site")
    p.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="listen port (default 8080)")
    p.add_argument(
        "--db", default=os.environ.get("GPU_ADVISOR_DB", "gpu-advisor.db"), help="SQLite state file"
    )
    p.add_argument(
        "--catalog",
        default=argparse.SUPPRESS,  # keeps a global `gpu-advisor --catalog FILE web` intact
        help="operator price catalog, YAML or CSV (columns are Offer fields)",
    )
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        dest="cors_origins",
        metavar="ORIGIN",
        help="a site allowed to embed the widget, e.g. https://rent.example (repeatable)",
    )
    p.add_argument(
        "--admin-token-env", default=TOKEN_ENV, help=f"env var holding the admin token (default {TOKEN_ENV})"
    )
    p.add_argument(
        "--trust-forwarded-for", action="store_true", help="behind a reverse proxy: trust X-Forwarded-For"
    )
    p.set_defaults(func=main)


def config_from(args: argparse.Namespace) -> WebConfig:
    from bot.web.guard import normalize_origin

    token = os.environ.get(args.admin_token_env, "").strip() or None
    if token and len(token) < MIN_TOKEN_CHARS:
        log.warning("the admin token in $%s is short; use %d+ random characters", args.admin_token_env, 16)
    try:
        origins = tuple(normalize_origin(o) for o in args.cors_origins)
    except ValueError as exc:
        raise SystemExit(f"--cors-origin: {exc}") from exc
    return WebConfig(
        host=args.host,
        port=args.port,
        db_path=args.db,
        catalog=getattr(args, "catalog", None),
        cors_origins=origins,
        admin_token=token,
        trust_forwarded_for=args.trust_forwarded_for,
    )


def main(args: argparse.Namespace) -> int:
    from aiohttp import web

    from bot.web.app import build_app
    from bot.web.catalog import CatalogError

    config = config_from(args)
    try:
        app = build_app(config)
    except CatalogError as exc:
        print(json.dumps(exc.payload, ensure_ascii=False))
        return EXIT_BAD_INPUT
    web.run_app(app, host=config.host, port=config.port, access_log=None)
    return 0
