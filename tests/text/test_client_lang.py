"""One mapping of a client's language setting to ours (text.normalize.client_lang), used by
the chat apps and the web's Accept-Language alike; the caller states what nothing means."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import make_mocked_request

from gpu_advisor.bot.web.guard import browser_lang
from gpu_advisor.text.normalize import client_lang


@pytest.mark.parametrize(
    ("code", "lang"), [("zh-hans", "zh"), ("zh_TW", "zh"), ("en-GB", "en"), ("zh-CN,zh;q=0.9,en;q=0.8", "zh")]
)
def test_a_chinese_or_english_setting_is_read_the_same_everywhere(code: str, lang: str) -> None:
    assert client_lang(code) == lang
    assert client_lang(code, default="zh") == lang


@pytest.mark.parametrize("code", [None, "", "de", "fr-FR"])
def test_a_missing_or_other_language_takes_the_callers_default(code: str | None) -> None:
    assert client_lang(code) == "en"
    assert client_lang(code, default="zh") == "zh"


@pytest.mark.parametrize(
    ("header", "lang"), [(None, "zh"), ("en-US,en;q=0.9", "en"), ("zh-TW", "zh"), ("de-DE", "zh")]
)
def test_a_browser_is_answered_by_the_same_mapping_chinese_by_default(header: str | None, lang: str) -> None:
    headers = {} if header is None else {"Accept-Language": header}
    assert browser_lang(make_mocked_request("GET", "/api/chat", headers=headers)) == lang
