"""Every question gets its own answer first (issue 27): verdicts, comparisons, speeds, carry-over."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from tests.dialogs import simplified


def ask(dialog: Dialog, text: str, state: ConversationState | None = None) -> tuple[str, ConversationState]:
    reply, new = dialog.handle(state or ConversationState(), text)
    return reply.as_text(), new


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("16G 显存的卡能跑 7B 吗", "T4"),
        ("48G 的卡 跑 32B 行吗", "A6000"),
        ("两张 24G 的卡 能不能跑 32B", "L4"),
        ("can an 80GB GPU serve Llama 3 70B?", "80GB"),
    ],
)
def test_a_memory_class_gets_a_verdict_on_a_card_of_that_size(dialog: Dialog, text: str, card: str) -> None:
    said, _ = ask(dialog, text)
    first = said.splitlines()[0]
    assert card in first and ("能" in first or "yes" in first or "no" in first)


def test_a_slice_is_judged_as_a_card_of_its_size(dialog: Dialog) -> None:
    said, _ = ask(dialog, "半张 A100 能跑 7B 吗")
    assert "3g.20gb" in said.splitlines()[0] and "20 GB" in said


@pytest.mark.parametrize(
    ("text", "native"),
    [("一张 H100 能跑 gpt-oss-120b 吗", "MXFP4"), ("8 张 H200 能跑 DeepSeek-R1 吗", "FP8")],
)
def test_a_model_is_judged_in_its_shipped_format_first(dialog: Dialog, text: str, native: str) -> None:
    said, _ = ask(dialog, text)
    assert said.splitlines()[0].split("：")[-1].startswith(native)
    assert "AWQ" not in said.splitlines()[0] or native == "FP8"


@pytest.mark.parametrize(
    "text",
    ["一张 4090 能跑 bf16 的 14B 吗", "用 A100 PCIe 部署 70B int4 行吗", "two 24gb cards enough for 70B?"],
)
def test_a_no_comes_with_the_smallest_change_that_makes_it_a_yes(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert any(word in said for word in ("就能", "it fits", "fits:"))


@pytest.mark.parametrize(
    "text",
    [
        "70B 在两张 A100 上每秒多少 token",
        "4 卡 A800 一天能训多少 token",
        "一张 L40S 跑 Qwen2.5-14B 速度怎么样",
        "how fast is Llama 3 8B on one 4090?",
        "gpt-oss-120b on a single H100? how many tok/s?",
        "llama 3 8b on a 4090, tps?",
        "4090 跑 llama3 8b 每秒出几个字",
        "qwen2.5 7b 在 T4 上吞吐怎么样",
    ],
)
def test_a_speed_question_gets_a_number_not_the_sizing_script(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert "token" in said[:250] and "训练还是" not in said and "train or serve" not in said.lower()


@pytest.mark.parametrize("text", ["L40S 和 A6000 哪个好", "5090 vs 4090 for 13B", "L40S 還是 A6000 好"])
def test_two_cards_in_a_question_are_compared_side_by_side(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert said.count("GB/s") >= 2 and "同一项给了两个值" not in said and "-sxm" not in said


def test_a_verdict_keeps_its_model_and_card_for_the_next_message(dialog: Dialog) -> None:
    _, state = ask(dialog, "一张 4090 能跑 Qwen2.5-14B 吗")
    said, state = ask(dialog, "7×24，并发 10", state)
    assert state.slots["model"] == "qwen2.5-14b" and "训练还是" not in said


def test_a_new_complete_request_does_not_inherit_the_last_questions_card(dialog: Dialog) -> None:
    _, state = ask(dialog, "can one 4090 run Qwen2.5-14B?")
    _, state = ask(dialog, "full fine-tune a 70B on 100M tokens", state)
    assert state.slots.get("gpu") != "rtx4090" and state.slots.get("gpu_count") != 1
    assert state.slots["params_b"] == 70


def test_what_carries_into_a_new_request_is_said(dialog: Dialog) -> None:
    _, state = ask(dialog, "部署 Qwen2.5-7B，预算每月 3000 元")
    said, state = ask(dialog, "微调一个 13B 模型", state)
    assert "沿用" in said and state.slots["budget"]["amount"] == 3000


def test_what_the_user_pays_now_is_compared_with_the_plan(dialog: Dialog) -> None:
    said, _ = ask(dialog, "部署 13B 7×24 并发 10，现在两张 A100 一个月 5600")
    assert "5,600" in said and "省" in said and "720 小时" not in said


def test_an_answer_on_an_uncalibrated_card_says_how_sure_its_figures_are(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Qwen2.5-14B，并发 16，7×24")
    pick = reply.plan.recommendation if reply.plan else None
    assert pick is not None and not pick.calibrated_card
    # beside the figure it qualifies (issue 47), not under the card
    assert any("每路" in line and "负载下 ±" in line for line in reply.summary) and not reply.footer


def test_a_mixture_of_experts_plan_says_its_wider_band(dialog: Dialog) -> None:
    said = "serve Qwen3-30B-A3B for 16 concurrent users 24/7, we own 2 H100s"  # a calibrated card
    reply, _ = dialog.handle(ConversationState(), said)
    pick = reply.plan.recommendation if reply.plan else None
    assert pick is not None and pick.uncertainty_moe and pick.uncertainty_pct is not None
    band = f"±{pick.uncertainty_pct:.0f}%"
    assert any(
        band in line and "mixture-of-experts" in line and "per stream" in line for line in reply.summary
    )


@pytest.mark.parametrize(
    "text",
    [
        "我们要用 vLLM 部署 llama3.1 70b fp8，4 张 H100，输入 2000 输出 500，能扛多少 QPS？",
        "how many users can one H100 handle with qwen2.5 7b?",
        "两张 4090 跑 qwen2.5 14b 最多支持多少并发",
        "max qps for llama 3 8b on an L40S",
        "一張 L40S 跑 Qwen2.5-7B 撐得住多少 QPS",
    ],
)
def test_a_capacity_question_gets_requests_per_second_on_the_named_cards(dialog: Dialog, text: str) -> None:
    said = simplified(ask(dialog, text)[0])
    assert ("QPS" in said or "requests/s" in said) and ("满载" in said or "full load" in said)
    assert "训练还是" not in said and "how many people" not in said.lower() and "多少人同时" not in said


def test_a_capacity_answer_uses_the_stated_lengths(dialog: Dialog) -> None:
    said, _ = ask(dialog, "4 张 H100 跑 llama3.1 70b fp8，输入 2000 输出 500，能扛多少 QPS")
    assert "2,000" in said and "500" in said


def test_a_stated_speed_is_a_claim_to_check_not_a_speed_question(dialog: Dialog) -> None:
    """ "能跑50 tok/s?" states a figure (the myth answers it); "how many tok/s?" asks for one."""
    from gpu_advisor.reading.message import read_message

    assert not read_message("Llama 405B Q4 單卡H100能跑50 tok/s?", dialog.vocab).form.speed
    assert read_message("llama 3 8b on a 4090, how many tok/s?", dialog.vocab).form.speed


@pytest.mark.parametrize(
    ("first", "change", "model"),
    [
        ("部署 qwen2.5 7b 给 10 个人用，7x24", "换成 72B", "qwen2.5-72b"),
        ("serve llama 3.1 8b, 10 users, 24/7", "make it 70b", "llama-3.1-70b"),
    ],
)
def test_a_new_size_after_a_named_model_is_its_sibling_not_a_load(
    dialog: Dialog, first: str, change: str, model: str
) -> None:
    _, state = ask(dialog, first)
    _, state = ask(dialog, change, state)
    assert state.slots.get("model") == model and state.slots.get("concurrency") == 10


def test_a_size_with_no_sibling_stays_a_size(dialog: Dialog) -> None:
    _, state = ask(dialog, "serve mistral 7b, 10 users, 24/7")
    _, state = ask(dialog, "switch to 13B", state)
    assert state.slots.get("params_b") == 13 and "model" not in state.slots


def test_a_later_count_of_people_is_the_load(dialog: Dialog) -> None:
    _, state = ask(dialog, "serve a 13b model")
    _, state = ask(dialog, "actually 30 users", state)
    assert state.slots.get("concurrency") == 30 and state.slots.get("params_b") == 13


@pytest.mark.parametrize("text", ["rent cost for 1x 4090 per hour?", "hourly rate of an A100?"])
def test_a_rental_cost_question_in_english_gets_the_price(dialog: Dialog, text: str) -> None:
    said, _ = ask(dialog, text)
    assert "CN¥" in said and "train / fine-tune" not in said


def test_a_latency_target_is_echoed_with_its_unit(dialog: Dialog) -> None:
    said, _ = ask(dialog, "部署一个7b的模型，要求首token在300ms以内，并发30")
    assert "300 ms" in said


@pytest.mark.parametrize(
    ("text", "count", "way"),
    [
        ("我想在 H20 上部署 DeepSeek-R1 满血版，需要几台？", 8, "FP8"),  # shipped FP8, not a 4-bit
        ("用 4090 跑 qwen2.5 72b 要几张卡", 4, ""),  # a tensor-parallel degree, never 3
        ("训练 70B 全参要多少张 H100", 32, "全参"),  # the way asked, though QLoRA fits one card
    ],
)
def test_a_how_many_cards_question_gets_the_count_for_the_way_asked(
    dialog: Dialog, text: str, count: int, way: str
) -> None:
    said, _ = ask(dialog, text)
    assert f"加到 {count} 张" in said and way in said


def test_a_training_no_says_the_change_on_the_same_card_first(dialog: Dialog) -> None:
    """At 8 × 4,096 tokens Qwen3's 152k-word logits overflow a 4090; a fused loss fits it."""
    said, _ = ask(dialog, "训练 Qwen3-8B，QLoRA，rank 64，seq 4096，batch 8，单卡 4090 够吗")
    assert "融合交叉熵" in said and "QLoRA 就能放下" in said
