"""Both languages carry the same keys, and every template renders."""

from __future__ import annotations

import re

import pytest

from gpu_advisor import locales

FIELD = re.compile(r"{(\w+)(?::[^}]*)?}")


def test_zh_and_en_have_the_same_keys() -> None:
    zh, en = set(locales.messages("zh")), set(locales.messages("en"))
    assert zh - en == set(), "keys only in zh-CN"
    assert en - zh == set(), "keys only in en"


# Chinese writes "10 万亿" in words where English formats the claimed figure.
PLACEHOLDER_EXCEPTIONS = {"finding.myth_h100_10t_tokens_per_day"}


def test_both_languages_use_the_same_placeholders() -> None:
    zh, en = locales.messages("zh"), locales.messages("en")
    for key, template in zh.items():
        if key in PLACEHOLDER_EXCEPTIONS:
            continue
        assert set(FIELD.findall(template)) == set(FIELD.findall(en[key])), key


@pytest.mark.parametrize("lang", locales.LANGS)
def test_every_template_renders_with_numbers_and_with_nothing(lang: str) -> None:
    for key, template in locales.messages(lang).items():
        names = FIELD.findall(template)
        out = locales.t(lang, key, **dict.fromkeys(names, 12.5))
        assert "{" not in out, key
        assert locales.t(lang, key)  # missing values render as "?", never raise


def test_money_and_big_numbers_follow_the_locale() -> None:
    assert locales.money("zh", 2800, "CNY") == "¥2,800"
    assert locales.big("zh", 2e8) == "2亿" and locales.big("en", 2e8) == "200M"
    assert locales.big("zh", 1e13) == "10万亿"
