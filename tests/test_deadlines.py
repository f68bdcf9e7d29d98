"""Deadlines bind (issue 17): "一周内训完", "within 48 hours", "by Friday" are constraints.

The reader turns the phrase into ``deadline_hours``; the recommender never offers a plan
that finishes later as the pick while one that finishes in time exists; when none does,
the fastest is the pick and ``deadline_missed`` says by how much it is late.
"""

from __future__ import annotations

from datetime import date

import pytest

from gpu_advisor.bot.dialog.vocab import vocabulary
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.requirements import Vocabulary, extract
from gpu_advisor.reading.requirements.deadline import days_until, read_deadline
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.normalize import normalize

THURSDAY = date(2026, 12, 3)


@pytest.fixture(scope="module")
def vocab(kb: Knowledge) -> Vocabulary:
    return vocabulary(kb)


@pytest.mark.parametrize(
    ("said", "hours"),
    [
        ("预训练一个1.3B模型，一周内训完", 168),
        ("3天内要训完", 72),
        ("三天以内", 72),
        ("兩週內訓完", 336),
        ("48小时内", 48),
        ("一个月内交付", 720),
        ("pretrain it within 48 hours", 48),
        ("within a week please", 168),
        ("in under 3 days", 72),
    ],
)
def test_deadline_phrases_read_as_deadline_hours(said: str, hours: float, vocab: Vocabulary) -> None:
    assert extract(said, vocab).slots.get("deadline_hours") == hours


def test_a_deadline_is_not_read_as_the_rental_duration(vocab: Vocabulary) -> None:
    assert "duration_hours" not in extract("一周内训完 7B", vocab).slots


def test_a_plain_duration_is_not_a_deadline(vocab: Vocabulary) -> None:
    slots = extract("train for 3 days", vocab).slots
    assert "deadline_hours" not in slots and slots["duration_hours"] == 72


@pytest.mark.parametrize("said", ["by friday", "before Friday", "周五前训完", "星期五之前"])
def test_by_a_weekday_counts_days_from_the_date_passed_in(said: str) -> None:
    scan = Scan(source=normalize(said), lang="en")
    read_deadline(scan, THURSDAY)  # 2026-12-03 is a Thursday: Friday is one day away
    assert scan.slots == {"deadline_hours": 24.0}


def test_a_weekday_without_a_date_is_left_unread() -> None:
    scan = Scan(source=normalize("by friday"), lang="en")
    read_deadline(scan)
    assert scan.slots == {}


def test_the_same_weekday_as_today_means_next_week() -> None:
    assert days_until(THURSDAY, 3) == 7


def test_a_plan_slower_than_the_deadline_is_not_the_pick(kb: Knowledge) -> None:
    # 1.3B on 26B tokens (Chinchilla's 20 tokens/parameter): the cheapest plan takes ~403 h
    # on one A100 40GB, past a week; with the deadline the pick finishes inside it.
    base = {"task": "train", "params_b": 1.3, "train_tokens": 26e9}
    free = recommend(Workload(**base), kb).recommendation
    bound = recommend(Workload(**base, deadline_hours=168), kb).recommendation
    assert free is not None and bound is not None
    assert (free.training_hours or 0) > 168
    assert (bound.training_hours or 0) <= 168


def test_no_alternative_slower_than_the_deadline_is_offered(kb: Knowledge) -> None:
    plan = recommend(Workload(task="train", params_b=1.3, train_tokens=26e9, deadline_hours=168), kb)
    offered = [a for a in plan.alternatives if a.kind in ("cheaper", "faster", "higher_precision")]
    assert all((a.training_hours or 0) <= 168 for a in offered)


def test_when_nothing_meets_the_deadline_the_fastest_is_picked_and_the_miss_is_said(kb: Knowledge) -> None:
    plan = recommend(Workload(task="train", params_b=70, train_tokens=1e12, deadline_hours=48), kb)
    missed = next(f for f in plan.pitfalls if f.id == "deadline_missed")
    pick = plan.recommendation
    assert pick is not None and missed.values["hours"] == pytest.approx(pick.training_hours, rel=0.01)
    slower = recommend(Workload(task="train", params_b=70, train_tokens=1e12), kb).recommendation
    assert slower is not None and (pick.training_hours or 0) <= (slower.training_hours or 0)


def test_a_deadline_prices_a_job_of_unknown_length_for_at_most_that_long(kb: Knowledge) -> None:
    plan = recommend(Workload(task="train", params_b=1.3, deadline_hours=48), kb)
    assert plan.recommendation is not None and plan.recommendation.job_cost is not None


BY_FRIDAY = {
    "zh": "LoRA 微调 7B，1亿 token，周五前训完",
    "en": "LoRA fine-tune 7B on 100M tokens, done by Friday",
}


@pytest.mark.parametrize("said", BY_FRIDAY.values())
def test_extract_reads_a_weekday_deadline_given_the_date(said: str, vocab: Vocabulary) -> None:
    assert extract(said, vocab, today=THURSDAY).slots["deadline_hours"] == 24.0


@pytest.mark.parametrize(("lang", "said"), BY_FRIDAY.items())
def test_by_friday_in_chat_becomes_the_conversations_deadline(kb: Knowledge, lang: str, said: str) -> None:
    from gpu_advisor.bot.dialog import ConversationState, Dialog

    state = ConversationState(lang=lang, lang_locked=True)
    _, state = Dialog(kb).handle(state, said, today=THURSDAY)
    assert state.slots["deadline_hours"] == 24.0
