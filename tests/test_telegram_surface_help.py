"""What Telegram says about itself: honest /help, unknown commands, charts on every path, names.

Driven through the real Application and the loopback Bot API, as the other Telegram tests.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpu_advisor.bot import links
from gpu_advisor.bot.telegram import render
from gpu_advisor.bot.telegram.app import MENU
from tests.fakes.telegram_api import Call, FakeTelegram
from tests.test_telegram_bot import running

GROUP = -100777
BOT = "gpu_advisor_test_bot"
SHEET = "/analyze 2x NVIDIA A100 80GB SXM\n2x Xeon 8380\n1 TB DDR4\nNVLink\n液冷"


def callbacks(message: Call) -> dict[str, str]:
    """A sent message's buttons: payload → callback data."""
    rows = (message.params.get("reply_markup") or {}).get("inline_keyboard", [])
    return {links.pressed(b["callback_data"]).payload: b["callback_data"] for row in rows for b in row}


async def test_a_card_reached_by_a_button_carries_a_chart_button_that_sends_the_chart(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    ann = tg.user(4101, "Ann", "en")
    async with running(tg, tmp_path):
        tg.send_text(ann, "serve a 7B model 24/7")
        (question,) = await tg.wait_for("sendMessage")
        tg.press(ann, question, next(iter(callbacks(question).values())))  # answer it by a button
        (card,) = await tg.wait_for("editMessageText")
        chart = callbacks(card)[render.CHART_PAYLOAD]
        tg.press(ann, card.result, chart)
        (photo,) = await tg.wait_for("sendPhoto", timeout=20)
    assert "$" in str(card.params["text"]) or "¥" in str(card.params["text"])  # the priced card
    assert photo.params["chat_id"] == 4101 and photo.files["photo"][:4] == b"\x89PNG"


async def test_an_unknown_command_says_it_is_unknown_and_points_to_help(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    bo = tg.user(4102, "Bo", "zh")
    async with running(tg, tmp_path):
        tg.send_text(bo, "/foo")
        (said,) = await tg.wait_for("sendMessage")
    assert "/foo" in str(said.params["text"]) and "/help" in str(said.params["text"])


async def test_a_command_for_another_bot_in_a_group_gets_no_reply(tg: FakeTelegram, tmp_path: Path) -> None:
    cy = tg.user(4103, "Cy", "en")
    async with running(tg, tmp_path):
        tg.send_text(cy, "/foo@some_other_bot", chat=GROUP, chat_type="supergroup")
        tg.send_text(cy, "/foo", chat=GROUP, chat_type="supergroup")  # a bare one may be another bot's
        tg.send_text(cy, f"/bar@{BOT}", chat=GROUP, chat_type="supergroup")
        (said,) = await tg.wait_for("sendMessage")
    assert "/bar" in str(said.params["text"]) and len(tg.calls_of("sendMessage")) == 1


async def test_help_lists_only_commands_telegram_can_send_and_how_to_ask_in_a_group(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    di, ed = tg.user(4104, "Di", "zh"), tg.user(4105, "Ed", "en")
    async with running(tg, tmp_path):
        tg.send_text(di, "/help")
        tg.send_text(ed, f"/help@{BOT}", chat=GROUP, chat_type="supergroup")
        sent = await tg.wait_for("sendMessage", count=2)
    for said in sent:
        text = str(said.params["text"])
        advertised = {m.group(1) for m in re.finditer(r"(?<![\w@])/(\S+?)(?=[\s@（(]|$)", text)}
        assert advertised and advertised <= set(MENU), advertised - set(MENU)  # no "/命令"
        assert f"@{BOT}" in text  # a group asks by mention (or reply)
    assert "回复" in str(sent[0].params["text"]) and "reply" in str(sent[1].params["text"])


async def test_analyze_names_the_card_and_the_interconnect_not_their_ids(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    fay = tg.user(4106, "Fay", "en")
    async with running(tg, tmp_path):
        tg.send_text(fay, SHEET)
        (said,) = await tg.wait_for("sendMessage")
    text = str(said.params["text"])
    assert "A100 80GB" in text and "NVLink" in text
    assert "a100-80g-sxm" not in text and "nvlink" not in text
