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
"""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path
from typing import Any

from bot import secrets

log = logging.getLogger(__name__)
URL_PATH = "telegram"
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
        "--admins", default=os.environ.get("TELEGRAM_ADMIN_IDS", ""), help="comma-separated user ids"
    )


def webhook_options(args: argparse.Namespace) -> dict[str, Any]:
    """What ``run_webhook`` (and, in tests, ``Updater.start_webhook``) is started with."""
    from bot.telegram.webhook import webhook_secret

    return {
        "listen": args.listen,
        "port": args.port,
        "url_path": URL_PATH,
        "webhook_url": args.webhook_url,
        "secret_token": webhook_secret(Path(args.db).parent),
    }


def main(args: argparse.Namespace) -> int:
    from telegram.error import InvalidToken

    from bot.telegram.app import TelegramConfig, build_application

    token = read_token()
    install_redaction(token)
    admins = frozenset(int(x) for x in args.admins.split(",") if x.strip().isdigit())
    options = webhook_options(args) if args.webhook_url else None  # a bad secret stops us before any I/O
    config = TelegramConfig(
        token=token,
        base_url=args.base_url,
        db_path=args.db,
        catalog=getattr(args, "catalog", None),
        admin_ids=admins,
        workers=args.workers,  # None: one per spare CPU (bot.execution.auto_workers)
        mode=f"webhook at {args.webhook_url}" if args.webhook_url else "long polling",
    )
    log.info("starting the Telegram bot (%s, database %s)", config.mode, config.db_path)
    app = build_application(config)
    try:
        if options is not None:
            app.run_webhook(**options)
        else:
            app.run_polling()
    except InvalidToken:
        raise SystemExit(REJECTED) from None
    log.info("the Telegram bot has stopped")
    return 0
