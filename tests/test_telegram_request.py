"""JsonRequest: our Bot API calls go as JSON, uploads as multipart, and failures read as PTB's.

Checked through the real ``telegram.Bot`` against the loopback fake, which records how
each call was encoded.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from urllib.parse import urlencode

import pytest
from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter  # how PTB builds a call

from gpu_advisor.bot.dialog.reply import Button
from gpu_advisor.bot.telegram import render
from gpu_advisor.bot.telegram.request import JsonRequest, json_body
from tests.fakes import FakeTelegram, User
from tests.test_fake_telegram import TOKEN, tiny_png

ANSWER = "推荐 <b>1×RTX 4090 24GB</b>：显存 17.2 GB / 24 GB，约 ¥1.98/小时。"


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    request = JsonRequest(connection_pool_size=4)
    async with Bot(TOKEN, base_url=tg.base_url, base_file_url=tg.base_file_url, request=request) as real_bot:
        yield real_bot


async def test_a_chinese_reply_with_buttons_is_posted_as_json(
    tg: FakeTelegram, alice: User, bot: Bot
) -> None:
    markup = render.keyboard(
        [Button(label="训练", payload="task:train"), Button(label="推理", payload="task:serve")]
    )
    await bot.send_message(42, ANSWER, parse_mode="HTML", reply_markup=markup)
    [call] = tg.calls_of("sendMessage")
    assert call.content_type == "application/json"
    assert call.params["text"] == ANSWER
    assert call.params["reply_markup"] == {
        "inline_keyboard": [
            [{"text": "训练", "callback_data": "task:train"}, {"text": "推理", "callback_data": "task:serve"}]
        ]
    }
    assert call.result["text"].startswith("推荐 1×RTX 4090 24GB")


async def test_a_photo_upload_still_goes_as_multipart(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    png = tiny_png()
    await bot.send_photo(42, png, caption="显存")
    [call] = tg.calls_of("sendPhoto")
    assert call.content_type == "multipart/form-data"
    assert call.files["photo"] == png
    assert call.params["caption"] == "显存"


async def test_an_api_error_is_still_the_telegram_error(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.fail_next("sendMessage", status=400, description="Bad Request: message text is empty")
    with pytest.raises(BadRequest, match=r"(?i)message text is empty"):
        await bot.send_message(42, "空")


async def test_a_stall_past_the_calls_read_timeout_is_timed_out(
    tg: FakeTelegram, alice: User, bot: Bot
) -> None:
    tg.delay_next("sendMessage", 1.0)
    with pytest.raises(TimedOut):
        await bot.send_message(42, "慢", read_timeout=0.2)
    await bot.send_message(42, "快")  # the default (5 s) read timeout applies to the next call


async def test_a_dropped_connection_is_a_network_error(tg: FakeTelegram, alice: User, bot: Bot) -> None:
    tg.drop_next("sendMessage")
    with pytest.raises(NetworkError, match=r"httpx\.\w+"):
        await bot.send_message(42, "丢了")
    await bot.send_message(42, "又好了")
    assert [c.status for c in tg.calls_of("sendMessage", include_failed=True)] == [0, 200]


async def test_an_unopened_request_refuses_to_send() -> None:
    request = JsonRequest()
    await request.shutdown()
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request("http://127.0.0.1:9/bot/sendMessage", "POST", RequestData())


def test_the_json_body_is_a_third_of_the_form_body_for_chinese_text() -> None:
    """Why the class exists: form encoding escapes each UTF-8 byte of a CJK character as %XX."""
    data = RequestData(
        [RequestParameter.from_input("chat_id", 42), RequestParameter.from_input("text", "显存" * 500)]
    )
    form = urlencode(data.json_parameters).encode()
    assert json_body(data).decode() == '{"chat_id":42,"text":"' + "显存" * 500 + '"}'
    assert len(json_body(data)) * 2.9 < len(form)


def test_a_keyboard_is_built_once_per_distinct_set_of_buttons() -> None:
    buttons = [Button(label=f"{n}B", payload=f"size:{n}") for n in (7, 13, 34, 70)]
    first = render.keyboard(buttons)
    again = render.keyboard([b.model_copy() for b in buttons])
    assert isinstance(first, InlineKeyboardMarkup)
    assert again is first
    assert [[b.text for b in row] for row in first.inline_keyboard] == [["7B", "13B", "34B"], ["70B"]]
    assert render.keyboard(buttons[:2]) is not first
    assert render.keyboard([]) is None
