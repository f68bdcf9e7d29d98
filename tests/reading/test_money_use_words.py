"""How much the machine will be used, read from what people write next to a price (issue 44)."""

from __future__ import annotations

import pytest

from gpu_advisor.reading.use_words import read_use
from gpu_advisor.text.normalize import normalize


def use(text: str):  # type: ignore[no-untyped-def]
    return read_use(normalize(text))


def test_a_job_of_300_hours_is_a_total_not_a_schedule() -> None:
    u = use("我要训练大约 300 小时，哪种划算")
    assert (u.job_hours, u.hours_per_day) == (300, None)


@pytest.mark.parametrize(
    "text", ["每天只用 4 小时", "每天只用4小時", "about 4 hours a day", "一天用 4 个小时"]
)
def test_hours_a_day_are_a_schedule_not_a_job(text: str) -> None:
    u = use(text)
    assert (u.hours_per_day, u.job_hours) == (4, None)


def test_three_or_four_hours_a_day_is_priced_at_four() -> None:
    assert use("一天用三四个小时哪个划算").hours_per_day == 4


def test_a_few_hours_a_day_is_a_schedule_without_a_number() -> None:
    u = use("I only need it a few hours a day")
    assert u.few_hours_a_day and u.hours_per_day is None and u.job_hours is None


def test_hours_a_month_are_hours_a_month() -> None:
    assert use("我一个月大概用300小时").hours_per_month == 300


@pytest.mark.parametrize(
    ("text", "months"), [("用两年", 24), ("we'd use it for 3 years", 36), ("用 18 个月", 18)]
)
def test_the_period_of_use_is_read_in_months(text: str, months: int) -> None:
    assert use(text).months == months


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("每天大概2000万token", 2e7), ("we push about 5M tokens a day", 5e6), ("月用量三千萬token", 1e6)],
)
def test_a_token_volume_is_read_per_day(text: str, tokens: float) -> None:
    assert use(text).tokens_per_day == pytest.approx(tokens)


def test_input_and_output_volumes_are_read_apart_from_the_prices() -> None:
    u = use("API每百万token输入2块输出8块，我们每天输入1500万、输出500万")
    assert (u.input_per_day, u.output_per_day) == (1.5e7, 5e6)
    assert (u.api_input_per_million, u.api_output_per_million, u.api_currency) == (2, 8, "CNY")


def test_dollar_api_prices_per_million_in_english() -> None:
    u = use("at $0.30 per million input and $1.20 output, when is renting cheaper")
    assert (u.api_input_per_million, u.api_output_per_million, u.api_currency) == (0.3, 1.2, "USD")


def test_hours_of_audio_a_day_are_minutes_of_audio_not_the_machines_hours() -> None:
    u = use("每天转写3小时录音")
    assert (u.audio_minutes_per_day, u.hours_per_day, u.job_hours) == (180, None, None)


def test_a_token_volume_is_priced_against_an_api_only_when_one_is_named() -> None:
    from gpu_advisor.reading.use_words import mentions_api

    assert mentions_api(normalize("每天2000万token，调DeepSeek API还是租卡"))
    assert not mentions_api(normalize("8 卡 H100 一天能训 1B token 吗"))  # a training question
