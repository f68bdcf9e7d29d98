"""The real python-telegram-bot against the loopback fake: proof the fake speaks the Bot API.

The handlers here are a tiny echo bot defined in this file, not project code, so a failure
points at the fake (or at PTB's expectations of Telegram), never at our dialog core.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import struct
import time
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from telegram import (
    Bot,
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    NetworkError,
    TimedOut,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from tests.fakes import Call, FakeTelegram, User
from tests.listening import loopback_listener, port_of

TOKEN = "123:TEST"
App = Application[Any, Any, Any, Any, Any, Any]


def tiny_png(width: int = 3, height: int = 2) -> bytes:
    """A valid RGB PNG, so the fake can read its size from IHDR like Telegram does."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


# ---- the echo bot --------------------------------------------------------------------------


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message and update.effective_user
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("显存", callback_data="mem")]])
    name = html.escape(update.effective_user.first_name)
    await update.effective_message.reply_text(
        f"你好，<b>{name}</b>", parse_mode="HTML", reply_markup=keyboard
    )


async def chosen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query
    await query.answer("收到")
    await query.edit_message_text(f"你选了 {query.data}")


async def inline_answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.inline_query
    assert query
    result = InlineQueryResultArticle(
        id="1", title=query.query, input_message_content=InputTextMessageContent(query.query)
    )
    await query.answer([result], cache_time=0)


async def photo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message
    await update.effective_message.reply_photo(tiny_png(), caption="chart")


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message and update.effective_message.text
    await update.effective_message.reply_text(update.effective_message.text)


def echo_app(tg: FakeTelegram, errors: list[object], rate_limiter: AIORateLimiter | None = None) -> App:
    builder = Application.builder().token(TOKEN).base_url(tg.base_url).base_file_url(tg.base_file_url)
    app: App = (builder.rate_limiter(rate_limiter) if rate_limiter else builder).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("photo", photo))
    app.add_handler(CallbackQueryHandler(chosen))
    app.add_handler(InlineQueryHandler(inline_answer))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))

    async def remember_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        errors.append(context.error)

    app.add_error_handler(remember_error)
    return app


@contextlib.asynccontextmanager
async def polling(app: App) -> AsyncIterator[App]:
    """Run the app as production does (start + long polling) and always stop it, boundedly."""
    async with app:
        await app.start()
        assert app.updater
        await app.updater.start_polling(poll_interval=0, timeout=1)
        try:
            yield app
        finally:
            await asyncio.wait_for(app.updater.stop(), 5)
            await asyncio.wait_for(app.stop(), 5)


async def wait_until(condition: Callable[[], object], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def text_is(text: str) -> Callable[[Call], bool]:
    return lambda call: call.params.get("text") == text


@pytest.fixture
def errors() -> list[object]:
    return []


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, base_url=tg.base_url, base_file_url=tg.base_file_url) as real_bot:
        yield real_bot


# ---- the eight behaviours the brief asks for --------------------------------------------------


async def test_private_start_is_answered_in_the_same_chat(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    async with polling(echo_app(tg, errors)):
        tg.send_text(alice, "/start")
        [reply] = await tg.wait_for("sendMessage")
    assert reply.params["chat_id"] == 42
    assert reply.params["text"] == "你好，<b>Alice</b>"
    assert reply.result["text"] == "你好，Alice"  # Telegram returns the text with the markup parsed out
    assert reply.result["from"]["is_bot"] is True
    assert not errors


async def test_button_press_answers_the_query_and_edits_the_message(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    async with polling(echo_app(tg, errors)):
        tg.send_text(alice, "/start")
        [menu] = await tg.wait_for("sendMessage")
        tg.press(alice, menu, "mem")
        [answer] = await tg.wait_for("answerCallbackQuery")
        [edit] = await tg.wait_for("editMessageText")
    assert answer.params["text"] == "收到"
    assert (edit.params["chat_id"], edit.params["message_id"]) == (42, menu.result["message_id"])
    assert edit.result["text"] == "你选了 mem"
    assert "reply_markup" not in edit.result  # an edit without reply_markup drops the keyboard
    assert not errors


async def test_inline_query_is_answered_with_results(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    async with polling(echo_app(tg, errors)):
        tg.inline(alice, "A100 80GB")
        [answer] = await tg.wait_for("answerInlineQuery")
    [article] = answer.params["results"]
    assert article["title"] == "A100 80GB"
    assert article["input_message_content"]["message_text"] == "A100 80GB"
    assert not errors


async def test_photo_upload_arrives_as_multipart_with_the_png_bytes(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    async with polling(echo_app(tg, errors)):
        tg.send_text(alice, "/photo")
        [sent] = await tg.wait_for("sendPhoto")
    assert sent.files["photo"] == tiny_png()
    assert sent.params["caption"] == "chart"
    assert (sent.result["photo"][-1]["width"], sent.result["photo"][-1]["height"]) == (3, 2)
    assert not errors


# PTB 22 itself warns when it builds RetryAfter, unless PTB_TIMEDELTA=1 opts in to timedelta.
@pytest.mark.filterwarnings("ignore:.*attribute `retry_after` will be of type")
async def test_429_is_retried_by_the_rate_limiter_and_the_reply_arrives_once(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    tg.fail_next("sendMessage", status=429, retry_after=1)
    async with polling(echo_app(tg, errors, AIORateLimiter(max_retries=2))):
        tg.send_text(alice, "/start")
        await tg.wait_for("sendMessage", timeout=5)
        await asyncio.sleep(0.2)  # room for a wrongful second delivery to show up
    attempts = tg.calls_of("sendMessage", include_failed=True)
    assert [call.status for call in attempts] == [429, 200]
    assert attempts[1].time - attempts[0].time >= 1.0  # PTB honoured retry_after
    assert len(tg.calls_of("sendMessage")) == 1
    assert not errors


async def test_500_reaches_the_error_handler_and_polling_survives(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    tg.fail_next("sendMessage", status=500)
    async with polling(echo_app(tg, errors)):
        tg.send_text(alice, "/start")
        await wait_until(lambda: errors)
        tg.send_text(alice, "还在吗")
        await tg.wait_for("sendMessage", predicate=text_is("还在吗"))
    [error] = errors
    assert isinstance(error, NetworkError)
    assert "internal server error" in str(error).lower()


async def test_unconfirmed_update_is_redelivered_after_a_restart(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    update_id = tg.send_text(alice, "第一条")
    # Deliver once, then fail the next poll and the shutdown call: nothing confirms the offset,
    # like a bot killed between receiving an update and its next getUpdates.
    tg.fail_next("getUpdates", status=500, times=2, after=1)
    async with polling(echo_app(tg, errors)):
        await tg.wait_for("sendMessage", predicate=text_is("第一条"))
    async with polling(echo_app(tg, errors)):
        await tg.wait_for("sendMessage", count=2, predicate=text_is("第一条"))
    deliveries = [c for c in tg.calls_of("getUpdates") if any(u["update_id"] == update_id for u in c.result)]
    assert len(deliveries) == 2


async def test_get_updates_keeps_updates_until_a_later_offset_confirms_them(
    tg: FakeTelegram, alice: User, bot: Bot
) -> None:
    first, second = tg.send_text(alice, "一"), tg.send_text(alice, "二")
    assert [u.update_id for u in await bot.get_updates(timeout=0)] == [first, second]
    assert [u.update_id for u in await bot.get_updates(timeout=0)] == [first, second]
    assert [u.update_id for u in await bot.get_updates(offset=first + 1, timeout=0)] == [second]
    assert await bot.get_updates(offset=second + 1, timeout=0) == ()


async def test_long_poll_waits_for_timeout_and_wakes_on_a_new_update(
    tg: FakeTelegram, alice: User, bot: Bot
) -> None:
    started = time.monotonic()
    assert await bot.get_updates(timeout=1) == ()
    assert time.monotonic() - started >= 0.9
    asyncio.get_running_loop().call_later(0.2, tg.send_text, alice, "醒醒")
    started = time.monotonic()
    [update] = await bot.get_updates(timeout=5)
    assert update.message and update.message.text == "醒醒"
    assert time.monotonic() - started < 1


async def test_set_my_commands_records_the_language(tg: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([BotCommand("start", "开始选型")], language_code="zh")
    await bot.set_my_commands([BotCommand("start", "Start sizing")], language_code="en")
    zh = await bot.get_my_commands(language_code="zh")
    assert [(c.command, c.description) for c in zh] == [("start", "开始选型")]
    assert await bot.get_my_commands() == ()  # no fallback: the default scope was never set
    call = tg.calls_of("setMyCommands")[0]
    assert call.params == {
        "commands": [{"command": "start", "description": "开始选型"}],
        "language_code": "zh",
    }
    assert tg.commands("en") == [{"command": "start", "description": "Start sizing"}]
    await bot.delete_my_commands(language_code="en")
    assert tg.commands("en") == []


# ---- webhook mode --------------------------------------------------------------------------


async def test_webhook_mode_receives_pushed_updates_and_checks_the_secret(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    listener = loopback_listener()  # bound here and handed over: never a port found free, bound later
    port = port_of(listener)
    app = echo_app(tg, errors)
    async with app:
        await app.start()
        assert app.updater
        url = f"http://127.0.0.1:{port}/hook"
        await app.updater.start_webhook(
            unix=listener, url_path="hook", webhook_url=url, secret_token="s3cret"
        )
        try:
            assert (tg.webhook["url"], tg.webhook["secret_token"]) == (url, "s3cret")
            forged = tg.send_text(alice, "伪造")
            assert await tg.post_update_to(url, forged, secret_token="wrong") == 403
            assert await tg.deliver_to_webhook(tg.send_text(alice, "/start")) == 200
            await tg.wait_for("sendMessage")
        finally:
            await asyncio.wait_for(app.updater.stop(), 5)
            await asyncio.wait_for(app.stop(), 5)
    with pytest.raises(Conflict, match=r"(?i)webhook is active"):
        async with Bot(TOKEN, base_url=tg.base_url) as bot:
            await bot.get_updates(timeout=0)


# ---- other faults ----------------------------------------------------------------------------


async def test_duplicated_update_is_handled_twice(
    tg: FakeTelegram, alice: User, errors: list[object]
) -> None:
    tg.duplicate_next_update()
    tg.send_text(alice, "回声")
    async with polling(echo_app(tg, errors)):
        await tg.wait_for("sendMessage", count=2, predicate=text_is("回声"))


async def test_dropped_connection_becomes_a_network_error(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.drop_next("sendMessage")
    with pytest.raises(NetworkError, match=r"(?i)disconnect|closed|reset"):
        await bot.send_message(42, "丢了")
    assert [c.status for c in tg.calls_of("sendMessage", include_failed=True)] == [0]
    await bot.send_message(42, "又好了")


async def test_delay_past_the_read_timeout_is_a_timeout(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.delay_next("sendMessage", 1.0)
    with pytest.raises(TimedOut):
        await bot.send_message(42, "慢", read_timeout=0.2)


async def test_two_pollers_conflict(tg: FakeTelegram, bot: Bot) -> None:
    older = asyncio.create_task(bot.get_updates(timeout=10))
    # A long poll is recorded only when it returns: wait until the fake holds it (not a fixed
    # pause, which a busy machine outlasts), with a deadline.
    await wait_until(lambda: tg._poll_generation == 1, timeout=10)
    # A second Bot, as a second bot process would be: one Bot's getUpdates pool holds one connection.
    async with Bot(TOKEN, base_url=tg.base_url) as second_instance:
        assert await second_instance.get_updates(timeout=0) == ()
    with pytest.raises(Conflict, match=r"(?i)only one bot instance"):
        await older


# ---- what the real server refuses -------------------------------------------------------------


async def test_unknown_method_is_a_telegram_404(bot: Bot) -> None:
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendHologram", api_kwargs={"chat_id": 42})


async def test_unknown_chat_is_refused(bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)chat not found"):
        await bot.send_message(7, "谁")


async def test_unescaped_html_is_refused_like_telegram(alice: User, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.send_message(42, "显存 < 16GB", parse_mode="HTML")
    with pytest.raises(BadRequest, match=r"(?i)unsupported start tag"):
        await bot.send_message(42, "第一行<br>第二行", parse_mode="HTML")
    await bot.send_message(42, html.escape("显存 < 16GB"), parse_mode="HTML")


async def test_limits_on_length_and_callback_data(alice: User, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(42, "字" * 4097)
    too_long = "显" * 22  # 66 bytes in UTF-8, over Telegram's 64
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data=too_long)]])
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
        await bot.send_message(42, "选", reply_markup=keyboard)


async def test_identical_edit_is_not_modified(alice: User, bot: Bot) -> None:
    sent = await bot.send_message(42, "同样")
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text("同样", chat_id=42, message_id=sent.message_id)


async def test_reply_parameters_echo_the_quoted_message(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.send_text(alice, "问题")
    [update] = await bot.get_updates(timeout=0)
    assert update.message
    reply = await update.message.reply_text("答案", do_quote=True)
    assert reply.reply_to_message and reply.reply_to_message.text == "问题"
    assert reply.message_id == update.message.message_id + 1  # one counter per chat


async def test_group_migration_raises_chat_migrated(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.send_text(alice, "/start@gpu_advisor_test_bot", chat=-5, chat_type="group")
    tg.migrate_group(-5, -1005)
    with pytest.raises(ChatMigrated) as migrated:
        await bot.send_message(-5, "旧群")
    assert migrated.value.new_chat_id == -1005
    await bot.send_message(-1005, "新群")


async def test_blocked_user_is_forbidden(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.chat_member_update(alice, new_status="kicked")
    [update] = await bot.get_updates(timeout=0)
    assert update.my_chat_member and update.my_chat_member.new_chat_member.status == "kicked"
    with pytest.raises(Forbidden, match=r"(?i)blocked by the user"):
        await bot.send_message(42, "还在吗")


async def test_answering_a_callback_query_twice_is_refused(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("好", callback_data="ok")]])
    sent = await bot.send_message(42, "确认？", reply_markup=keyboard)
    with pytest.raises(ValueError, match="no button"):
        tg.press(alice, sent.to_dict(), "nope")
    tg.press(alice, sent.to_dict(), "ok")
    [update] = await bot.get_updates(timeout=0)
    assert update.callback_query
    await update.callback_query.answer()
    with pytest.raises(BadRequest, match=r"(?i)query id is invalid"):
        await update.callback_query.answer()


async def test_entities_count_utf16_units_and_skip_lookalikes(
    tg: FakeTelegram, alice: User, bot: Bot
) -> None:
    tg.send_text(alice, "👍 /price@gpu_advisor_test_bot 问 @someone，mail a@b.com")
    [update] = await bot.get_updates(timeout=0)
    assert update.message
    found = {entity.type: text for entity, text in update.message.parse_entities().items()}
    assert found == {"bot_command": "/price@gpu_advisor_test_bot", "mention": "@someone"}


async def test_wait_for_timeout_says_what_arrived(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    await bot.send_message(42, "只有这一条")
    with pytest.raises(AssertionError, match=r"(?s)sendPhoto.*got 0.*只有这一条"):
        await tg.wait_for("sendPhoto", timeout=0.1)
