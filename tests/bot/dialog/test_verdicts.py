"""Yes/no questions about named hardware get a verdict first (issue 17), not a rental plan.

Golden figures: a full fine-tune with mixed-precision AdamW keeps 16 bytes per parameter
(ZeRO, Rajbhandari et al. 2020, §3.1), 7B × 16 B ≈ 104 GiB before activations, so a
24 GB card cannot hold it; LoRA keeps the frozen bf16 weights (2 B/param ≈ 13 GiB) and
QLoRA 4-bit NF4 weights (≈ 3.3 GiB), which fit. 8 × H100 SXM at 989 dense bf16 TFLOPS
and ~40 % MFU train a 7B model at 8 · 989e12 · 0.4 · 86 400 / (6 · 6.7e9) ≈ 7e9
tokens/day at most, three orders of magnitude short of 10T.
"""

from __future__ import annotations

import re

import pytest

from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.verdict import verdict
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.question_form import question_form
from gpu_advisor.reading.requirements import Extraction
from gpu_advisor.text.normalize import normalize
from tests.dialogs import simplified

CJK = re.compile(r"[\u4e00-\u9fff]")


def _ask(dialog: Dialog, text: str) -> tuple[str, list[str], object]:
    reply, _ = dialog.handle(ConversationState(), text)
    lines = reply.as_text().splitlines()
    return lines[0], lines, reply


TRAIN_7B_ON_ONE_CARD = [
    ("一张 4090D 能训练 7B 吗", "zh"),
    ("一張 4090D 能訓練 7B 嗎", "zh"),
    ("单卡 4090 可以微调 7B 模型吗", "zh"),
    ("一张4090够不够微调7B", "zh"),
    ("Can one 4090D train a 7B model?", "en"),
    ("can a single RTX 4090 fine-tune a 7B model", "en"),
    ("Is one 4090 enough to fine-tune 7B?", "en"),
]


@pytest.mark.parametrize(("text", "lang"), TRAIN_7B_ON_ONE_CARD)
def test_a_one_card_training_question_leads_with_the_verdict_per_method(
    dialog: Dialog, text: str, lang: str
) -> None:
    first, _, _ = _ask(dialog, text)
    if lang == "zh":
        first = simplified(first)
        assert "全参微调 不能" in first and "LoRA 能" in first and "QLoRA 能" in first
    else:
        assert "full fine-tune: no" in first and "LoRA: yes" in first and "QLoRA: yes" in first


@pytest.mark.parametrize(("text", "lang"), TRAIN_7B_ON_ONE_CARD)
def test_the_verdict_carries_the_numbers_in_the_users_language(dialog: Dialog, text: str, lang: str) -> None:
    _, lines, reply = _ask(dialog, text)
    assert re.search(r"\d+(\.\d)? GiB", lines[1])
    assert bool(CJK.search(lines[1])) == (lang == "zh")
    assert reply.lang == lang  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "_lang"), TRAIN_7B_ON_ONE_CARD)
def test_a_verdict_is_not_a_rental_plan(dialog: Dialog, text: str, _lang: str) -> None:
    _, _, reply = _ask(dialog, text)
    assert reply.plan is None  # type: ignore[attr-defined]
    assert [b.payload for b in reply.buttons] == ["/plan"]  # type: ignore[attr-defined]


def test_the_fastest_method_that_fits_is_named(dialog: Dialog) -> None:
    _, lines, _ = _ask(dialog, "一张 4090D 能训练 7B 吗")
    assert any(line.startswith("最快的是 LoRA") for line in lines)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("8 卡 H100 一天能训 10T token 吗", "不能："),
        ("8 張 H100 一天能訓 10T token 嗎", "不能："),
        ("Can 8 H100s train 10T tokens in a day?", "no:"),
        ("8 卡 H100 一天能训 1B token 吗", "能："),
    ],
)
def test_a_tokens_per_day_question_answers_with_tokens_a_day(dialog: Dialog, text: str, expect: str) -> None:
    first, _, reply = _ask(dialog, text)
    assert first.startswith(expect) and "MFU" in first
    assert reply.plan is None  # type: ignore[attr-defined]


def test_a_serving_question_answers_per_weight_format(dialog: Dialog) -> None:
    first, _, _ = _ask(dialog, "can one A100 80GB serve llama 3 70b?")
    # 70B in bf16 is ~140 GB of weights; AWQ 4-bit ~40 GB fits an 80 GB card.
    assert "BF16: no" in first and "AWQ: yes" in first


def test_after_a_verdict_plan_sizes_a_rental_for_the_same_request(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "一张 4090D 能训练 7B 吗")
    reply, _ = dialog.handle(state, "/plan")
    assert reply.plan is not None and reply.plan.task == "train"


@pytest.mark.parametrize("text", ["我想微调一个7B模型", "serve llama 3 70b for 50 users", "一张 4090D"])
def test_a_requirement_without_a_question_form_is_not_a_verdict(dialog: Dialog, text: str) -> None:
    reply, _ = dialog.handle(ConversationState(), text)
    assert "/plan" not in [b.payload for b in reply.buttons] or reply.plan is not None


@pytest.mark.parametrize("text", ["能训练 7B 吗", "一张 4090 能跑吗", "可以吗"])
def test_a_question_without_both_a_card_and_a_model_goes_to_the_ordinary_flow(
    dialog: Dialog, text: str
) -> None:
    reply, _ = dialog.handle(ConversationState(), text)
    assert not reply.as_text().startswith(("1 张", "1×"))


def is_yes_no(text: str) -> bool:
    return question_form(normalize(text), Extraction(lang="zh")).yes_no


def test_question_forms_are_heard_in_both_languages() -> None:
    assert is_yes_no("一张 A100 够不够") and is_yes_no("能跑吗") and is_yes_no("will it fit on one card?")
    assert not is_yes_no("我要训练 7B") and not is_yes_no("train a 7B model on 8 cards")


def test_full_finetune_of_7b_does_not_fit_a_24gb_card_but_lora_and_qlora_do(kb: Knowledge) -> None:
    v = verdict(Workload(task="train", params_b=7, gpu="rtx4090d", gpu_count=1), kb)
    rows = {r.method: r for r in v.rows}
    assert not rows["full"].fits and rows["full"].total_gib > 7 * 16 * 1e9 / 2**30  # ≥ 104 GiB
    assert rows["lora"].fits and rows["qlora"].fits
    assert rows["qlora"].total_gib < rows["lora"].total_gib


def test_eight_h100_cannot_train_ten_trillion_tokens_in_a_day(kb: Knowledge) -> None:
    v = verdict(
        Workload(
            task="train", model="llama-2-7b", gpu="h100", gpu_count=8, train_tokens=1e13, duration_hours=24
        ),
        kb,
    )
    assert v.on_time is False
    assert v.tokens_in_time is not None and 1e9 < v.tokens_in_time < 1e10  # ≈ 7e9 upper bound above


def test_more_cards_train_proportionally_more_tokens_a_day(kb: Knowledge) -> None:
    one, eight = (
        verdict(Workload(task="train", model="llama-2-7b", gpu="h100", gpu_count=n), kb).rows[0]
        for n in (1, 8)
    )
    assert eight.tokens_per_day == pytest.approx(8 * (one.tokens_per_day or 0), rel=0.01)


def test_a_verdict_needs_a_card(kb: Knowledge) -> None:
    with pytest.raises(ValueError, match="gpu"):
        verdict(Workload(task="train", params_b=7), kb)


def test_a_serving_no_offers_the_changes_that_keep_the_card_before_another_card(dialog: Dialog) -> None:
    """Issue 45: "Llama 2 7B INT4 on a T4, 4 users, 4k context" is 0.8 GiB short; an FP8 KV
    cache, fewer full-length streams or a shorter window keep the one T4, and come first."""
    _, lines, _ = _ask(dialog, "Can one T4 serve Llama 2 7B INT4 to 4 users with 4k context?")
    fp8 = next(i for i, line in enumerate(lines) if "--kv-cache-dtype fp8" in line)
    window = next(i for i, line in enumerate(lines) if "--max-model-len 3584" in line)
    second_card = next(i for i, line in enumerate(lines) if line.startswith("With 2 ×"))
    assert fp8 < window < second_card
