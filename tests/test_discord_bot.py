"""The Discord bot end to end: real discord.py against a loopback Discord (REST and gateway).

Every assertion is on what the fake server received or now shows, as Discord would.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path

import discord
import pytest
import yarl

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.dialog import Button, ConversationState, Dialog, Reply
from gpu_advisor.bot.discord import render, run
from gpu_advisor.bot.discord.app import DiscordConfig, GpuAdvisorBot, build_bot
from gpu_advisor.bot.execution import DEADLINE_S, WorkerPool
from gpu_advisor.bot.store import Store
from tests.fakes.discord_api import EPHEMERAL, FakeDiscord, Interaction, Json

TOKEN = "MTIzNDU2.fake.SECRET-discord-token-never-logged"
DIALOG = Dialog(knowledge.load())
# A deadline, not a speed goal: starting or stopping a bot (its worker processes included) takes well
# under a second on an idle machine and several on a 2-core one running the suite beside another.
START_TIMEOUT_S = 30.0


class SlowDialog(Dialog):
    """The real core behind a 3.2 s pause: longer than Discord waits for an acknowledgement."""

    def handle(
        self, state: ConversationState, text: str, today: date | None = None
    ) -> tuple[Reply, ConversationState]:
        time.sleep(3.2)
        return super().handle(state, text, today)


class LongDialog(Dialog):
    """Answers with four copies of a real /why plus one 5000-character line: several messages' worth."""

    def handle(
        self, state: ConversationState, text: str, today: date | None = None
    ) -> tuple[Reply, ConversationState]:
        return long_reply(), state


def long_reply() -> Reply:
    state = ConversationState(lang="en")
    _, state = DIALOG.handle(state, "serve a 70B model 24/7 for 64 users, int4")
    why, _ = DIALOG.handle(state.model_copy(update={"answered": True}), "/why")
    text = "\n".join([why.text] * 4 + ["x_" * 2500, why.text])
    title, _, rest = text.partition("\n")
    costs = [Button(label="Costs", payload="/cost")]
    return Reply(kind="answer", title=title, summary=rest.split("\n"), lang="en", buttons=costs)


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(TOKEN) as server:
        monkeypatch.setattr(discord.http.Route, "BASE", server.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(server.gateway_url))
        yield server


@asynccontextmanager
async def running(
    fake: FakeDiscord,
    tmp_path: Path,
    dialog: Dialog = DIALOG,
    guild_sync: bool = True,
    per_minute: int = 20,
) -> AsyncIterator[GpuAdvisorBot]:
    """A bot process: its own Store on the shared file, started as in production, closed after."""
    config = DiscordConfig(
        token=TOKEN,
        guild_id=int(fake.guild_id) if guild_sync else None,
        guild_ready_timeout=0.05,
        messages_per_minute=per_minute,
        workers=0,
    )
    store = Store(tmp_path / "discord.db")
    bot = build_bot(config, dialog=dialog, store=store)
    task = asyncio.create_task(bot.start(TOKEN))
    ready = asyncio.create_task(bot.wait_until_ready())
    try:
        await asyncio.wait({task, ready}, timeout=START_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            task.result()  # raises why it stopped
        assert ready.done(), "the bot did not become ready"
        yield bot
    finally:
        ready.cancel()
        await bot.close()
        await asyncio.wait_for(task, START_TIMEOUT_S)
        store.close()


def buttons(message: Json) -> list[str]:
    return [c["custom_id"] for row in message["components"] for c in row["components"]]


def title(message: Json) -> str:
    return str(message["embeds"][0].get("title", ""))


def shown_text(message: Json) -> str:
    return "\n".join(f"{e.get('title', '')}\n{e.get('description', '')}" for e in message["embeds"])


def callback_of(fake: FakeDiscord, ix: Interaction) -> Json:
    (call,) = [c for c in fake.calls_of("callback") if f"/{ix.id}/" in c.path]
    return call.body


async def test_commands_are_synced_to_the_guild_with_chinese_descriptions(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    async with running(fake, tmp_path):
        pass
    synced = {c["name"]: c for c in fake.commands(guild=True)}
    assert set(synced) >= {"advise", "plan", "why", "cost", "compare", "gpu", "analyze", "new", "lang"}
    assert not fake.calls_of("sync_commands")  # guild-only: nothing global while testing
    assert synced["plan"]["description"] == locales.t("en", "commands.plan")
    assert synced["plan"]["description_localizations"]["zh-CN"] == locales.t("zh", "commands.plan")
    (text,) = synced["advise"]["options"]
    assert text["name"] == "text" and text["name_localizations"]["zh-CN"] == "需求"
    assert text["required"] and text["max_length"] == 4000
    assert [c["value"] for c in synced["lang"]["options"][0]["choices"]] == ["zh", "en"]


async def test_a_full_dialog_reaches_a_priced_answer_through_buttons(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    alice = fake.user(1001, "alice", locale="zh-CN")
    async with running(fake, tmp_path):
        ask = await fake.slash(alice, "advise", text="我想部署一个13B的模型")
        (question,) = await fake.replies(ask)
        assert callback_of(fake, ask) == {"type": 5, "data": {"flags": EPHEMERAL}}
        assert question["flags"] & EPHEMERAL and "多少人" in shown_text(question)
        first = await fake.click(alice, question, buttons(question)[0])
        (schedule,) = await fake.replies(first)
        assert callback_of(fake, first)["type"] == 6  # the question is edited in place
        assert schedule["id"] == question["id"] and "7×24" in shown_text(schedule)
        second = await fake.click(alice, schedule, buttons(schedule)[0])
        (answer,) = await fake.replies(second)
    assert "推荐" in title(answer) and "¥" in title(answer) and "/月" in title(answer)
    assert buttons(answer)[:2] == ["gpuadv:/why", "gpuadv:/cost"] and "gpuadv:/new" in buttons(answer)
    assert buttons(answer)[-1] == "gpuadv:share:/plan"


async def test_share_posts_the_answer_publicly_without_buttons(fake: FakeDiscord, tmp_path: Path) -> None:
    alice = fake.user(1002, "alice", locale="zh-CN")
    async with running(fake, tmp_path):
        ask = await fake.slash(alice, "advise", text="部署 7B，7×24，并发 4")
        (answer,) = await fake.replies(ask)
        share = await fake.click(alice, answer, "gpuadv:share:/plan")
        (public,) = await fake.replies(share)
    assert callback_of(fake, share) == {"type": 5}  # no ephemeral flag: the whole channel sees it
    assert not public["flags"] & EPHEMERAL and public["components"] == []
    assert title(public) == title(answer)
    assert public["embeds"][-1]["footer"]["text"] == "由 alice 分享"


async def test_a_button_from_before_a_restart_is_handled_by_the_new_process(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bob = fake.user(1003, "bob", locale="zh-CN")
    async with running(fake, tmp_path):
        ask = await fake.slash(bob, "advise", text="我想部署一个13B的模型")
        (question,) = await fake.replies(ask)
    async with running(fake, tmp_path):
        press = await fake.click(bob, question, buttons(question)[1])
        (after,) = await fake.replies(press)
    assert len(fake.identified) == 2  # two gateway sessions: the click reached the second process
    assert after["id"] == question["id"] and "7×24" in shown_text(after)  # state came from the store


async def test_a_slow_turn_is_deferred_within_three_seconds_then_followed_up(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    carol = fake.user(1004, "carol", locale="en-US")
    async with running(fake, tmp_path, dialog=SlowDialog(knowledge.load())):
        ask = await fake.slash(carol, "gpu", name="H100")
        (card,) = await fake.replies(ask, timeout=8)
    assert ask.callback == 5 and ask.callback_at is not None and ask.callback_at - ask.sent_at < 3.0
    (edit,) = fake.calls_of("edit_original")
    assert edit.time - ask.sent_at > 3.0  # the answer came after the window the deferral bought
    assert "H100" in title(card)


async def test_an_over_long_answer_is_split_so_every_embed_respects_the_limits(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    dave = fake.user(1005, "dave", locale="en-US")
    pages = render.messages(long_reply())
    assert len(pages) >= 3
    async with running(fake, tmp_path, dialog=LongDialog(knowledge.load())):
        ask = await fake.slash(dave, "advise", text="anything")
        sent = await fake.replies(ask, count=len(pages))
    assert len(sent) == len(pages)
    for message in sent:
        embeds = message["embeds"]
        assert 1 <= len(embeds) <= 10 and message["flags"] & EPHEMERAL
        assert sum(len(e.get("title", "")) + len(e.get("description", "")) for e in embeds) <= 6000
        assert all(len(e.get("title", "")) <= 256 and len(e.get("description", "")) <= 4096 for e in embeds)
    assert [bool(m["components"]) for m in sent] == [False] * (len(sent) - 1) + [True]
    described = "\n".join(e["description"] for m in sent for e in m["embeds"])
    assert described.replace("\n", "") == render.escape(long_reply().text.partition("\n")[2]).replace(
        "\n", ""
    )


async def test_dm_replies_are_not_ephemeral_and_offer_no_share(fake: FakeDiscord, tmp_path: Path) -> None:
    erin = fake.user(1006, "erin", locale="zh-CN")
    async with running(fake, tmp_path, guild_sync=False):
        ask = await fake.slash(erin, "advise", dm=True, text="部署 7B，7×24，并发 4")
        (answer,) = await fake.replies(ask)
        why = await fake.click(erin, answer, "gpuadv:/why")
        (reasoning,) = await fake.replies(why)
    assert fake.calls_of("sync_commands") and not fake.calls_of("sync_guild_commands")
    assert callback_of(fake, ask) == {"type": 5} and answer["flags"] == 0
    assert buttons(answer)[:2] == ["gpuadv:/why", "gpuadv:/cost"] and "gpuadv:share:/plan" not in buttons(
        answer
    )
    assert callback_of(fake, why) == {"type": 5} and reasoning["id"] != answer["id"]  # a new message
    assert "•" in shown_text(reasoning)


async def test_a_429_on_a_followup_is_retried_after_retry_after(fake: FakeDiscord, tmp_path: Path) -> None:
    frank = fake.user(1007, "frank", locale="en-US")
    pages = render.messages(long_reply())
    fake.fail_next("followup", status=429, retry_after=0.3)
    async with running(fake, tmp_path, dialog=LongDialog(knowledge.load())):
        ask = await fake.slash(frank, "advise", text="anything")
        await fake.replies(ask, count=len(pages))
    attempts = fake.calls_of("followup", include_failed=True)
    assert [c.status for c in attempts] == [429] + [200] * (len(pages) - 1)
    assert attempts[1].time - attempts[0].time >= 0.3


async def test_a_failed_send_is_logged_once_the_user_told_and_the_state_kept(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gina = fake.user(1008, "gina", locale="zh-CN")
    fake.fail_next("edit_original", status=429, via=False)  # no Via: a Cloudflare ban, not retried
    async with running(fake, tmp_path):
        ask = await fake.slash(gina, "advise", text="部署 13B 模型")
        (sorry,) = await fake.replies(ask)
        again = await fake.slash(gina, "advise", text="并发 8")
        (question,) = await fake.replies(again)
    assert locales.t("zh", "dialog.error_generic") in shown_text(sorry) and sorry["flags"] & EPHEMERAL
    assert "7×24" in shown_text(question)  # the first turn's state survived the failed send
    failures = [r for r in caplog.records if "discord /advise failed" in r.getMessage()]
    assert len(failures) == 1 and f"user {gina.id}" in failures[0].getMessage()


async def test_lang_switches_the_conversation_to_english(fake: FakeDiscord, tmp_path: Path) -> None:
    henry = fake.user(1009, "henry", locale="zh-CN")
    async with running(fake, tmp_path):
        switch = await fake.slash(henry, "lang", language="en")
        (done,) = await fake.replies(switch)
        ask = await fake.slash(henry, "advise", text="部署 13B 模型")
        (question,) = await fake.replies(ask)
    assert shown_text(done).strip() == locales.t("en", "dialog.lang_set")
    assert "How many people" in shown_text(question)


async def test_every_command_reaches_the_dialog(fake: FakeDiscord, tmp_path: Path) -> None:
    kim = fake.user(1011, "kim", locale="en-US")
    asks = {
        "help": {},
        "plan": {},
        "why": {},
        "compare": {"a": "A100", "b": "T4", "workload": "13B int4 inference"},
        "gpu": {"name": "4090"},
        "analyze": {"sheet": "2x NVIDIA A100 80GB SXM, 2x Xeon 8380, 1 TB DDR4, 4x 3.84 TB NVMe"},
        "new": {},
    }
    async with running(fake, tmp_path):
        shown = {}
        for name, options in asks.items():
            ix = await fake.slash(kim, name, **options)
            (reply,) = await fake.replies(ix)
            shown[name] = shown_text(reply)
    assert "/plan" in shown["help"]
    assert locales.t("en", "dialog.need_more") in shown["plan"]
    assert locales.t("en", "dialog.no_plan_yet") in shown["why"]
    assert "A100" in shown["compare"] and "T4" in shown["compare"] and "tokens/s" in shown["compare"]
    assert "4090" in shown["gpu"] and "a100" in shown["analyze"].lower()
    assert locales.t("en", "dialog.reset") in shown["new"]
    assert all(locales.t("en", "dialog.error_generic") not in text for text in shown.values())


async def test_a_command_failing_before_the_dialog_is_logged_once_and_answered(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    lena = fake.user(1012, "lena", locale="en-US")
    async with running(fake, tmp_path):
        ix = await fake.slash(lena, "lang", language="fr")  # a stale client's choice: conversion fails
        (sorry,) = await fake.replies(ix)
    assert locales.t("en", "dialog.error_generic") in shown_text(sorry) and sorry["flags"] & EPHEMERAL
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "/lang failed before reaching the dialog" in errors[0].getMessage()


async def test_a_flooding_user_is_slowed_down_politely(fake: FakeDiscord, tmp_path: Path) -> None:
    mia = fake.user(1013, "mia", locale="en-US")
    async with running(fake, tmp_path, per_minute=2):
        texts = []
        for _ in range(3):
            ix = await fake.slash(mia, "help")
            (reply,) = await fake.replies(ix)
            texts.append(shown_text(reply))
    assert [locales.t("en", "dialog.slow_down") in t for t in texts] == [False, False, True]


async def test_the_token_never_appears_in_logs(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    run.install_redaction(TOKEN)
    ivan = fake.user(1010, "ivan", locale="en-US")
    async with running(fake, tmp_path):
        ask = await fake.slash(ivan, "gpu", name="T4")
        await fake.replies(ask)
    assert len(caplog.records) > 10  # discord.py's debug logging was on
    assert all("SECRET-discord-token" not in r.getMessage() for r in caplog.records)


async def test_the_cli_entry_serves_until_cancelled(fake: FakeDiscord, tmp_path: Path) -> None:
    config = DiscordConfig(
        token=TOKEN, db_path=str(tmp_path / "cli.db"), guild_id=int(fake.guild_id), guild_ready_timeout=0.05
    )
    serving = asyncio.create_task(run.serve(config))
    await fake.wait_for("sync_guild_commands")
    ix = await fake.slash(fake.user(1014, "nora", locale="en-US"), "gpu", name="T4")
    (card,) = await fake.replies(ix)
    serving.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(serving, START_TIMEOUT_S)
    assert "T4" in title(card) and (tmp_path / "cli.db").exists()


def test_the_discord_subcommand_parses_its_options_and_needs_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = argparse.ArgumentParser()
    run.add_discord_command(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["discord", "--guild", "123", "--db", "x.db"])
    assert (args.guild, args.db, args.no_sync, args.func) == (123, "x.db", False, run.main)
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    monkeypatch.delenv("DISCORD_BOT_TOKEN_FILE", raising=False)
    with pytest.raises(SystemExit, match="DISCORD_BOT_TOKEN"):
        run.main(args)


def test_quick_replies_fit_discords_button_layout() -> None:
    from gpu_advisor.bot.discord.views import quick_replies

    many = [Button(label=f"choice {i} " + "x" * 90, payload=f"q:test:{i}") for i in range(30)]
    view = quick_replies(many, "en", share="/plan")
    assert view is not None and view.timeout is None and len(view.children) == 25
    rows = view.to_components()
    assert len(rows) == 5 and all(len(r["components"]) == 5 for r in rows)
    assert all(len(c["custom_id"]) <= 100 and len(c["label"]) <= 80 for r in rows for c in r["components"])
    assert rows[-1]["components"][-1]["custom_id"] == "gpuadv:share:/plan"


async def test_by_default_turns_run_in_worker_processes_with_a_deadline(tmp_path: Path) -> None:
    """``workers=0`` (these tests) runs turns on the loop; the production default never does."""
    bot = build_bot(DiscordConfig(token="unused", db_path=str(tmp_path / "d.db")), dialog=DIALOG)
    try:
        executor = bot.conversations.turn.executor
        assert isinstance(executor, WorkerPool) and executor.count >= 1
        assert executor.deadline_s == DEADLINE_S
    finally:
        bot.conversations.turn.local.store.close()
