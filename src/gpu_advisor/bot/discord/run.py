"""Start the Discord bot: ``gpu-advisor discord [--guild ID] [--db FILE] [--no-sync]``.

``DISCORD_BOT_TOKEN`` holds the token, or ``DISCORD_BOT_TOKEN_FILE`` names a file with
it. ``--guild`` (or ``DISCORD_GUILD_ID``) syncs the slash commands to one server only,
which takes effect at once — use it while testing; a global sync can take a while to
reach every client. The token never reaches a log line: every handler's formatter
redacts it, tracebacks included (discord.py itself logs no token, but an exception
message might). A token Discord refuses ends the process with one plain sentence.

A bot in more guilds than one gateway connection may serve (Discord requires sharding
from 2,500 guilds, https://discord.com/developers/docs/topics/gateway#sharding) runs one
process per shard: ``--shard-count N --shard-id I`` for I = 0…N-1, each one gateway
connection identifying as shard ``[I, N]``, all writing to the same database
(``--database-url postgresql://…``). Without them the bot is one unsharded connection,
as before. Only shard 0 syncs the slash commands (they are the application's, not a
shard's). The turn workers (``--workers`` of the other surfaces) are not gateway connections.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from typing import TYPE_CHECKING

from gpu_advisor.bot import secrets

if TYPE_CHECKING:
    from gpu_advisor.bot.discord.app import DiscordConfig

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
    p.add_argument(
        "--shard-count",
        type=int,
        metavar="N",
        help="gateway shards over all processes (run one process per --shard-id; default: unsharded)",
    )
    p.add_argument("--shard-id", type=int, metavar="I", help="this process's shard, 0 to N-1")
    p.set_defaults(func=main)


def shard_of(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """(shard id, shard count) from the flags, or a plain sentence when they do not fit together."""
    shard_id, count = getattr(args, "shard_id", None), getattr(args, "shard_count", None)
    if shard_id is None and count is None:
        return None, None
    if shard_id is None or count is None:
        raise SystemExit("--shard-id and --shard-count go together: this process is shard I of N")
    if count < 1 or not 0 <= shard_id < count:
        raise SystemExit(f"--shard-id must be 0 to {count - 1} (there are --shard-count {count} shards)")
    return shard_id, count


def main(args: argparse.Namespace) -> int:
    from discord import LoginFailure

    from gpu_advisor.bot.discord.app import DiscordConfig

    shard_id, shard_count = shard_of(args)  # before the token: a wrong flag needs no secret
    token = read_token()
    install_redaction(token)
    config = DiscordConfig(
        token=token,
        db_path=args.db,
        catalog=getattr(args, "catalog", None),
        guild_id=args.guild,
        sync=not args.no_sync and not shard_id,  # shard 0 (or the only process) syncs the commands
        shard_id=shard_id,
        shard_count=shard_count,
    )
    try:
        asyncio.run(serve(config))
    except LoginFailure:
        raise SystemExit(REJECTED) from None
    return 0


async def serve(config: DiscordConfig) -> None:
    """Run until interrupted; discord.py reconnects on its own after network trouble."""
    from gpu_advisor.bot.discord.app import build_bot

    bot = build_bot(config)
    try:
        async with bot:
            await bot.start(config.token)
    finally:
        bot.conversations.turn.local.store.close()
