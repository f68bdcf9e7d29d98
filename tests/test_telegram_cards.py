"""Telegram shows the answer as a card whose buttons belong to its asker.

In a group every member sees the same card; only the asker's presses act on it, the
asker's "为什么" goes to their private chat (or a button opening it), and the bot says
what it is before anyone writes. Driven through the real Application and the loopback Bot API.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from gpu_advisor.bot import links
from gpu_advisor.bot.dialog import Reply
from gpu_advisor.bot.dialog.reply import Section
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.telegram import render
from gpu_advisor.bot.telegram.app import MENU, TelegramConfig, build_application, on_shutdown, on_startup
from tests.fakes.telegram_api import Call, FakeTelegram, User
from tests.test_telegram_bot import DIALOG, TOKEN, running

GROUP = -100888
ASK = "@gpu_advisor_test_bot 部署 7B，7×24，并发 4"


def why_data(card: Call) -> str:
    """The callback data of the card's "为什么" button."""
    keys = [b for row in card.params["reply_markup"]["inline_keyboard"] for b in row]
    return str(next(b["callback_data"] for b in keys if links.pressed(b["callback_data"]).payload == "/why"))


async def ask_in_group(tg: FakeTelegram, asker: User) -> Call:
    tg.send_text(asker, ASK, chat=GROUP, chat_type="supergroup")
    (card,) = await tg.wait_for("sendMessage")
    return card


def test_a_bound_button_names_its_owner_and_fits_telegrams_64_bytes() -> None:
    data = links.bind("q:concurrency:skip", 7_123_456_789)
    assert len(data.encode()) <= 64 and data.endswith("|q:concurrency:skip")
    assert links.pressed(data) == links.Pressed("q:concurrency:skip", 7_123_456_789)
    assert not links.pressed(data).allowed(1) and links.pressed(data).allowed(7_123_456_789)


def test_a_payload_too_long_to_carry_an_owner_stays_pressable_by_anyone() -> None:
    payload = "q:" + "x" * 60
    assert links.bind(payload, 12345) == payload and links.pressed(payload).allowed(999)


def test_the_card_fits_a_photo_caption_only_when_short() -> None:
    short = Reply(kind="answer", lang="en", title="✅ 1× T4 · $120/mo", summary=["fits: 11/15 GiB"])
    long = short.model_copy(update={"sections": [Section(id="reasoning", lines=["x" * 1100])]})
    assert render.caption(short) == "<b>✅ 1× T4 · $120/mo</b>\nfits: 11/15 GiB"
    assert render.caption(long) is None


async def test_the_card_goes_out_with_its_buttons_bound_to_the_asker(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice = tg.user(31, "Alice", "zh")
    async with running(tg, tmp_path):
        card = await ask_in_group(tg, alice)
    text = str(card.params["text"])
    assert text.count("<b>") >= 1 and "¥" in text and "/月" in text
    assert links.pressed(why_data(card)).owner == 31


async def test_another_members_press_gets_an_alert_and_leaves_the_askers_card_alone(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice, bob = tg.user(32, "Alice", "zh"), tg.user(33, "Bob", "zh")
    async with running(tg, tmp_path):
        card = await ask_in_group(tg, alice)
        tg.press(bob, card, why_data(card))
        (alert,) = await tg.wait_for("answerCallbackQuery")
    assert alert.params["show_alert"] is True and "别人" in str(alert.params["text"])
    assert not tg.calls_of("editMessageText") and len(tg.calls_of("sendMessage")) == 1  # nothing else said


async def test_the_askers_why_in_a_group_goes_to_their_private_chat(tg: FakeTelegram, tmp_path: Path) -> None:
    alice = tg.user(34, "Alice", "zh")
    async with running(tg, tmp_path):
        card = await ask_in_group(tg, alice)
        tg.press(alice, card, why_data(card))
        sent = await tg.wait_for("sendMessage", count=2)
        (toast,) = await tg.wait_for("answerCallbackQuery")
    assert sent[-1].params["chat_id"] == 34 and "•" in str(sent[-1].params["text"])
    assert "私信" in str(toast.params["text"]) and not tg.calls_of("editMessageText")


async def test_the_askers_why_offers_a_button_when_the_bot_may_not_message_them_yet(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    alice = tg.user(35, "Alice", "zh", started=False)
    async with running(tg, tmp_path):
        card = await ask_in_group(tg, alice)
        tg.press(alice, card, why_data(card))
        sent = await tg.wait_for("sendMessage", count=2)
    offer = sent[-1]
    (button,) = offer.params["reply_markup"]["inline_keyboard"][0]
    assert offer.params["chat_id"] == GROUP and button["url"].endswith("?start=why_m100888")
    assert "http" not in str(offer.params["text"])  # the link is the button, not a raw URL


async def test_plan_in_a_private_chat_is_one_photo_captioned_with_the_card(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    kate = tg.user(36, "Kate", "zh")
    async with running(tg, tmp_path):
        tg.send_text(kate, "部署 7B 模型，并发 4，7×24")
        await tg.wait_for("sendMessage")
        tg.send_text(kate, "/plan")
        (photo,) = await tg.wait_for("sendPhoto", timeout=20)
    assert "<b>" in str(photo.params["caption"]) and "¥" in photo.result["caption"]  # the card, priced
    assert photo.params["reply_markup"]["inline_keyboard"] and len(tg.calls_of("sendMessage")) == 1


async def test_the_menu_lists_each_command_once_and_the_bot_describes_itself(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    async with running(tg, tmp_path):
        await tg.wait_for("setMyShortDescription", count=2)
    names = [c["command"] for c in tg.commands()]
    assert sorted(names) == sorted(set(names)) == sorted(MENU)
    assert (
        "GPU" in tg.descriptions[("description", "")]
        and "GPU" in tg.descriptions[("short_description", "zh")]
    )
    assert tg.descriptions[("description", "zh")] != tg.descriptions[("description", "")]


async def test_start_up_and_shutdown_say_what_the_process_is_doing(
    tg: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gpu_advisor.bot.telegram.app")
    db = str(tmp_path / "tg.db")
    config = TelegramConfig(token=TOKEN, base_url=tg.base_url, db_path=db, workers=0, mode="long polling")
    app = build_application(config, dialog=DIALOG, store=Store(db))
    async with app:
        await on_startup(app)
        await on_shutdown(app)
    said = [r.getMessage() for r in caplog.records]
    assert any("@gpu_advisor_test_bot" in s and "long polling" in s and db in s for s in said)
    assert any("stopped" in s and db in s for s in said)
