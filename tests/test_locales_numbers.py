"""Number formatting is total: any int, float or Decimal a user can type renders, in both languages."""

from __future__ import annotations

import os
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_advisor import locales
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.specs import Knowledge

EXAMPLES = int(os.environ.get("GPU_ADVISOR_FUZZ_EXAMPLES", "150"))
TWENTY_NINE_NINES = "9" * 29  # the issue-14 report: a 29-digit budget gave HTTP 500

NUMBERS = st.one_of(
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=True, allow_infinity=True),
)
FORMATTERS = (
    locales.number,
    lambda lang, v: locales.number(lang, v, "#,##0.0"),
    lambda lang, v: locales.money(lang, v, "USD"),
    locales.money,
    locales.big,
    locales.percent,
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(value=NUMBERS, lang=st.sampled_from(locales.LANGS))
def test_every_number_formatter_returns_text_for_any_number(value: int | float | Decimal, lang: str) -> None:
    for fmt in FORMATTERS:
        assert fmt(lang, value)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    value=NUMBERS,
    lang=st.sampled_from(locales.LANGS),
    spec=st.sampled_from(["n", "n0", "n1", "pct", "big", "money", ".1f", "e"]),
)
def test_templates_render_any_number_under_every_format_spec(
    value: int | float | Decimal, lang: str, spec: str
) -> None:
    fmt = locales._Formatter(lang, {"currency": "USD"})
    assert fmt.format_field(value, spec)


def test_a_29_digit_number_reads_as_a_power_of_ten() -> None:
    assert locales.number("en", int(TWENTY_NINE_NINES)) == "1×10²⁹"
    assert locales.money("zh", 1e29, "CNY") == "¥1×10²⁹"


def test_infinity_and_nan_read_as_symbols() -> None:
    assert locales.number("zh", float("inf")) == "∞"
    assert locales.money("en", float("-inf"), "USD") == "-US$∞"
    assert locales.number("en", float("nan")) == "NaN"


def test_numbers_below_the_huge_threshold_keep_their_grouping() -> None:
    assert locales.number("en", 999_999_999_999_999) == "999,999,999,999,999"
    assert locales.big("en", 3.5e4) == "35K" and locales.big("zh", 3.5e4) == "3.5万"


def test_numpy_scalars_format_like_python_numbers() -> None:
    # matplotlib hands chart tick formatters numpy floats (bot/charts/style.py).
    assert locales.money("zh", np.float64(2800.0)) == "¥2,800"
    assert locales.number("en", np.int64(4096)) == "4,096"  # type: ignore[arg-type]


def test_us_dollars_read_us_dollar_sign_in_both_languages() -> None:
    assert locales.money("en", 540, "USD") == "US$540"
    assert locales.money("zh", 540, "USD") == "US$540"
    assert locales.money("en", 540, "CNY") == "CN¥540"


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("zh", f"预算 {TWENTY_NINE_NINES} 元，部署 7B 模型，并发 4，7×24"),
        ("en", f"budget {TWENTY_NINE_NINES} dollars a month, serve a 7B model, 4 users, 24x7"),
        ("zh", f"部署 7B 模型，并发 {TWENTY_NINE_NINES}"),
        ("en", f"train a 7B model on {TWENTY_NINE_NINES} tokens"),
    ],
)
def test_a_29_digit_number_in_a_chat_gets_a_polite_reply(kb: Knowledge, lang: str, message: str) -> None:
    reply, _ = Dialog(kb).handle(ConversationState(lang=lang), message)
    assert reply.text and "Traceback" not in reply.text
    assert reply.lang == lang
