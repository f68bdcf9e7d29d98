"""A serving request that states its load gets a plan at once, 24/7 assumed and said
(bot.dialog.questions.states_its_load, defaults_said); questions stay where the answer
hangs on them."""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog


def test_an_english_request_with_its_users_gets_a_plan_not_a_question(dialog: Dialog) -> None:
    text = "need to host Qwen2.5-14B for around 30 simultaneous users — which GPU should I rent?"
    reply, _ = dialog.handle(ConversationState(), text)
    assert reply.kind == "answer" and reply.plan is not None


def test_the_english_answer_says_it_assumed_24_7(dialog: Dialog) -> None:
    reply, _ = dialog.handle(
        ConversationState(), "serving Llama-3.1-8B to 25 concurrent users, what do I rent?"
    )
    assert "assuming it runs 24/7" in reply.lead[0]


def test_a_chinese_request_with_its_users_gets_a_plan_saying_7x24(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Llama-3.1-8B，20 个人同时用，租哪个卡")
    assert reply.plan is not None and "假设 7×24 运行" in reply.lead[0]


def test_a_traditional_request_with_its_users_gets_a_plan(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Qwen2.5-7B 給 40 人同時用，該租什麼卡")
    assert reply.plan is not None and "假設 7×24 運行" in reply.lead[0]


def test_a_stated_schedule_is_not_said_as_assumed(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "部署 Qwen2.5-7B，并发 10，7×24 运行")
    assert reply.plan is not None and "假设 7×24" not in reply.text


def test_a_serving_request_without_its_load_still_asks_for_it(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "deploy Qwen2.5-7B for our support desk")
    assert state.pending == "traffic"


def test_a_training_request_still_asks_its_method(dialog: Dialog) -> None:
    _, state = dialog.handle(ConversationState(), "想微调 Qwen2.5-7B，用什么卡")
    assert state.pending == "method"
