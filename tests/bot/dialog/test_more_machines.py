"""'ok, and what about 2 machines?' after a card is understood (issue 47).

It said "I did not use "2"". The count is the pick's machine that many times: a service
adds independent replicas behind a load balancer (streams and rent scale, the speed per
stream stays); a training job is re-planned on that many machines' GPUs, and machines the
catalog cannot join into one job (one-card T4 machines, no network listed) are refused
with the reason.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.followup import machines_asked
from tests.dialogs import talk


@pytest.mark.parametrize(
    ("said", "count"),
    [
        ("ok, and what about 2 machines?", 2),
        ("那 2 台机器呢？", 2),
        ("两台机器呢", 2),
        ("what about four servers", 4),
        ("那 2 台呢？", 2),
        ("两台呢", 2),
    ],
)
def test_a_machine_count_is_heard(said: str, count: int) -> None:
    assert machines_asked(said.lower()) == count


def test_eight_cards_are_not_machines() -> None:
    assert machines_asked("8 张 a100") is None


def test_a_bare_tai_before_a_card_counts_cards_not_machines() -> None:
    assert machines_asked("换成 2 台 4090") is None


def test_a_bare_two_tai_after_a_card_is_answered_with_two_machines(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 Qwen2.5-14B，并发 16，7×24")
    reply, _ = talk(dialog, "那 2 台呢？", state=state)
    assert "约 32 路并发" in reply.text and "没用上" not in reply.text


@pytest.mark.parametrize(
    ("first", "then", "said"),
    [
        (
            "deploy Qwen2.5-14B for 16 concurrent users, 24x7",
            "ok, and what about 2 machines?",
            "about 32 streams",
        ),
        ("部署 Qwen2.5-14B，并发 16，7×24", "那 2 台机器呢？", "约 32 路并发"),
    ],
)
def test_two_machines_of_a_service_double_its_streams_and_rent(
    dialog: Dialog, first: str, then: str, said: str
) -> None:
    card, state = talk(dialog, first)
    pick = card.plan.recommendation if card.plan else None
    assert pick is not None and pick.machines == 1 and (pick.replicas or 1) * (pick.batch or 1) == 16
    reply, _ = talk(dialog, then, state=state)
    assert said in reply.text and f"{2 * pick.monthly_cost.amount:,.0f}" in reply.text


def test_two_machines_of_a_training_job_are_re_planned_on_their_gpus(dialog: Dialog) -> None:
    _, state = talk(dialog, "微调 Llama 3 8B，全参，50亿 token")
    reply, _ = talk(dialog, "那 2 台机器呢？", state=state)
    assert "用 16 张 A100 40GB SXM4" in reply.text and "小时训完" in reply.text


def test_machines_the_catalog_cannot_join_are_refused_with_the_reason(dialog: Dialog) -> None:
    _, state = talk(dialog, "QLoRA 微调 Llama 3 8B，1亿 token")
    reply, _ = talk(dialog, "两台机器呢", state=state)
    assert "不能合起来跑一个任务" in reply.text and "一台机器最多 1 张" in reply.text
