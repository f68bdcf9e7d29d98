"""``gpu-advisor discord --shard-count N --shard-id I``: one gateway connection per process, as shard I of N.

Against the loopback Discord (tests/fakes/discord_api.py): the IDENTIFY that discord.py sends
carries the shard, so Discord gives this process that shard's guilds only
(https://discord.com/developers/docs/topics/gateway#sharding).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from gpu_advisor.bot.discord.app import DiscordConfig, build_bot
from gpu_advisor.bot.discord.run import shard_of
from gpu_advisor.bot.store import Store
from tests.fakes.discord_api import FakeDiscord
from tests.test_discord_bot import DIALOG, START_TIMEOUT_S, TOKEN, fake  # noqa: F401  (fake is a fixture)


def _flags(shard_id: int | None, shard_count: int | None) -> argparse.Namespace:
    return argparse.Namespace(shard_id=shard_id, shard_count=shard_count)


async def identified_shards(server: FakeDiscord, tmp_path: Path, flags: argparse.Namespace) -> list[object]:
    """Start the bot as ``gpu-advisor discord`` would with these flags; the shards it identified as."""
    shard_id, count = shard_of(flags)
    config = DiscordConfig(
        token=TOKEN, sync=False, guild_ready_timeout=0.05, workers=0, shard_id=shard_id, shard_count=count
    )
    store = Store(tmp_path / "discord.db")
    bot = build_bot(config, dialog=DIALOG, store=store)
    task = asyncio.create_task(bot.start(TOKEN))
    try:
        await asyncio.wait_for(bot.wait_until_ready(), START_TIMEOUT_S)
    finally:
        await bot.close()
        await asyncio.wait_for(task, START_TIMEOUT_S)
        store.close()
    return [identify.get("shard") for identify in server.identified]


async def test_a_sharded_process_identifies_as_its_shard(
    fake: FakeDiscord,  # noqa: F811
    tmp_path: Path,
) -> None:
    assert await identified_shards(fake, tmp_path, _flags(1, 2)) == [[1, 2]]


async def test_an_unsharded_process_identifies_without_a_shard(
    fake: FakeDiscord,  # noqa: F811
    tmp_path: Path,
) -> None:
    assert await identified_shards(fake, tmp_path, _flags(None, None)) == [None]


def test_no_shard_flags_mean_unsharded() -> None:
    assert shard_of(_flags(None, None)) == (None, None)


def test_a_shard_id_without_a_count_refuses_to_start_saying_why() -> None:
    with pytest.raises(SystemExit, match="go together"):
        shard_of(_flags(0, None))


def test_a_shard_id_past_the_count_refuses_to_start_saying_why() -> None:
    with pytest.raises(SystemExit, match="0 to 1"):
        shard_of(_flags(2, 2))
