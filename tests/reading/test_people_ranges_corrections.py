"""Numbers people say (issue 26): ranges as an answer, people without "concurrent", named edits.

Phrasings per class in Simplified, Traditional and English; each reading is said back.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.requirements import Vocabulary, extract


@pytest.fixture(scope="module")
def vocab(dialog: Dialog) -> Vocabulary:
    return dialog.vocab


@pytest.mark.parametrize(
    ("answer", "users"),
    [
        ("三五个人", 5),
        ("三五個人", 5),
        ("五六个", 6),
        ("四五十人", 50),
        ("二三十个", 30),
        ("十来个", 10),
        ("5、6个", 6),
        ("5-6 people", 6),
        ("两三个人", 3),
    ],
)
def test_a_range_answering_how_many_people_takes_its_upper_end(
    vocab: Vocabulary, answer: str, users: int
) -> None:
    result = extract(answer, vocab, expecting="concurrency")
    assert result.slots.get("concurrency") == users
    assert any(i.id == "approximated" for i in result.issues)


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("就我自己用", 1),
        ("只有我一个人", 1),
        ("只有我一個人用", 1),
        ("just me", 1),
        ("俩人用", 2),
        ("我们俩", 2),
        ("我們仨", 3),
        ("just me and a colleague", 2),
        ("for 50 users", 50),
        ("a team of 30", 30),
        ("我们是 20 人的团队", 20),
        ("团队有 12 个人", 12),
    ],
)
def test_people_without_the_word_concurrent_are_one_stream_each(
    vocab: Vocabulary, text: str, users: int
) -> None:
    result = extract(text, vocab)
    assert result.slots.get("concurrency") == users
    assert any(i.id == "users_as_streams" for i in result.issues)


@pytest.mark.parametrize("text", ["大概三四十个人用", "十三个人在用", "大概 三四十 个人用"])
def test_a_counted_group_is_never_mistaken_for_one_person(vocab: Vocabulary, text: str) -> None:
    assert extract(text, vocab).slots.get("concurrency", 0) > 3


def answered(dialog: Dialog, first: str) -> ConversationState:
    _, state = dialog.handle(ConversationState(), first)
    assert state.answered
    return state


@pytest.mark.parametrize(
    ("edit", "slot", "value"),
    [
        ("把并发调到30", "concurrency", 30),
        ("并发改成 20", "concurrency", 20),
        ("並發改成 20", "concurrency", 20),
        ("set the users to 25", "concurrency", 25),
        ("concurrency to 12", "concurrency", 12),
    ],
)
def test_a_correction_edits_the_slot_it_names_and_nothing_else(
    dialog: Dialog, edit: str, slot: str, value: int
) -> None:
    state = answered(dialog, "部署 13B，并发 10，7×24")
    _, new = dialog.handle(state, edit)
    assert new.slots[slot] == value and new.slots["params_b"] == 13


@pytest.mark.parametrize("edit", ["预算改成两万", "预算调到 20000", "change the budget to 20000"])
def test_a_budget_correction_keeps_currency_and_period(dialog: Dialog, edit: str) -> None:
    state = answered(dialog, "部署 13B，并发 10，7×24，预算每月一万元")
    _, new = dialog.handle(state, edit)
    assert new.slots["budget"] == {"amount": 20000, "currency": "CNY", "per": "month"}
    assert new.slots["params_b"] == 13


@pytest.mark.parametrize(
    ("text", "daily"),
    [("2000 users a day", 2000), ("5k users per day", 5000), ("每天 3000 个用户", 3000), ("日活 3000", 3000)],
)
def test_users_a_day_are_daily_actives_not_people_at_once(vocab: Vocabulary, text: str, daily: int) -> None:
    result = extract(text, vocab)
    said = [i for i in result.issues if i.id == "concurrency_from_daily_users"]
    assert [i.values["daily"] for i in said] == [daily]
    assert "duration_hours" not in result.slots  # "a day" is no rental period here


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("serve it w/ 20 users", 20),
        ("with 15 people", 15),
        ("qwen 72b, 40 users", 40),
        ("部署 72B，20 个用户", 20),
        ("部署 72B；8 位用户", 8),
    ],
)
def test_a_load_counted_in_users_is_read_without_a_note(vocab: Vocabulary, text: str, users: int) -> None:
    """The user counted the load; the echo line says how it was read, no longer note."""
    result = extract(text, vocab)
    assert result.slots.get("concurrency") == users
    assert not any(i.id == "users_as_streams" for i in result.issues)
