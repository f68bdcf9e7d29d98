"""The dialog core: questions, answers, corrections, skips, languages and bad input."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.dialog.questions import MAX_QUESTIONS
from tests.dialogs import talk


def test_a_complete_first_message_is_answered_after_at_most_two_refining_questions(dialog: Dialog) -> None:
    reply, state = talk(dialog, "部署 Qwen2.5-14B 推理")
    asked = 0
    while reply.kind == "question":
        asked += 1
        reply, state = dialog.press(state, reply.buttons[0].payload)
    assert reply.kind == "answer" and reply.plan is not None
    assert asked <= 2


def test_a_vague_first_message_reaches_a_plan_in_three_questions(dialog: Dialog) -> None:
    reply, state = talk(dialog, "我想租GPU")
    asked = 0
    while reply.kind == "question":
        asked += 1
        reply, state = dialog.press(state, reply.buttons[0].payload)
    assert reply.kind == "answer"
    assert asked <= MAX_QUESTIONS


def test_questions_offer_two_to_six_quick_replies(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "hello, I need a GPU")
    assert reply.kind == "question"
    assert 2 <= len(reply.buttons) <= 6
    assert all(len(b.payload.encode()) <= 64 for b in reply.buttons)


def test_never_asks_what_was_already_said(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "fine-tune llama 2 13b with qlora on 100M tokens")
    assert reply.kind == "answer"


def test_the_answer_confirms_the_request_then_leads_with_the_pick_and_its_cost(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 13B 聊天机器人，7×24，并发 4")
    ack, first = reply.text.splitlines()[:2]
    assert ack.startswith("收到") and "4 路并发" in ack
    assert "T4" in first or "3090" in first
    assert "¥" in first and "/月" in first


def test_skip_takes_the_default_and_says_so(dialog: Dialog) -> None:
    reply, state = talk(dialog, "serve a 7B model")
    assert reply.kind == "question"
    reply, state = talk(dialog, "skip", "don't know", state=state)
    assert reply.kind == "answer"
    assert reply.plan is not None and any(f.id == "assumed_concurrency" for f in reply.plan.assumptions)


def test_a_correction_after_the_answer_recomputes_the_plan(dialog: Dialog) -> None:
    reply, state = talk(dialog, "部署 7B 模型，7×24，并发 4")
    assert reply.plan is not None and reply.plan.model.params_b == 7
    reply, state = talk(dialog, "其实是70B", state=state)
    assert reply.kind == "answer" and reply.plan is not None
    assert reply.plan.model.params_b == 70


def test_switching_from_serving_to_training_changes_the_task(dialog: Dialog) -> None:
    _, state = talk(dialog, "deploy a 13B model 24/7 for 4 users")
    reply, state = talk(dialog, "no, training, full fine-tune", state=state)
    assert state.slots["task"] == "train"
    assert reply.plan is None or reply.plan.task == "train"


def test_reply_language_follows_the_message(dialog: Dialog) -> None:
    reply, state = talk(dialog, "I want to serve a 7B model")
    assert reply.lang == "en"
    reply, state = talk(dialog, "并发 16", state=state)
    assert reply.lang == "zh"


def test_lang_command_overrides_the_message_language(dialog: Dialog) -> None:
    _, state = talk(dialog, "/lang en")
    reply, state = talk(dialog, "部署 7B 模型", state=state)
    assert reply.lang == "en" and state.lang_locked


def test_new_resets_the_conversation_but_keeps_the_language(dialog: Dialog) -> None:
    _, state = talk(dialog, "/lang en", "serve a 13B model")
    reply, state = talk(dialog, "/new", state=state)
    assert state.slots == {} and state.lang == "en"
    assert reply.kind == "question"


def test_plan_answers_now_with_assumptions(dialog: Dialog) -> None:
    reply, state = talk(dialog, "微调 13B")
    assert reply.kind == "question"
    reply, _ = talk(dialog, "/plan", state=state)
    assert reply.kind == "answer" and reply.plan is not None
    assert reply.plan.assumptions


def test_plan_without_a_model_asks_for_it(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "/plan")
    assert reply.kind == "question"


def test_why_and_cost_need_an_answer_first(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "/why")
    assert reply.kind == "info"
    reply, state = talk(dialog, "部署 7B，7×24，并发 4")
    why, _ = talk(dialog, "/why", state=state)
    assert len(why.text) > len(reply.text) / 2 and "•" in why.text
    cost, _ = talk(dialog, "/cost", state=state)
    assert "¥" in cost.text


def test_gpu_card_shows_datasheet_figures(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "/gpu H100")
    assert "3,350" in reply.text and "989" in reply.text and "900" in reply.text


def test_compare_with_a_workload_gives_speed_and_cost_per_million_tokens(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "/lang en", "/compare A100 T4 for 13B int4 inference")
    assert reply.text.count("tokens/s") == 2
    assert "per million" in reply.text


def test_unknown_gpu_and_command_get_polite_errors(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "/gpu TPUv9")
    assert reply.kind == "error" and "TPUv9" in reply.text
    reply, _ = talk(dialog, "/teleport")
    assert reply.kind == "error" and "/help" in reply.text


def test_a_stale_button_is_answered_politely(dialog: Dialog) -> None:
    _, state = talk(dialog, "serve a 7B model")
    reply, after = dialog.press(state, "q:task:0")  # the task question was answered long ago
    assert reply.kind == "info" and after == state


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "   ",
        "😀😀😀",
        "\x00\x01\x02binary\xff",
        "'; DROP TABLE conversations; --",
        "<script>alert(1)</script>",
        "🤖" * 5000,
        "a" * 100_000,
    ],
)
def test_bad_input_gets_a_reply_and_leaves_state_unchanged(dialog: Dialog, junk: str) -> None:
    _, state = talk(dialog, "部署 13B 模型")
    reply, after = dialog.handle(state, junk)
    assert reply.text
    assert after.slots == state.slots and after.pending == state.pending


@pytest.mark.parametrize(
    ("message", "lang"),
    [("10000000B 的模型", "zh"), ("a 10000000B model", "en"), ("-5k context", "en"), ("上下文 -5k", "zh")],
)
def test_absurd_numbers_are_refused_in_the_users_language(dialog: Dialog, message: str, lang: str) -> None:
    reply, state = dialog.handle(ConversationState(), message)
    assert reply.lang == lang
    assert "params_b" not in state.slots and "context_len" not in state.slots
    assert reply.kind in ("error", "question")


def test_myth_in_the_users_words_is_corrected(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "听说 405B Q4 一张 H100 就能跑，我想部署 Llama 3.1 405B，7×24，并发 4")
    assert reply.plan is not None
    assert any(f.id == "myth_q4_405b_on_one_h100" for f in reply.plan.pitfalls)


def test_training_on_an_owned_t4_is_flagged(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "我有一张T4，想全参微调13B，数据1亿token")
    assert reply.plan is not None
    assert any(f.id == "training_on_inference_card" for f in reply.plan.pitfalls)
    assert reply.plan.recommendation is not None and reply.plan.recommendation.gpu != "t4"


def test_analyze_reads_a_pasted_sheet_and_flags_pcie_trainers(dialog: Dialog) -> None:
    sheet = "/analyze\nGPU：8 × A100 80G PCIe\nCPU：2 × AMD EPYC 7763\n内存：128GB\n网络：2×25GbE"
    reply, state = dialog.handle(ConversationState(), sheet)
    assert reply.kind == "card" and reply.lang == "zh"
    assert "PCIe" in reply.text and "12.7" in reply.text  # NVLink vs PCIe, with the ratio
    assert "16 GB" in reply.text  # 128 GB of RAM over 8 GPUs, against 64 GB per GPU
    assert state.slots == {}


def test_analyze_without_a_sheet_explains_itself(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(lang="en"), "/analyze")
    assert "Paste" in reply.text


def test_a_users_own_capable_card_is_recommended_before_renting(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "我有一张4090，想用 LoRA 微调 7B，数据 1亿 token")
    assert reply.plan is not None and reply.plan.requested is not None
    assert reply.plan.requested.cost.amount == 0
    assert reply.plan.pitfalls[0].id == "own_hardware_is_enough"
    assert "4090" in reply.text


def test_a_one_shot_answer_still_says_which_card_it_did_not_know(dialog: Dialog) -> None:
    # quick() runs the message and then /plan; the first turn's notes used to vanish.
    reply = dialog.quick("部署 H300 跑 99B 模型", "zh")
    assert reply.kind == "answer" and reply.plan is not None
    assert "h300" in reply.text.lower() and reply.text.index("h300") < reply.text.index(reply.title or "")
