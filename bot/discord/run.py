"""Start the Discord bot: ``gpu-advisor discord [--guild ID] [--db FILE] [--no-sync]``.

``DISCORD_BOT_TOKEN`` holds the token, or ``DISCORD_BOT_TOKEN_FILE`` names a file with
it. ``--guild`` (or ``DISCORD_GUILD_ID``) syncs the slash commands to one server only,
which takes effect at once — use it while testing; a global sync can take a while to
reach every client. The token never reaches a log line: every handler's formatter
redacts it, tracebacks included (discord.py itself logs no token, but an exception
message might). A token Discord refuses ends the process with one plain sentence.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from typing import TYPE_CHECKING

from bot import secrets

if TYPE_CHECKING:
    from bot.discord.app import DiscordConfig

log = logging.getLogger(__name__)
REJECTED = "Discord refused the token (revoked or mistyped): check $DISCORD_BOT_TOKEN"


def read_token() -> str:
    return secrets.read_token("DISCORD_BOT_TOKEN")


def install_redaction(secret: str) -> None:
    secrets.install_redaction(secret, quiet=("discord.http",))


def add_discord_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``discord`` on the CLI's subparsers; the top-level ``--catalog`` is honoured."""
    p = sub.add_parser("discord", help="run the Discord bot (token in $DISCORD_BOT_TOKEN)")
    guild = os.environ.get("DISCORD_GUILD_ID", "")
    p.add_argument(
        "--guild",
        type=int,
        default=int(guild) if guild.isdigit() else None,
        metavar="ID",
        help="sync slash commands to this server only (instant; for testing)",
    )
    p.add_argument(
        "--db", default=os.environ.get("GPU_ADVISOR_DB", "gpu-advisor.db"), help="SQLite state file"
    )
    p.add_argument("--no-sync", action="store_true", help="do not sync slash commands at startup")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from discord import LoginFailure

    from bot.discord.app import DiscordConfig

    token = read_token()
    install_redaction(token)
    config = DiscordConfig(
        token=token,
        db_path=args.db,
        catalog=getattr(args, "catalog", None),
        guild_id=args.guild,
        sync=not args.no_sync,
    )
    try:
        asyncio.run(serve(config))
    except LoginFailure:
        raise SystemExit(REJECTED) from None
    return 0


async def serve(config: DiscordConfig) -> None:
    """Run until interrupted; discord.py reconnects on its own after network trouble."""
    from bot.discord.app import build_bot

    bot = build_bot(config)
    try:
        async with bot:
            await bot.start(config.token)
    finally:
        bot.conversations.turn.local.store.close()
