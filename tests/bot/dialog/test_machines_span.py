"""Cards priced as several machines say they are not one server (issue 47).

The shipped catalog sells A100 40GB in 1-, 2- and 8-card machines (2-card: NVLink, no network
listed, ¥5,600/月; 8-card: NVSwitch, 200 Gbit/s, ¥24,510/月 — knowledge/catalog.yaml, seed 000)
and RTX 3090 only in 1-card machines. "16 张 A100 多少钱" is cheapest as eight 2-card machines
(¥44,800), which cannot run one 16-card job: the reply says so, with the network such a job
needs (100 Gbit/s InfiniBand/RoCE, the sheet reader's multi-node bar), and prices the
catalog's biggest machines for it (two 8-card machines, ¥49,020). One machine is just priced.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from tests.dialogs import talk


@pytest.mark.parametrize(
    ("asked", "spans"),
    [
        ("16 张 A100 多少钱", "这 16 张 A100 40GB SXM4 是 8 台各自独立的机器，每台 2 张"),
        ("how much are 16 A100s", "These 16× A100 40GB SXM4 are 8 separate 2-card machines"),
    ],
)
def test_cards_on_several_machines_are_said_to_be_separate_machines(
    dialog: Dialog, asked: str, spans: str
) -> None:
    reply, _ = talk(dialog, asked)
    assert spans in reply.text and "InfiniBand/RoCE" in reply.text and "100 Gbit/s" in reply.text


def test_the_catalogs_biggest_machines_are_priced_for_one_job(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "16 张 A100 多少钱")
    fewest = next(line for line in reply.text.splitlines() if line.startswith("要一个任务用上 16 张卡"))
    assert "8 张 A100 40GB SXM4 × 2 台" in fewest and fewest.count("¥49,020") == 1
    assert "200 Gbit/s" in fewest


def test_a_card_sold_only_one_to_a_machine_says_so(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "3 张 3090 多少钱")
    assert "3 台各自独立的机器" in reply.text and "价目表里 RTX 3090 最大的机器就是 1 卡" in reply.text


def test_fewer_cards_than_the_biggest_machine_are_priced_on_one_machine_too(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "4 张 A100 一周多少钱")
    assert "一台机器装下这 4 张卡的，价目表里最小的是：8 张 A100 40GB SXM4" in reply.text


def test_one_machine_is_priced_without_a_word_about_machines(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "2 张 A100 多少钱")
    assert "独立的机器" not in reply.text and "¥5,600" in reply.text
