"""A message is read once: one normalisation per message, whoever answers it (issue 25)."""

from __future__ import annotations

import cProfile
import pstats

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.text import normalize as normalize_module


def normalize_calls(dialog: Dialog, state: ConversationState, text: str) -> int:
    profile = cProfile.Profile()
    profile.runcall(dialog.handle, state, text)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    code = normalize_module.normalize.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name)
    return int(stats[key][1]) if key in stats else 0


@pytest.mark.parametrize(
    "text",
    [
        "部署 Qwen2.5-14B，并发 16，7×24，预算每月 3000",  # a requirement
        "一张 4090 能跑 14B 吗",  # a verdict
        "NVLink 对推理有用吗",  # a concept
        "一张 T4 包月多少",  # a price
        "L40S 和 A6000 哪个好",  # a comparison
    ],
)
def test_each_message_is_normalised_exactly_once(dialog: Dialog, text: str) -> None:
    assert normalize_calls(dialog, ConversationState(), text) == 1


def test_an_answer_after_a_question_is_normalised_once_too(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "我想部署一个 13B 的聊天机器人")
    assert normalize_calls(dialog, state, "并发 8") == 1
