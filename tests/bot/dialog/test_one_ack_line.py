"""A one-shot answer confirms the request once (issue 47: "收到：" printed twice).

``Dialog.quick`` (inline queries, one-shot asks) runs the message, then ``/plan``: the first
turn's confirmation line said what that message added, the answer's says the whole request
with what it assumed. Only the answer's is kept; the first turn's other notes (a cut message)
still lead the card.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog


@pytest.mark.parametrize(
    ("text", "lang", "ack"),
    [("部署 13B 聊天机器人", "zh", "收到："), ("deploy llama 3 8b", "en", "Got it:")],
)
def test_a_one_shot_answer_has_one_confirmation_line(dialog: Dialog, text: str, lang: str, ack: str) -> None:
    reply = dialog.quick(text, lang)
    acks = [line for line in reply.lead if line.startswith(ack)]
    assert reply.kind == "answer" and len(acks) == 1
    assert acks[0].endswith("假设 4 路并发" if lang == "zh" else "assuming 4 concurrent users")


def test_a_one_shot_answer_keeps_the_first_turns_other_notes(dialog: Dialog) -> None:
    reply = dialog.quick("部署 13B 聊天机器人" + "，" * 5000, "zh")
    assert reply.lead[0].startswith("消息太长") and sum(line.startswith("收到：") for line in reply.lead) == 1
