"""A card sold in China carries its caveat on every path that names it, a verdict too (issue 47).

A plan on the modified RTX 4090 48 GB already warned of its warranty and driver, an
Ascend plan of the CANN stack, an H20 plan of the slow prefill (``rules.china_cards``);
"能跑吗" on the same card said none of it. The verdict now carries the same findings
(``HardwareVerdict.caveats``) and says them in the user's language, naming the card the
way every other reply does ("RTX 4090 48GB（魔改）", never "(rebuilt)").
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.verdict import verdict
from gpu_advisor.engine.workload import Workload


def _said(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.as_text()


@pytest.mark.parametrize(
    ("fields", "caveat"),
    [
        ({"task": "infer", "model": "qwen2.5-32b", "gpu": "rtx4090-48g"}, "modified_card_caveat"),
        ({"task": "train", "params_b": 7, "gpu": "rtx4090-48g"}, "modified_card_caveat"),
        ({"task": "infer", "model": "qwen2.5-72b", "gpu": "ascend-910b", "gpu_count": 8}, "ascend_stack"),
        ({"task": "infer", "model": "qwen2.5-72b", "gpu": "h20", "prompt_tokens": 20000}, "h20_prefill"),
    ],
)
def test_a_verdict_on_a_china_card_carries_the_plans_caveat(
    kb: Knowledge, fields: dict[str, object], caveat: str
) -> None:
    assert caveat in {f.id for f in verdict(Workload(**fields), kb).caveats}


def test_the_h20_prefill_caveat_is_computed_for_the_prompt_asked(kb: Knowledge) -> None:
    v = verdict(Workload(task="infer", model="qwen2.5-72b", gpu="h20", prompt_tokens=30000), kb)
    assert next(f for f in v.caveats if f.id == "h20_prefill").values["prompt_tokens"] == 30000


def test_a_verdict_on_an_ordinary_card_carries_no_caveat(kb: Knowledge) -> None:
    assert verdict(Workload(task="infer", model="qwen2.5-32b", gpu="a100-80g-sxm"), kb).caveats == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("4090 48G 能跑 Qwen2.5-32B 吗", "没有原厂保修"),
        ("can a 4090 48G run Qwen2.5-32B?", "No manufacturer warranty"),
        ("8 张 910B 能跑 Qwen2.5-72B 吗", "CANN"),
        ("can 8 Ascend 910B serve Qwen2.5-72B?", "CANN"),
    ],
)
def test_the_verdict_reply_says_the_caveat_in_the_users_language(
    dialog: Dialog, text: str, said: str
) -> None:
    assert said in _said(dialog, text)


def test_the_verdict_names_the_modified_card_as_every_reply_does(dialog: Dialog) -> None:
    text = _said(dialog, "4090 48G 能跑 Qwen2.5-32B 吗")
    assert "RTX 4090 48GB（魔改）" in text and "rebuilt" not in text


def test_an_ascend_verdict_has_no_row_in_a_format_its_stack_cannot_run(kb: Knowledge) -> None:
    v = verdict(Workload(task="infer", model="qwen2.5-72b", gpu="ascend-910b", gpu_count=8), kb)
    assert [r.method for r in v.rows] == ["bf16", "int8"]
