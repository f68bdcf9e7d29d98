"""Issue 17, "read what people actually say": loose amounts, edits, money, schedules, tasks.

Each table is one class of phrasing (Simplified, Traditional, English, typos, emoji);
every row gives the message and exactly the slots it must yield, so a wrong extra slot
fails as surely as a missing one. Golden values follow the documented rules in
``reading.requirements.vague`` (ranges at their upper end, 几 = 5, 几十 = 50, DAU × 10 %
peak share × 10 min / 60).
"""

from __future__ import annotations

from typing import Any

import pytest

from reading.normalize import language_of
from reading.requirements import Extraction, Vocabulary, extract
from reading.requirements.result import Edit

GPUS = {
    "rtx3090": ["3090", "rtx 3090"],
    "rtx4090": ["4090", "rtx 4090"],
    "rtx4090d": ["4090d", "4090 d", "rtx 4090d"],
    "a100-80g-sxm": ["a100", "a100 80g"],
    "h100-sxm": ["h100"],
    "ascend-910b": ["910b", "昇腾910b", "ascend 910b"],
}
MODELS = {"qwen2.5-7b": ["qwen2.5 7b", "qwen 7b"], "llama-3.1-70b": ["llama 3.1 70b"]}


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary(MODELS, GPUS)


def read(vocab: Vocabulary, text: str, expecting: str | None = None) -> Extraction:
    return extract(text, vocab, expecting=expecting)


LOAD_CASES: list[tuple[str, dict[str, Any]]] = [
    ("大概三四十个人用", {"concurrency": 40}),
    ("大概三四十個人用", {"concurrency": 40}),
    ("三四十人同时用", {"concurrency": 40}),
    ("30-40个用户", {"concurrency": 40}),
    ("30到40人在用", {"concurrency": 40}),
    ("就我们组几个人", {"concurrency": 5}),
    ("几十人", {"concurrency": 50}),
    ("十几个同事用", {"concurrency": 15}),
    ("上百人", {"concurrency": 100}),
    ("大概一两百个用户", {"concurrency": 200}),
    ("a couple hundred users", {"concurrency": 200}),
    ("a few hundred users", {"concurrency": 300}),
    ("ten-ish people", {"concurrency": 10}),
    ("10ish users", {"concurrency": 10}),
    ("several users", {"concurrency": 5}),
    ("dozens of users 😅", {"concurrency": 50}),
    ("about 40 people use it", {"concurrency": 40}),
    ("20 people using it", {"concurrency": 20}),
    ("高峰每分钟 300 次调用", {"qps": 5.0}),
    ("峰值每分钟600个请求", {"qps": 10.0}),
    ("300 requests per minute at peak", {"qps": 5.0}),
]


@pytest.mark.parametrize(("text", "slots"), LOAD_CASES)
def test_loose_load_reads_as_concurrency_or_qps(vocab: Vocabulary, text: str, slots: dict[str, Any]) -> None:
    assert read(vocab, text).slots == slots


DAILY_CASES: list[tuple[str, int]] = [
    ("日活五千左右", 84),  # 5000 × 0.1 × 10 / 60 = 83.3 → 84
    ("日活 5000", 84),
    ("DAU 大概 1万", 167),
    ("5k DAU", 84),
    ("about 5000 daily active users", 84),
    ("日活用户有两千", 34),
]


@pytest.mark.parametrize(("text", "concurrency"), DAILY_CASES)
def test_daily_actives_become_peak_concurrency_and_say_how(
    vocab: Vocabulary, text: str, concurrency: int
) -> None:
    result = read(vocab, text)
    assert result.slots == {"concurrency": concurrency}
    assert [i.id for i in result.issues] == ["concurrency_from_daily_users"]


def test_a_range_of_people_is_read_at_its_upper_end_and_said_back(vocab: Vocabulary) -> None:
    issue = read(vocab, "大概三四十个人用").issues[0]
    assert (issue.id, issue.field, issue.values["value"]) == ("approximated", "concurrency", 40)


DURATION_CASES: list[tuple[str, dict[str, Any]]] = [
    ("两三天", {"duration_hours": 72.0}),
    ("跑两三天", {"duration_hours": 72.0}),
    ("大概三五天", {"duration_hours": 120.0}),
    ("一两周", {"duration_hours": 336.0}),
    ("a couple of days", {"duration_hours": 48.0}),
    ("a few days", {"duration_hours": 72.0}),
    ("2-3 days", {"duration_hours": 72.0}),
    ("周末跑一下", {"duration_hours": 48.0}),
]


@pytest.mark.parametrize(("text", "slots"), DURATION_CASES)
def test_loose_durations_price_the_upper_end(vocab: Vocabulary, text: str, slots: dict[str, Any]) -> None:
    assert read(vocab, text).slots == slots


ANSWER_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("train_tokens", "1亿", {"train_tokens": 1e8}),
    ("train_tokens", "5000万", {"train_tokens": 5e7}),
    ("train_tokens", "2b", {"train_tokens": 2e9}),
    ("concurrency", "5", {"concurrency": 5}),
    ("concurrency", "几十人", {"concurrency": 50}),
    ("concurrency", "就我们组几个人", {"concurrency": 5}),
    ("concurrency", "大概20个", {"concurrency": 20}),
    ("method", "full", {"method": "full", "task": "train"}),
    ("method", "全参", {"method": "full", "task": "train"}),
    ("gpu_count", "8", {"gpu_count": 8}),
    ("duration_hours", "48", {"duration_hours": 48.0}),
]


@pytest.mark.parametrize(("expecting", "text", "slots"), ANSWER_CASES)
def test_a_bare_answer_fills_the_slot_just_asked(
    vocab: Vocabulary, expecting: str, text: str, slots: dict[str, Any]
) -> None:
    assert read(vocab, text, expecting).slots == slots


def test_a_bare_number_without_a_question_is_not_a_slot(vocab: Vocabulary) -> None:
    assert read(vocab, "5").slots == {}


LANGUAGE_CASES: list[tuple[str, str, str]] = [
    ("7x24", "zh", "zh"),
    ("13B", "zh", "zh"),
    ("LoRA", "zh", "zh"),
    ("20 QPS", "zh", "zh"),
    ("Qwen 7B LoRA fp16", "zh", "zh"),
    ("make it cheaper please", "zh", "en"),
    ("I want to serve Llama for my team", "zh", "en"),
    ("我们想部署一个模型", "en", "zh"),
    ("ok", "en", "en"),
    ("8 x H100", "en", "en"),
]


@pytest.mark.parametrize(("text", "current", "expected"), LANGUAGE_CASES)
def test_language_sticks_unless_the_sentence_is_clearly_the_other(
    text: str, current: str, expected: str
) -> None:
    assert language_of(text, current) == expected  # type: ignore[arg-type]


def test_edit_structure_names_slot_operation_and_amount() -> None:
    edit = Edit(slot="budget", op="scale", factor=0.5)
    assert edit.model_dump() == {"slot": "budget", "op": "scale", "factor": 0.5, "value": None}
