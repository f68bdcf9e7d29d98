"""Requests with prompts of tens of thousands of tokens are answered for that prompt (issue 47).

"提示 30000 token，回答 2000 token": the answer's length is read as the output (not as the
context window), a prompt longer than the model's window is refused for the prompt (no
"keep answers under 1 token"), and "how long do users wait?" is the answer time of the
service: the output tokens ÷ the per-stream speed, plus the first token, both from the
plan (Qwen2.5 7B: 30,000-token prompts on an RTX 3090, ~16 s to the first token at
~33 tokens/s per stream, so a 2,000-token answer is complete after ~77 s).
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.requirements import extract
from tests.dialogs import talk

ZH = "部署 Qwen2.5-7B，提示 30000 token，回答 2000 token，20 个用户同时用，常驻"
EN = "deploy Qwen2.5-7B, prompts of 30000 tokens, answers of 2000 tokens, 20 concurrent users, 24x7"


@pytest.mark.parametrize("text", [ZH, EN])
def test_an_answers_length_is_the_output_not_the_context(dialog: Dialog, text: str) -> None:
    slots = extract(text, dialog.vocab).slots
    assert (slots.get("prompt_tokens"), slots.get("output_tokens")) == (30000, 2000)
    assert "context_len" not in slots


def test_the_verb_answer_is_not_a_length(dialog: Dialog) -> None:
    assert "output_tokens" not in extract("部署 7B，每个回答要在 2 秒内出来", dialog.vocab).slots


def test_a_prompt_longer_than_the_window_is_refused_for_the_prompt(kb: Knowledge) -> None:
    w = Workload(task="infer", model="llama-3-8b", prompt_tokens=30000, output_tokens=2000, concurrency=20)
    with pytest.raises(EngineError) as caught:
        recommend(w, kb)
    assert caught.value.code == "prompt_exceeds_max_context"
    assert caught.value.values["max_prompt"] == 8192 - 2000


def test_the_first_token_is_computed_for_the_prompt_asked(kb: Knowledge) -> None:
    short, long = (
        recommend(Workload(task="infer", model="qwen2.5-7b", prompt_tokens=p, concurrency=1), kb)
        for p in (512, 30000)
    )
    assert short.recommendation is not None and long.recommendation is not None
    assert (long.recommendation.ttft_ms or 0) > 10 * (short.recommendation.ttft_ms or 1)


@pytest.mark.parametrize(
    ("first", "asked", "said"),
    [(ZH, "用户要等多久？", "整条回答约"), (EN, "How long do users wait?", "until the answer is complete")],
)
def test_how_long_users_wait_is_the_answer_time(dialog: Dialog, first: str, asked: str, said: str) -> None:
    card, state = talk(dialog, first)
    pick = card.plan.recommendation if card.plan else None
    ttft_ms = pick.ttft_ms_p50 or pick.ttft_ms if pick else None
    assert pick is not None and pick.decode_tokens_per_s and ttft_ms
    reply, _ = talk(dialog, asked, state=state)
    total = round(2000 / pick.decode_tokens_per_s + ttft_ms / 1000)
    assert said in reply.text and f"{total}" in reply.text.replace(",", "")


def test_a_training_plan_answers_how_long_with_its_run_time(dialog: Dialog) -> None:
    _, state = talk(dialog, "微调 Llama 3 8B，LoRA，1亿 token")
    reply, _ = talk(dialog, "how long do users wait?", state=state)
    assert "hours" in reply.text or "小时" in reply.text
