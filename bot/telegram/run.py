"""Start the Telegram bot: token from the environment, long polling or a webhook.

``TELEGRAM_BOT_TOKEN`` holds the token, or ``TELEGRAM_BOT_TOKEN_FILE`` names a file
with it; ``TELEGRAM_API_BASE_URL`` (or ``--base-url``) points at a self-hosted Bot API
server. The token never reaches a log line: a filter on every handler redacts it, and
httpx's request logging (which prints URLs containing it) is kept at WARNING.
"""

from __future__ import annotations

import argparse
import logging
import os

from bot import secrets

log = logging.getLogger(__name__)


def install_redaction(secret: str) -> None:
    secrets.install_redaction(secret, quiet=("httpx",))


def read_token() -> str:
    return secrets.read_token("TELEGRAM_BOT_TOKEN")


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
        help="worker processes for conversation turns (default: CPUs - 1, at most 4; 0 = none)",
    )
    p.add_argument(
        "--admins", default=os.environ.get("TELEGRAM_ADMIN_IDS", ""), help="comma-separated user ids"
    )


def main(args: argparse.Namespace, catalog: str | None) -> int:
    from bot.telegram.app import TelegramConfig, build_application
    from bot.turns import auto_workers

    token = read_token()
    install_redaction(token)
    admins = frozenset(int(x) for x in args.admins.split(",") if x.strip().isdigit())
    config = TelegramConfig(
        token=token,
        base_url=args.base_url,
        db_path=args.db,
        catalog=catalog,
        admin_ids=admins,
        workers=auto_workers() if args.workers is None else args.workers,
    )
    app = build_application(config)
    if args.webhook_url:
        secret = os.environ.get("TELEGRAM_WEBHOOK_SECRET") or token.split(":")[0]
        app.run_webhook(
            listen=args.listen,
            port=args.port,
            url_path="telegram",
            webhook_url=args.webhook_url,
            secret_token=secret,
        )
    else:
        app.run_polling()
    return 0
