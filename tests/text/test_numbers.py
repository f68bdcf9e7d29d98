"""The one number reader (reading.numbers), as chat slots and the sheet reader use it."""

from __future__ import annotations

import re

import pytest

from gpu_advisor.reading.requirements import Vocabulary, extract
from gpu_advisor.text.numbers import NUMBER, chinese_value, parse_number
from gpu_advisor.text.sheet_lines import fold


@pytest.mark.parametrize(
    ("span", "value"),
    [
        ("七百亿", 7e10),
        ("十三", 13),
        ("一千零五", 1005),
        ("一万零五", 10005),
        ("一百零五万", 1_050_000),
        ("三千五百万", 35_000_000),
        ("二〇二四", 2024),
        ("壹佰贰拾", 120),
        ("两", 2),
        ("千亿", 1e11),
        ("1.5万", 15_000),
        ("5百万", 5_000_000),
        ("1万5千", 15_000),
        ("1万50", 10_050),
        ("1,024", 1024),
    ],
)
def test_numeral_spans_read_as_written(span: str, value: float) -> None:
    assert parse_number(span) == value


@pytest.mark.parametrize(
    ("span", "value"),
    [
        ("一万五", 15_000),
        ("三千五", 3_500),
        ("两百五", 250),
        ("一亿五", 1.5e8),
        ("1万5", 15_000),
        ("两万5", 25_000),
    ],
)
def test_spoken_shorthand_counts_the_last_digit_in_the_unit_below(span: str, value: float) -> None:
    assert parse_number(span) == value


@pytest.mark.parametrize("span", ["五六万", "三点五", "", "abc"])
def test_what_is_not_one_number_reads_as_none(span: str) -> None:
    assert parse_number(span) is None


def test_sheet_counts_use_the_same_reader() -> None:
    assert fold("十六卡 A100") == "16卡 a100"
    assert fold("二十张") == "20张"
    assert chinese_value("十六") == 16


def test_chat_reads_chinese_scale_numbers_in_slots() -> None:
    got = extract("微调一个七百亿参数的模型，预算每月一万五", Vocabulary({}, {}))
    assert got.slots["params_b"] == 70
    assert got.slots["budget"]["amount"] == 15_000


def test_the_number_reader_does_not_import_cn2an() -> None:
    import subprocess
    import sys

    code = "import sys, gpu_advisor.text.numbers, gpu_advisor.reading.requirements\n"
    code += "print('cn2an' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("text", "value"),
    [("¥200,000, power is ¥0.6/kWh", 200_000.0), ("$1,300, ok", 1_300.0), ("1,024，不多", 1_024.0)],
)
def test_a_grouped_number_followed_by_a_comma_keeps_its_groups(text: str, value: float) -> None:
    """A comma after the last group is punctuation, not another group ("¥200,000, power" is 200,000)."""
    first = re.search(NUMBER, text)
    assert first is not None and parse_number(first.group()) == value
