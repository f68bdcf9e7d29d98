"""The Telegram bot end to end: the real python-telegram-bot Application against a loopback Bot API.

Every assertion is on what the fake server received, as Telegram would have.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from telegram.ext import Application

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.execution import DEADLINE_S, WorkerPool
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.telegram.app import (
    TelegramConfig,
    build_application,
    describe_bot,
    register_commands,
    turn_of,
)
from gpu_advisor.bot.telegram.run import install_redaction
from tests.fakes.telegram_api import Call, FakeTelegram

TOKEN = "123456:SECRET-token-never-logged"
DIALOG = Dialog(knowledge.load())


@asynccontextmanager
async def running(
    tg: FakeTelegram,
    tmp_path: Path,
    admins: tuple[int, ...] = (),
    per_minute: int = 20,
    workers: int = 0,
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    config = TelegramConfig(
        token=TOKEN,
        base_url=tg.base_url,
        base_file_url=tg.base_file_url,
        db_path=str(tmp_path / "tg.db"),
        admin_ids=frozenset(admins),
        max_retries=3,
        messages_per_minute=per_minute,
        workers=workers,
    )
    app = build_application(config, dialog=DIALOG, store=Store(tmp_path / "tg.db"))
    async with app:
        await turn_of(app).executor.initialize()  # what post_init does under run_polling
        await register_commands(app)
        await describe_bot(app)
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()
            await turn_of(app).executor.shutdown()


async def test_turns_in_a_worker_process_answer_like_turns_on_the_loop(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    """Production runs turns in worker processes; the conversation reads exactly the same."""
    for workers, user_id in ((1, 2001), (0, 2002)):
        user = tg.user(user_id, "W", lang="en")
        folder = tmp_path / f"workers-{workers}"
        folder.mkdir()
        async with running(tg, folder, workers=workers) as app:
            assert turn_of(app).executor.pooled is bool(workers)
            for text in ("serve a 13B model", "8 concurrent users", "24x7", "/cost"):
                before = len(tg.calls_of("sendMessage"))
                tg.send_text(user, text)
                await tg.wait_for("sendMessage", count=before + 1)
    pooled, local = (
        [str(c.params["text"]) for c in tg.calls_of("sendMessage") if c.params["chat_id"] == uid]
        for uid in (2001, 2002)
    )
    assert pooled == local and len(pooled) == 4 and "/mo" in pooled[2]


def texts(calls: list[Call]) -> list[str]:
    return [str(c.params.get("text", "")) for c in calls]


async def test_private_conversation_with_buttons_reaches_a_priced_answer(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice = tg.user(1001, "Alice", lang="zh")
    async with running(tg, tmp_path):
        tg.send_text(alice, "我想部署一个13B的模型")
        (question,) = await tg.wait_for("sendMessage")
        assert question.params["chat_id"] == 1001 and question.params["parse_mode"] == "HTML"
        keyboard = question.params["reply_markup"]["inline_keyboard"]
        tg.press(alice, question, keyboard[0][0]["callback_data"])
        await tg.wait_for("answerCallbackQuery")
        (edit,) = await tg.wait_for("editMessageText")
        data = edit.params["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
        tg.press(alice, question, data)
        edits = await tg.wait_for("editMessageText", count=2)
    answer = str(edits[-1].params["text"])
    assert "<b>" in answer and "¥" in answer and "/月" in answer  # the card: a bold title, priced


async def test_group_members_keep_separate_conversations_and_get_quoted_replies(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice, bob = tg.user(1, "Alice", "zh"), tg.user(2, "Bob", "en")
    group = -100555
    async with running(tg, tmp_path):
        tg.send_text(alice, "大家好，今天吃什么", chat=group, chat_type="supergroup")  # not for the bot
        tg.send_text(alice, "@gpu_advisor_test_bot 部署 7B，7×24，并发 4", chat=group, chat_type="supergroup")
        tg.send_text(bob, "@gpu_advisor_test_bot fine-tune a 70B model", chat=group, chat_type="supergroup")
        sent = await tg.wait_for("sendMessage", count=2)
    assert len(tg.calls_of("sendMessage")) == 2  # the chatter got no reply
    by_asker = {c.result["reply_to_message"]["from"]["id"]: c for c in sent}  # each answer quotes its asker
    assert set(by_asker) == {1, 2} and all(c.params["chat_id"] == group for c in sent)
    assert "¥" in str(by_asker[1].params["text"])  # Alice's question was complete: a priced card
    assert any("fine-tune" in t or "train" in t.lower() for t in texts(sent))


async def test_why_in_a_group_offers_a_private_chat_instead_of_flooding(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice = tg.user(1, "Alice", "zh")
    async with running(tg, tmp_path):
        tg.send_text(
            alice, "@gpu_advisor_test_bot 部署 7B，7×24，并发 4", chat=-100777, chat_type="supergroup"
        )
        await tg.wait_for("sendMessage")
        tg.send_text(alice, "/why@gpu_advisor_test_bot", chat=-100777, chat_type="supergroup")
        sent = await tg.wait_for("sendMessage", count=2)
        (button,) = sent[-1].params["reply_markup"]["inline_keyboard"][0]
        assert button["url"].endswith("?start=why_m100777") and "t.me/" not in str(sent[-1].params["text"])
        tg.send_text(alice, "/start why_m100777")  # the deep link opens the private chat
        dm = await tg.wait_for("sendMessage", count=3)
    assert dm[-1].params["chat_id"] == 1 and "•" in str(dm[-1].params["text"])


async def test_inline_query_returns_a_result_card(tg: FakeTelegram, tmp_path: Path) -> None:
    carol = tg.user(3, "Carol", "en")
    async with running(tg, tmp_path):
        tg.inline(carol, "70B int4 inference 24/7")
        (call,) = await tg.wait_for("answerInlineQuery")
    (result,) = call.params["results"]
    assert "¥" in result["title"] and result["input_message_content"]["parse_mode"] == "HTML"


async def test_a_429_is_retried_after_retry_after_and_delivered_once(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    dave = tg.user(4, "Dave", "en")
    tg.fail_next("sendMessage", status=429, retry_after=1)
    async with running(tg, tmp_path):
        tg.send_text(dave, "/help")
        (ok,) = await tg.wait_for("sendMessage", timeout=8)
    failed = [c for c in tg.calls_of("sendMessage", include_failed=True) if not c.ok]
    assert len(failed) == 1 and ok.time - failed[0].time >= 0.9
    assert len(tg.calls_of("sendMessage")) == 1


async def test_a_500_is_logged_once_and_the_conversation_survives(
    tg: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    erin = tg.user(5, "Erin", "zh")
    tg.fail_next("sendMessage", status=500, times=3)  # all three attempts of the first reply fail
    async with running(tg, tmp_path):
        tg.send_text(erin, "部署 13B 模型")
        await tg.wait_for(
            "sendMessage", predicate=lambda c: "出了点问题" in str(c.params.get("text")), timeout=8
        )
        tg.send_text(erin, "并发 8")
        sent = await tg.wait_for("sendMessage", count=2, timeout=8)
    assert "7×24" in str(sent[-1].params["text"])  # the state kept the first message
    assert len([r for r in caplog.records if "telegram handler failed" in r.getMessage()]) == 1


async def test_a_slow_api_still_gets_every_message_answered(tg: FakeTelegram, tmp_path: Path) -> None:
    frank = tg.user(6, "Frank", "en")
    tg.delay_next("sendMessage", 2.0)
    async with running(tg, tmp_path):
        tg.send_text(frank, "/help")
        tg.send_text(frank, "/gpu T4")
        sent = await tg.wait_for("sendMessage", count=2, timeout=10)
    assert {"/plan" in t for t in texts(sent)} == {True, False}


async def test_commands_are_registered_in_english_and_chinese(tg: FakeTelegram, tmp_path: Path) -> None:
    async with running(tg, tmp_path):
        await tg.wait_for("setMyCommands", count=2)
    assert {c["command"] for c in tg.commands()} >= {"plan", "why", "cost", "compare", "gpu", "lang", "new"}
    assert any("推荐" in c["description"] for c in tg.commands(language_code="zh"))


async def test_dynamic_values_are_html_escaped(tg: FakeTelegram, tmp_path: Path) -> None:
    gina = tg.user(7, "Gina", "en")
    async with running(tg, tmp_path):
        tg.send_text(gina, "/gpu <b>tpu</b>")
        (sent,) = await tg.wait_for("sendMessage")
    assert "&lt;b&gt;tpu&lt;/b&gt;" in str(sent.params["text"])


async def test_admin_commands_are_refused_for_others(tg: FakeTelegram, tmp_path: Path) -> None:
    admin, mallory = tg.user(8, "Admin", "en"), tg.user(9, "Mallory", "en")
    async with running(tg, tmp_path, admins=(8,)):
        tg.send_text(mallory, "/stats")
        tg.send_text(admin, "/stats")
        tg.send_text(admin, "/reload_catalog")
        sent = await tg.wait_for("sendMessage", count=3)
    by_chat = {c.params["chat_id"]: str(c.params["text"]) for c in sent[:2]}
    assert "Only administrators" in by_chat[9]
    assert "conversations" in by_chat[8]
    assert "reloaded" in str(sent[2].params["text"])


async def test_a_flooding_user_is_slowed_down_politely(tg: FakeTelegram, tmp_path: Path) -> None:
    henry = tg.user(10, "Henry", "en")
    async with running(tg, tmp_path, per_minute=3):
        for _ in range(5):
            tg.send_text(henry, "/help")
        sent = await tg.wait_for("sendMessage", count=5)
    assert sum("wait a minute" in t for t in texts(sent)) == 2


async def test_the_token_never_appears_in_logs(
    tg: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    install_redaction(TOKEN)
    logging.getLogger().addFilter(lambda r: True)
    ivan = tg.user(11, "Ivan", "en")
    tg.fail_next("sendMessage", status=500)
    async with running(tg, tmp_path):
        tg.send_text(ivan, "/help")
        await tg.wait_for("sendMessage", timeout=8)
    assert caplog.records
    assert all(TOKEN not in r.getMessage() and "SECRET-token" not in r.getMessage() for r in caplog.records)


async def test_state_survives_an_application_restart(tg: FakeTelegram, tmp_path: Path) -> None:
    judy = tg.user(12, "Judy", "zh")
    async with running(tg, tmp_path):
        tg.send_text(judy, "我想部署一个13B的模型")
        await tg.wait_for("sendMessage")
    async with running(tg, tmp_path):
        tg.send_text(judy, "并发 8")
        sent = await tg.wait_for("sendMessage", count=2)
    assert "7×24" in str(sent[-1].params["text"])


async def test_plan_in_a_private_chat_also_sends_a_chart(tg: FakeTelegram, tmp_path: Path) -> None:
    kate = tg.user(13, "Kate", "zh")
    async with running(tg, tmp_path):
        tg.send_text(kate, "部署 13B 模型，并发 4，7×24")
        await tg.wait_for("sendMessage")
        tg.send_text(kate, "/plan")
        (photo,) = await tg.wait_for("sendPhoto", timeout=20)
    (png,) = photo.files.values()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


async def test_by_default_turns_run_in_worker_processes_with_a_deadline(tmp_path: Path) -> None:
    """``workers=0`` (these tests) runs turns on the loop; the production default never does."""
    app = build_application(TelegramConfig(token=TOKEN, db_path=str(tmp_path / "tg.db")), dialog=DIALOG)
    try:
        executor = turn_of(app).executor
        assert isinstance(executor, WorkerPool) and executor.count >= 1
        assert executor.deadline_s == DEADLINE_S
    finally:
        turn_of(app).local.store.close()
