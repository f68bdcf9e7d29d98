"""``gpu-advisor web``: serve the HTTP API, the chat page and the widget.

The admin token is read from the environment variable named by ``--admin-token-env``
(default ``GPU_ADVISOR_ADMIN_TOKEN``); without it ``PUT /api/admin/catalog`` answers
403, and one shorter than 32 characters stops the server before it starts. Listen on
loopback and put a TLS-terminating proxy in front for a public site (then pass
``--trusted-proxy`` with its address, so per-address limits see the real client).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from typing import Any

from gpu_advisor.bot.web.config import WebConfig, check_human_url

log = logging.getLogger(__name__)
TOKEN_ENV = "GPU_ADVISOR_ADMIN_TOKEN"
PROXIES_ENV = "GPU_ADVISOR_TRUSTED_PROXIES"
EXIT_BAD_INPUT = 2
DEFAULTS = WebConfig()


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
        "--human-url",
        default=None,
        metavar="URL",
        help="the widget's 'talk to a human' link (https: or mailto:), beside the requirements to hand over",
    )
    p.add_argument(
        "--admin-token-env", default=TOKEN_ENV, help=f"env var holding the admin token (default {TOKEN_ENV})"
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[os.environ.get(PROXIES_ENV, "")],
        dest="trusted_proxies",
        metavar="CIDR",
        help="a reverse proxy's address or network (repeatable; default $GPU_ADVISOR_TRUSTED_PROXIES,"
        " comma-separated): X-Forwarded-For is read only from these, and refused from other peers",
    )
    _add_limits(p)
    p.set_defaults(func=main)


def _add_limits(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers", type=int, default=None, help="chat turn worker processes (default: CPUs - 1, at least 2)"
    )
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes sharing the port (SO_REUSEPORT), each with its own turn workers;"
        " more than one wants --database-url postgresql://… (default 1)",
    )
    p.add_argument(
        "--database-url",
        default=argparse.SUPPRESS,  # the same as the global option
        metavar="URL",
        help="postgresql://… or sqlite:///path, instead of --db (default $GPU_ADVISOR_DATABASE_URL)",
    )
    p.add_argument(
        "--turn-deadline",
        type=float,
        default=DEFAULTS.turn_deadline_s,
        metavar="SECONDS",
        help=f"a chat turn past this gets a polite 'too long' reply (default {DEFAULTS.turn_deadline_s:g})",
    )
    p.add_argument(
        "--sessions-per-hour",
        type=int,
        default=DEFAULTS.sessions_per_ip_per_hour,
        help=f"new conversations per client address per hour (default {DEFAULTS.sessions_per_ip_per_hour})",
    )
    p.add_argument(
        "--ip-per-minute",
        type=int,
        default=DEFAULTS.ip_per_minute,
        help=f"/api/ requests per client address per minute (default {DEFAULTS.ip_per_minute})",
    )
    p.add_argument(
        "--metrics-from",
        action="append",
        default=None,
        metavar="CIDR",
        help="addresses that may read /metrics without the admin token (repeatable; default loopback)",
    )
    p.add_argument(
        "--queue-limit",
        type=int,
        default=DEFAULTS.queue_limit,
        help="engine requests waiting for a turn worker, per process (default: as many as the workers"
        " drain within the wait, at the service time measured)",
    )
    p.add_argument(
        "--client-v4-prefix",
        type=int,
        default=DEFAULTS.client_v4_prefix,
        help="IPv4 addresses sharing this many leading bits are one client for fair shares"
        f" (default {DEFAULTS.client_v4_prefix})",
    )
    p.add_argument(
        "--client-v6-prefix",
        type=int,
        default=DEFAULTS.client_v6_prefix,
        help="IPv6 addresses sharing this many leading bits are one client for fair shares"
        f" (default {DEFAULTS.client_v6_prefix}: one host's /64)",
    )
    p.add_argument(
        "--connections-per-ip",
        type=int,
        default=DEFAULTS.connections_per_ip,
        help=f"open connections per client address, 0 for no limit (default {DEFAULTS.connections_per_ip})",
    )


def config_from(args: argparse.Namespace) -> WebConfig:
    from gpu_advisor.bot.execution import auto_workers
    from gpu_advisor.bot.web.guard import normalize_origin

    token = os.environ.get(args.admin_token_env, "").strip() or None
    try:
        origins = tuple(normalize_origin(o) for o in args.cors_origins)
    except ValueError as exc:
        raise SystemExit(f"--cors-origin: {exc}") from exc
    try:
        human_url = args.human_url and check_human_url(args.human_url)
    except ValueError as exc:
        raise SystemExit(f"--human-url: {exc}") from exc
    try:
        return WebConfig(
            host=args.host,
            port=args.port,
            db_path=args.db,
            catalog=getattr(args, "catalog", None),
            cors_origins=origins,
            admin_token=token,
            human_url=human_url or None,
            trusted_proxies=_networks("--trusted-proxy", args.trusted_proxies),
            # two at least: one client address may hold only half of them (bot.admission)
            workers=max(2, auto_workers()) if args.workers is None else args.workers,
            turn_deadline_s=args.turn_deadline,
            sessions_per_ip_per_hour=args.sessions_per_hour,
            connections_per_ip=args.connections_per_ip,
            ip_per_minute=args.ip_per_minute,
            queue_limit=args.queue_limit,
            client_v4_prefix=args.client_v4_prefix,
            client_v6_prefix=args.client_v6_prefix,
            metrics_from=_networks("--metrics-from", args.metrics_from or list(DEFAULTS.metrics_from)),
        )
    except ValueError as exc:  # the admin token is too short, or a client network out of range
        where = f"${args.admin_token_env}: " if str(exc).startswith("the admin token") else ""
        raise SystemExit(f"{where}{exc}") from exc


def _networks(flag: str, values: list[str]) -> tuple[str, ...]:
    from gpu_advisor.bot.web.proxies import parse_networks

    try:
        return parse_networks(values)
    except ValueError as exc:
        raise SystemExit(f"{flag}: {exc}") from exc


def main(args: argparse.Namespace) -> int:
    from gpu_advisor.bot.web.app import build_app
    from gpu_advisor.knowledge import CatalogError

    config = config_from(args)
    if args.processes > 1:
        from gpu_advisor.bot.web.processes import serve_processes

        return serve_processes(args.processes, sys.argv[1:], address=(config.host, config.port))
    try:
        app = build_app(config)
    except CatalogError as exc:
        print(json.dumps(exc.payload, ensure_ascii=False))
        return EXIT_BAD_INPUT
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(app, config))
    return 0


async def _serve(app: Any, config: WebConfig) -> None:
    """Listen until SIGINT or SIGTERM, then let the workers and the store go."""
    from gpu_advisor.bot.web.server import listen

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows
            loop.add_signal_handler(signum, stop.set)
    listening = await listen(app, config)
    log.info("serving on http://%s:%d", config.host, listening.port)
    try:
        await stop.wait()
    finally:
        await listening.close()
