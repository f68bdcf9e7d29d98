"""Start the Telegram bot: token from the environment, long polling or a webhook.

``TELEGRAM_BOT_TOKEN`` holds the token, or ``TELEGRAM_BOT_TOKEN_FILE`` names a file
with it; ``TELEGRAM_API_BASE_URL`` (or ``--base-url``) points at a self-hosted Bot API
server. The token never reaches a log line: every handler's formatter redacts it
(message, arguments, exception text and stack), and httpx's request logging (which
prints URLs containing it) is kept at WARNING.

In webhook mode Telegram proves each POST is its own with a secret header. The secret
comes from ``TELEGRAM_WEBHOOK_SECRET`` (32+ characters) or, if unset, is generated once
and kept next to the database (``bot.telegram.webhook``) — never the bot's id, which
anyone who talks to the bot can read.

``--processes N`` (webhook mode only) runs N webhook servers on one port over the shared
database (``--database-url postgresql://…``), under the supervisor of ``bot.web.processes``;
an update for one chat may land on any of them. Two things keep that correct:

- **Order.** Telegram's Bot API server sends a chat's next update only once the previous
  delivery is answered. PTB's webhook server answers 200 as soon as the update is queued,
  so the next update of the same chat could reach another process and be answered first.
  Here the 200 goes out only after the update is handled (``answer_before_acknowledging``),
  so a chat's updates are handled one after another whichever process gets them, and
  ``Storage.hold`` orders any that still meet (a redelivery racing its original).
- **Exactly once.** A redelivered update (no 200 in time, or a process killed mid-turn) is
  dropped by the turn's ``first_time`` check, in the transaction that saves the state.

Every process calls ``setWebhook`` with the same URL and secret. Telegram treats that as
idempotent, so no process is special: one restarted by the supervisor registers again
without coordinating with the rest, and none can register a different secret (they all
read the operator's, or the one file beside the database, created race-free). With
processes on several machines, set ``TELEGRAM_WEBHOOK_SECRET`` so they agree.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

from gpu_advisor.bot import secrets
from gpu_advisor.bot.web.processes import reuse_port, serve_processes, shared_socket

log = logging.getLogger(__name__)
URL_PATH = "telegram"
POLLING_PROCESSES = (
    "--processes needs --webhook-url: with long polling Telegram gives updates to one"
    " getUpdates caller at a time (others get 409 Conflict)"
)
REJECTED = (
    "the Bot API rejected the token (401/404): it was revoked or mistyped, or --base-url"
    " points at a server that is not a Bot API; check $TELEGRAM_BOT_TOKEN and --base-url"
)


def install_redaction(secret: str) -> None:
    secrets.install_redaction(secret, quiet=("httpx",))


def read_token() -> str:
    return secrets.read_token("TELEGRAM_BOT_TOKEN")


def add_telegram_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``telegram`` on the CLI's subparsers; the top-level ``--catalog`` is honoured."""
    p = sub.add_parser("telegram", help="run the Telegram bot (token in $TELEGRAM_BOT_TOKEN)")
    add_arguments(p)
    p.set_defaults(func=main)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--base-url", default=os.environ.get("TELEGRAM_API_BASE_URL"), help="self-hosted Bot API URL"
    )
    p.add_argument(
        "--db", default=os.environ.get("GPU_ADVISOR_DB", "gpu-advisor.db"), help="SQLite state file"
    )
    p.add_argument("--webhook-url", help="public HTTPS URL for webhook mode (default: long polling)")
    p.add_argument("--listen", default="127.0.0.1", help="webhook listen address")
    p.add_argument("--port", type=int, default=8443, help="webhook listen port")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes for conversation turns (default: CPUs - 1, 1 to 4; 0 = none, no deadline)",
    )
    p.add_argument(
        "--processes",
        type=int,
        default=1,
        help="webhook server processes sharing --port (SO_REUSEPORT), each with its own turn workers;"
        " more than one wants --database-url postgresql://… (default 1)",
    )
    p.add_argument(
        "--admins", default=os.environ.get("TELEGRAM_ADMIN_IDS", ""), help="comma-separated user ids"
    )


def webhook_options(args: argparse.Namespace) -> dict[str, Any]:
    """What ``run_webhook`` (and, in tests, ``Updater.start_webhook``) is started with."""
    from gpu_advisor.bot.telegram.webhook import webhook_secret

    return {
        "listen": args.listen,
        "port": args.port,
        "url_path": URL_PATH,
        "webhook_url": args.webhook_url,
        "secret_token": webhook_secret(Path(args.db).parent),
    }


def on_shared_port(options: dict[str, Any]) -> dict[str, Any]:
    """The webhook options for one of several processes: PTB adopts a ``SO_REUSEPORT`` socket
    (its ``unix`` argument takes a ready socket) instead of binding ``listen:port`` itself."""
    shared = {key: value for key, value in options.items() if key not in ("listen", "port")}
    return shared | {"unix": shared_socket(options["listen"], options["port"])}


class _HandledQueue(asyncio.Queue[object]):
    """The webhook server's queue whose ``put`` handles the update: the 200 means "answered"."""

    def __init__(self, app: Any) -> None:
        super().__init__()
        self.app = app

    async def put(self, item: object) -> None:
        from telegram import Update  # here, not at the top: parsing the CLI loads no chat library

        if isinstance(item, Update):
            await self.app.process_update(item)
        else:
            await super().put(item)


def answer_before_acknowledging(app: Any) -> None:
    """Make the webhook answer each POST after the update is handled, not when it is queued
    (see the module docstring: that is what keeps a chat's order across processes)."""
    if app.updater is not None:
        app.updater.update_queue = _HandledQueue(app)


def main(args: argparse.Namespace) -> int:
    if args.processes > 1:
        if not args.webhook_url:
            raise SystemExit(POLLING_PROCESSES)
        webhook_options(args)  # a bad secret stops the supervisor; the kept one is made once, here
        return serve_processes(
            args.processes, sys.argv[1:], what="telegram webhook", address=(args.listen, args.port)
        )
    return serve(args)


def serve(args: argparse.Namespace) -> int:
    """One bot process: long polling, or a webhook server (alone, or one of several on the port)."""
    from telegram.error import InvalidToken

    from gpu_advisor.bot.storage import database_url
    from gpu_advisor.bot.storage.target import shown
    from gpu_advisor.bot.telegram.app import TelegramConfig, build_application

    token = read_token()
    install_redaction(token)
    admins = frozenset(int(x) for x in args.admins.split(",") if x.strip().isdigit())
    options = webhook_options(args) if args.webhook_url else None  # a bad secret stops us before any I/O
    if options is not None and reuse_port():
        options = on_shared_port(options)
    config = TelegramConfig(
        token=token,
        base_url=args.base_url,
        db_path=args.db,
        catalog=getattr(args, "catalog", None),
        admin_ids=admins,
        workers=args.workers,  # None: one per spare CPU (bot.execution.auto_workers)
        mode=f"webhook at {args.webhook_url}" if args.webhook_url else "long polling",
    )
    log.info("starting the Telegram bot (%s, database %s)", config.mode, shown(database_url(config.db_path)))
    app = build_application(config)
    answer_before_acknowledging(app)
    try:
        if options is not None:
            app.run_webhook(**options)
        else:
            app.run_polling()
    except InvalidToken:
        raise SystemExit(REJECTED) from None
    log.info("the Telegram bot has stopped")
    return 0
