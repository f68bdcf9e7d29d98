"""What strangers' phrasings showed the reader missing (Dec 2026 probe, phrasings written before the fixes).

A correction that names the old value ("不是32b，是14b") keeps the new one; a range counted
in streams ("二三十个并发") takes its upper end; a price question asked while the dialog
still has questions gets the price; a model name in Chinese ("deepseek r1 蒸馏 32b") is the
distill; a neutral follow-up keeps the conversation's script.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.requirements import Vocabulary, extract
from tests.dialogs import simplified, talk


@pytest.fixture(scope="module")
def vocab(dialog: Dialog) -> Vocabulary:
    return dialog.vocab


@pytest.mark.parametrize(
    ("first", "correction", "slot", "value"),
    [
        ("部署 13B，并发 10，7×24", "不是10个人，是20个", "concurrency", 20),
        ("部署 13B，并发 10，7×24", "并发不是10，是20", "concurrency", 20),
        ("部署 13B，並發 10，7×24", "不是10個人，是25個", "concurrency", 25),
        ("deploy 13B for 10 users, 24/7", "not 10 users, 25", "concurrency", 25),
        ("deploy 13B for 10 users, 24/7", "not 10 users but 30", "concurrency", 30),
        ("部署 13B，并发 10，预算 3000 元", "不是3000块，是5000", "budget", 5000),
        ("部署 13B，并发 10，预算 3000 元", "预算不是3000，是8000", "budget", 8000),
    ],
)
def test_a_correction_naming_the_old_value_sets_the_new_one(
    dialog: Dialog, first: str, correction: str, slot: str, value: float
) -> None:
    _, state = talk(dialog, first, correction)
    held = state.slots[slot]
    assert (held["amount"] if isinstance(held, dict) else held) == value


@pytest.mark.parametrize(
    ("first", "correction", "model"),
    [
        ("部署 qwen2.5 32b，二三十个并发", "不是32b，是14b", "qwen2.5-14b"),
        ("deploy qwen2.5 32b for 20 users", "14b, not 32b", "qwen2.5-14b"),
        ("deploy qwen2.5 32b for 20 users", "not 32b but 72b", "qwen2.5-72b"),
    ],
)
def test_a_negated_size_is_dropped_and_the_asserted_one_becomes_the_sibling(
    dialog: Dialog, first: str, correction: str, model: str
) -> None:
    reply, state = talk(dialog, first, correction)
    assert state.slots.get("model") == model
    assert "two values" not in reply.text and "两个值" not in reply.text


def test_a_negated_size_in_a_first_message_leaves_the_other_size(vocab: Vocabulary) -> None:
    result = extract("部署 13b 不是 30b，10 个人用", vocab)
    assert result.slots.get("params_b") == 13
    assert not any(i.id == "conflicting_values" for i in result.issues)


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("部署 qwen2.5 7b，二三十个并发", 30),
        ("部署 qwen2.5 7b，二三十并发", 30),
        ("部署 qwen2.5 7b，三五十个并发", 50),
        ("部署 qwen2.5 7b，十几个并發", 15),
        ("deploy qwen2.5 7b, 20-30 concurrent users", 30),
    ],
)
def test_a_range_of_concurrent_streams_takes_its_upper_end(vocab: Vocabulary, text: str, users: int) -> None:
    result = extract(text, vocab)
    assert result.slots.get("concurrency") == users
    assert any(i.id == "approximated" for i in result.issues)


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("部署 qwen2.5 7b 5个人", 5),
        ("部署 qwen2.5 7b 给5个人", 5),
        ("serve qwen2.5 7b 5 people", 5),
        ("部署 Qwen2.5 7B 供 12 人", 12),
    ],
)
def test_a_count_of_people_after_the_model_is_the_load(vocab: Vocabulary, text: str, users: int) -> None:
    assert extract(text, vocab).slots.get("concurrency") == users


def test_a_count_glued_to_another_number_stays_unread(vocab: Vocabulary) -> None:
    """ "预算 5000 3 个人": two bare numbers in a row are not guessed apart."""
    assert "concurrency" not in extract("部署 70b 预算 5000 3 个人", vocab).slots


@pytest.mark.parametrize(
    "messages",
    [
        ("部署 qwen2.5 7b", "一个月多少钱"),
        ("部署 glm-4 9b", "月租多少"),
        ("deploy qwen2.5 7b", "how much per month?"),
    ],
)
def test_a_price_question_before_the_plan_is_answered_with_the_plan(
    dialog: Dialog, messages: tuple[str, ...]
) -> None:
    """A request still missing its load: the price question gets a plan, sized on stated defaults."""
    reply, _ = talk(dialog, *messages)
    assert reply.plan is not None and reply.plan.recommendation is not None
    assert reply.price


@pytest.mark.parametrize(
    "messages",
    [
        ("部署 glm-4 9b，给 5 个人用", "多少钱一个月"),
        ("部署 qwen2.5 7b 5个人", "月租多少"),
        ("deploy qwen2.5 7b for 5 users", "how much per month?"),
        ("deploy qwen2.5 7b for 5 users", "whats the monthly cost"),
    ],
)
def test_a_price_question_after_the_plan_is_answered_with_the_plans_price(
    dialog: Dialog, messages: tuple[str, ...]
) -> None:
    """A request that states its load gets its plan at once; the price question then names that price."""
    planned, state = talk(dialog, messages[0])
    assert planned.plan is not None and planned.plan.recommendation is not None
    asked, _ = talk(dialog, messages[1], state=state)
    assert f"{planned.plan.recommendation.monthly_cost.amount:,.0f}" in asked.as_text()


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("部署 deepseek r1 蒸馏 32b，十几个人用", "deepseek-r1-distill-qwen-32b"),
        ("部署 DeepSeek-R1 蒸餾 14B，5個人用", "deepseek-r1-distill-qwen-14b"),
        ("deepseek r1 蒸馏版 7b 部署", "deepseek-r1-distill-qwen-7b"),
    ],
)
def test_distill_written_in_chinese_names_the_distilled_model(
    vocab: Vocabulary, text: str, model: str
) -> None:
    assert extract(text, vocab).slots.get("model") == model


def test_a_neutral_follow_up_keeps_the_traditional_script(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 llama 3 70b，並發 20，預算每月三萬", "改用 int4")
    assert "並發" in reply.text and "并发" not in reply.text


def test_a_simplified_follow_up_switches_back_to_simplified(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 llama 3 70b，並發 20，預算每月三萬", "换成 qwen2.5 72b，并发 10")
    assert "并发" in reply.text


@pytest.mark.parametrize(
    "text",
    [
        "my 2080 ti has 11gb, can it do llama3.1 8b inference in 4bit?",
        "can a 2080ti run qwen2.5 7b?",
        "2080ti 能跑 qwen2.5 7b 吗",
    ],
)
def test_a_can_it_run_question_on_a_2080_ti_gets_a_verdict(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert "2080 Ti" in reply.text
    assert reply.kind != "question" and "?" not in simplified(reply.text).splitlines()[-1].rstrip("。")


def test_a_conversation_state_round_trips_the_script(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 llama 3 70b，並發 20")
    assert ConversationState.model_validate_json(state.model_dump_json()).hant


@pytest.mark.parametrize(
    "text",
    [
        "how many h100s do i need for llama 3.1 405b fp8",
        "llama 3.1 405b fp8 needs how many h100",
        "how many 4090 cards for qwen2.5 72b inference?",
    ],
)
def test_how_many_cards_in_english_gets_the_count(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert reply.kind == "answer"
    assert "it fits" in reply.text


def test_a_comparison_for_a_model_too_big_for_one_card_tries_a_smaller_format(dialog: Dialog) -> None:
    """70B in BF16 fits neither card; in FP8 it runs on one H100 or one H200 (both Hopper)."""
    reply, _ = talk(dialog, "H100 和 H200 跑 70B 推理差多少")
    assert reply.text.count("· FP8") == 2


def test_a_comparison_never_offers_fp8_on_a_card_without_it(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "L40S vs A100 哪个跑 32B 推理划算")
    assert "A100 40GB SXM4 · INT8" in reply.text


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("你好", "你好！"),
        ("在吗？", "你好！"),
        ("hi there", "Hi!"),
        ("谢谢", "不客气"),
        ("thanks!", "welcome"),
        ("再见", "再见"),
    ],
)
def test_small_talk_is_answered_as_small_talk(dialog: Dialog, text: str, key: str) -> None:
    reply, _ = talk(dialog, text)
    assert key in reply.text
    assert "没看懂" not in reply.text and "didn't catch" not in reply.text


def test_switching_from_serving_to_training_drops_the_serving_load(dialog: Dialog) -> None:
    reply, state = talk(dialog, "部署 Qwen2.5-7B，10 个并发", "那训练呢，用 LoRA，1 万条数据")
    assert state.slots["task"] == "train" and "concurrency" not in state.slots
    assert "并发" not in reply.text.splitlines()[0]


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("depoly lama 3 8b for 10 usres", {"task": "infer", "model": "llama-3-8b", "concurrency": 10}),
        ("deploy qwen 2.5 7b chatbot 🤖 for ~30 ppl", {"model": "qwen2.5-7b", "concurrency": 30}),
        ("fintune mistral 7b with qlora", {"task": "train", "model": "mistral-7b", "method": "qlora"}),
        ("inferece qwen2.5 7b, 12 concurent users", {"task": "infer", "concurrency": 12}),
    ],
)
def test_common_misspellings_of_keywords_are_read(
    vocab: Vocabulary, text: str, slots: dict[str, object]
) -> None:
    got = extract(text, vocab).slots
    assert {k: got.get(k) for k in slots} == slots


def test_a_correct_word_is_never_rewritten() -> None:
    from gpu_advisor.text.typos import FIXES, KEYWORDS

    assert not set(FIXES) & set(KEYWORDS)
    assert "server" not in FIXES and "raining" not in FIXES


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("我们要做代码补全，20个开发，qwen2.5 coder 7b", 20),
        ("部署 Qwen2.5-Coder-32B-Instruct 给 50 个程序员", 50),
        ("deploy qwen2.5 7b for 12 developers", 12),
    ],
)
def test_developers_are_users(vocab: Vocabulary, text: str, users: int) -> None:
    assert extract(text, vocab).slots.get("concurrency") == users


def test_a_coder_model_is_its_own_model_of_its_base_shape(dialog: Dialog) -> None:
    coder, base = dialog.kb.models["qwen2.5-coder-7b"], dialog.kb.models["qwen2.5-7b"]
    assert (coder.layers, coder.hidden_size, coder.num_kv_heads) == (
        base.layers,
        base.hidden_size,
        base.num_kv_heads,
    )
    _, state = talk(dialog, "部署 qwen2.5 coder 7b，10 个人用")
    assert state.slots["model"] == "qwen2.5-coder-7b"


def test_a_size_change_stays_on_the_same_line_of_models(dialog: Dialog) -> None:
    """Qwen2.5-14B and Qwen2.5-Coder-14B are the same size: "换成 14B" after Qwen2.5-32B is the former."""
    _, state = talk(dialog, "部署 qwen2.5 32b，20 个人用", "换成 14B")
    assert state.slots["model"] == "qwen2.5-14b"


def test_a_limit_that_rules_out_every_offer_says_so_and_what_lifting_it_costs(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 qwen2.5 7b 10 个人", "只要国产卡")
    assert "国产卡" in reply.text and "排除了所有报价" in reply.text
    assert "去掉这个限制，最便宜的是" in reply.text
    assert "只用国产卡 是" not in reply.text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4张A100 80G训练 llama 3 8B 全参要多久，数据 50亿 token", "全参微调：50亿 token 约 152.5 小时训完"),
        (
            "fine-tune mistral 7b with qlora on a single 3090, 50k samples, how long?",
            "With QLoRA, 25.6M tokens take",
        ),
    ],
)
def test_how_long_on_the_named_card_is_answered_on_that_card(dialog: Dialog, text: str, words: str) -> None:
    reply, _ = talk(dialog, text)
    assert words in reply.text


def test_a_plan_on_a_named_card_outside_the_catalog_says_its_hours(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "4张A100 80G训练 llama 3 8B 全参，数据 50亿 token")
    assert "小时训完，但不在价目表里" in reply.summary[0]


def test_a_serving_no_short_by_little_says_the_small_change_before_more_cards(dialog: Dialog) -> None:
    """Qwen2.5-32B AWQ on one 4090 is ~0.5 GiB over vLLM's default 90 %: 95 % holds it."""
    reply, _ = talk(dialog, "Can a 4090 run qwen2.5 32b?")
    lines = reply.text.splitlines()
    close = next(i for i, line in enumerate(lines) if "--gpu-memory-utilization 0.95" in line)
    more = next(i for i, line in enumerate(lines) if line.startswith("With 2 ×"))
    assert close < more


def test_a_serving_no_short_by_a_lot_offers_no_small_change(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "can a 4090 run llama 3.1 70b?")
    assert "gpu-memory-utilization" not in reply.text and "max-model-len" not in reply.text


@pytest.mark.parametrize(
    "text",
    [
        "服务器配置：8x H100 80G, 2x Xeon 8480, 2TB 内存，能干嘛",
        "8卡4090服务器，2颗 EPYC 7763，1TB 内存，4块 3.84T NVMe，适合干啥",
        "8x A100 80G, 双路 xeon 8358, 1T 内存, 100G IB 网卡",
        "2x L40S, 64 cores, 512GB RAM, what is this good for?",
    ],
)
def test_a_server_configuration_typed_in_chat_is_judged_as_a_sheet(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert reply.kind == "card"
    assert reply.text.startswith("🧾")


def test_a_job_on_a_described_server_is_still_a_job(dialog: Dialog) -> None:
    reply, state = talk(dialog, "用 8 卡 H100（2TB 内存）训练 70B")
    assert state.slots["task"] == "train" and not reply.text.startswith("🧾")


@pytest.mark.parametrize(
    "text",
    [
        "Qwen2.5 7B 和 Llama 3.1 8B 哪个部署便宜",
        "qwen2.5 7b or llama 3.1 8b for 20 users, which is cheaper?",
        "qwen2.5 72b vs llama 3.1 70b 部署 50 并发",
    ],
)
def test_two_models_in_one_question_are_planned_side_by_side(dialog: Dialog, text: str) -> None:
    reply, state = talk(dialog, text)
    assert reply.kind == "card"
    assert len([line for line in reply.summary if "/月" in line or "/month" in line]) == 2
    assert "两个值" not in reply.text and "Two values" not in reply.text
    assert state.slots["model"] in dialog.vocab.model_ids


def test_two_models_without_a_comparison_word_are_still_a_conflict(vocab: Vocabulary) -> None:
    result = extract("部署 Qwen2.5 7B Llama 3.1 8B", vocab)
    assert any(i.id == "conflicting_values" for i in result.issues)


def test_a_negated_model_name_is_dropped(vocab: Vocabulary) -> None:
    result = extract("部署 Qwen2.5 7B，不是 Llama 3.1 8B", vocab)
    assert result.slots.get("model") == "qwen2.5-7b"
    assert not any(i.id == "conflicting_values" for i in result.issues)


def test_a_concept_question_mid_conversation_uses_the_conversation_model(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 qwen2.5 72b 10 个人", "推理要多大显存")
    assert "qwen2.5 72b" in reply.text  # the conversation's model, in the spelling the user gave it
    assert "按 Llama" not in reply.text


def test_why_this_card_after_a_plan_shows_the_reasoning(dialog: Dialog) -> None:
    reply, state = talk(dialog, "部署 qwen2.5 7b 给 50 人用", "7x24", "为什么推荐 T4")
    assert reply.text.startswith("为什么是") and "gpu" not in state.slots


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (("部署 qwen2.5 7b 给 50 人用", "7x24", "有没有更快的"), "更快的选择"),
        (("deploy llama 3.1 70b for 20 users 24/7", "too slow, anything faster?"), "A faster option"),
    ],
)
def test_anything_faster_after_a_plan_names_a_faster_option(
    dialog: Dialog, messages: tuple[str, ...], words: str
) -> None:
    reply, _ = talk(dialog, *messages)
    assert reply.text.startswith(words)


def test_a_price_with_a_swap_after_a_plan_prices_the_plan_on_that_card(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 qwen2.5 7b 给 50 人用", "7x24", "换成 A100 多少钱")
    assert "放得下" in reply.text and "T4" in reply.text


@pytest.mark.parametrize(
    ("text", "prompt", "output"),
    [
        ("部署 llama 3.1 8b，每秒 20 个请求，每个请求 2000 token 输入 300 输出", 2000, 300),
        ("部署 7b, 20 并发，2000 输入，500 输出", 2000, 500),
        ("2k in / 300 out, 10 qps, llama 3.1 8b", 2048, 300),
        ("300 输出 2000 输入，部署 qwen2.5 7b", 2000, 300),
        ("输入 2000 输出 300，部署 qwen2.5 7b", 2000, 300),
    ],
)
def test_request_lengths_written_number_first_pair_up(
    vocab: Vocabulary, text: str, prompt: int, output: int
) -> None:
    slots = extract(text, vocab).slots
    assert (slots.get("prompt_tokens"), slots.get("output_tokens")) == (prompt, output)
    assert "context_len" not in slots


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("微调 qwen2.5 7b lora，数据 3 万条，每条 1000 token，训 3 轮", 90_000_000),
        ("fine-tune qwen2.5 7b lora on 100M tokens for 3 epochs", 300_000_000),
        ("微调 7b lora，数据 1亿 token，训 2 轮", 200_000_000),
        ("微调 7b lora，数据 1亿 token", 100_000_000),
    ],
)
def test_passes_over_the_data_multiply_the_tokens_trained(vocab: Vocabulary, text: str, tokens: int) -> None:
    assert extract(text, vocab).slots.get("train_tokens") == tokens


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("how long would it take to fine-tune qwen2.5 7b on 1B tokens with 8 H100s", "1B tokens take about"),
        ("4 张 A100 80G 训练 qwen2.5 7b lora 1亿 token 要多久", "LoRA：1亿 token 约"),
    ],
)
def test_how_long_on_named_cards_says_the_time_for_the_stated_tokens(
    dialog: Dialog, text: str, words: str
) -> None:
    reply, _ = talk(dialog, text)
    assert words in reply.text


def test_also_training_after_a_serving_plan_plans_both(dialog: Dialog) -> None:
    reply, state = talk(
        dialog,
        "deploy qwen2.5 7b for 10 users 24/7",
        "now i also want to fine-tune it with lora on 50M tokens",
    )
    assert state.slots["task"] == "both"
    assert "For serving, also rent" in reply.text


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("What's the cheapest way to run Qwen2.5-72B for a few internal users?", 3),
        ("serve llama 3 8b for a couple of beta testers", 2),
        ("部署 7b 给十几个开发用", 15),
    ],
)
def test_people_with_a_word_before_them_are_still_users(vocab: Vocabulary, text: str, users: int) -> None:
    assert extract(text, vocab).slots.get("concurrency") == users


def test_latency_to_first_token_written_after_the_number_is_a_ttft_limit(vocab: Vocabulary) -> None:
    text = "I need to serve Mixtral 8x7B to about 40 people at work, latency under 1s to first token"
    assert extract(text, vocab).slots.get("ttft_ms_max") == 1000


@pytest.mark.parametrize(
    ("messages", "slot", "value"),
    [
        (("部署 llama 3.1 8b，并发 8，7x24", "不是8个，是16个"), "concurrency", 16),
        (("deploy mistral 7b, budget 1000 a month", "no, not 1000, it's 2500"), "budget", 2500),
    ],
)
def test_a_correction_without_a_unit_changes_the_slot_that_held_the_old_value(
    dialog: Dialog, messages: tuple[str, ...], slot: str, value: float
) -> None:
    _, state = talk(dialog, *messages)
    held = state.slots[slot]
    assert (held["amount"] if isinstance(held, dict) else held) == value


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("部署 qwen2.5 7b 20 人，就这周用一下", 168),
        ("serve llama 3.1 8b for 20 people, this month only", 720),
    ],
)
def test_this_week_or_month_is_a_duration(vocab: Vocabulary, text: str, hours: float) -> None:
    assert extract(text, vocab).slots.get("duration_hours") == hours


@pytest.mark.parametrize(
    "text",
    ["部署 qwen2.5 7b 十个人，白天用，晚上关", "serve llama 3.1 8b for 20 people during business hours"],
)
def test_daytime_use_is_priced_as_a_month_and_says_how_to_save(vocab: Vocabulary, text: str) -> None:
    result = extract(text, vocab)
    assert result.slots.get("always_on") is True
    assert any(i.id == "daytime_only" for i in result.issues)


@pytest.mark.parametrize(
    ("text", "tpot_ms"),
    [
        ("帮我算算 qwen2.5-32b 推理，要求每个用户每秒至少 30 个 token，10 个用户", 33.3),
        ("deploy llama 3.1 8b, each user needs at least 40 tok/s, 20 users", 25.0),
        ("部署 7b，单路至少 50 token/s", 20.0),
        ("部署 7b，TPOT 不超过 40ms", 40.0),
    ],
)
def test_a_required_speed_per_user_is_a_time_per_token_target(
    vocab: Vocabulary, text: str, tpot_ms: float
) -> None:
    slots = extract(text, vocab).slots
    assert slots.get("tpot_ms_p99") == tpot_ms and "context_len" not in slots


def test_a_speed_asked_about_is_not_a_target(vocab: Vocabulary) -> None:
    assert "tpot_ms_p99" not in extract("4090 能跑 50 tok/s 吗 llama 3 8b", vocab).slots


@pytest.mark.parametrize(
    "text",
    [
        "帮我算算 qwen2.5-32b 推理，要求每个用户每秒至少 30 个 token，10 个用户，7x24",
        "deploy llama 3.1 8b for 20 users 24/7, p99 ttft 1s",
    ],
)
def test_a_group_of_users_with_a_p99_target_gets_a_plan_that_meets_it(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert reply.plan is not None and reply.plan.status == "ok"
    assert reply.plan.recommendation is not None and reply.plan.recommendation.meets_latency


@pytest.mark.parametrize(
    ("text", "qps"),
    [
        ("我想用qwen2.5 72b做个客服，大概每天1万个对话，每个对话平均10轮", 2.78),
        ("serve llama 3.1 8b, 5000 conversations per day, 8 turns per conversation", 1.11),
    ],
)
def test_daily_conversations_of_several_turns_are_traffic(vocab: Vocabulary, text: str, qps: float) -> None:
    slots = extract(text, vocab).slots
    assert slots.get("qps") == pytest.approx(qps, abs=0.01) and "train_tokens" not in slots


@pytest.mark.parametrize(
    ("text", "words"),
    [("LoRA 和 QLoRA 有什么区别", "QLoRA 把冻结的权重"), ("FP8 和 INT8 哪个好", "推理用")],
)
def test_method_and_precision_pairs_are_concept_questions(dialog: Dialog, text: str, words: str) -> None:
    reply, _ = talk(dialog, text)
    assert words in reply.text and "两个值" not in reply.text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("llama 3.1 8b 微调，用 8 张 a100，数据 10B tokens，多久训完，多少钱", "152.9 小时："),
        ("how long and how much to lora fine-tune qwen2.5 14b on 500M tokens with 2 H100s?", "22.6 hours:"),
    ],
)
def test_how_long_and_how_much_on_named_cards_prices_the_time(dialog: Dialog, text: str, words: str) -> None:
    reply, _ = talk(dialog, text)
    assert "token" in reply.text and words in reply.text


def test_a_range_in_the_teens_takes_its_upper_end(vocab: Vocabulary) -> None:
    assert extract("部署 qwen2.5 7b 十五六个并发", vocab).slots.get("concurrency") == 16


def test_how_many_days_is_a_question_not_a_duration(dialog: Dialog) -> None:
    reply, state = talk(dialog, "4 张 4090 lora 微调 qwen2.5 14b，数据 2亿 token，要跑几天")
    assert "duration_hours" not in state.slots and "小时训完" in reply.text


def test_a_few_days_stated_is_still_a_duration(vocab: Vocabulary) -> None:
    assert extract("训练 7b lora，几天就够", vocab).slots.get("duration_hours") == 120


def test_turns_per_session_multiply_daily_sessions(vocab: Vocabulary) -> None:
    slots = extract("我们的客服每天大概 5000 次会话，每次 6 轮，用 qwen2.5 14b", vocab).slots
    assert slots.get("qps") == pytest.approx(0.83, abs=0.01)


@pytest.mark.parametrize(
    ("messages", "context"),
    [
        (("部署 qwen2.5 7b 20 人 7x24", "上下文改成 32k"), 32768),
        (("部署 qwen2.5 7b 20 人 7x24", "把上下文调到 16k"), 16384),
    ],
)
def test_setting_the_context_by_name_works_before_any_context_was_said(
    dialog: Dialog, messages: tuple[str, ...], context: int
) -> None:
    _, state = talk(dialog, *messages)
    assert state.slots.get("context_len") == context


def test_a_bare_change_never_sets_the_context(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 qwen2.5 7b，并发 20，上下文 8k，7x24", "改成 30")
    assert state.slots.get("context_len") == 8192 and state.slots.get("concurrency") == 30


@pytest.mark.parametrize("text", ["serve gpt-oss-20b on a single 16GB card?", "run qwen2.5 14b on one 4090?"])
def test_a_bare_verb_with_a_question_mark_on_a_card_gets_a_verdict(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert reply.kind == "answer" and ": " in reply.text.splitlines()[0] and "Got it" not in reply.text


@pytest.mark.parametrize("text", ["mac studio 能跑 70b 吗", "can my macbook pro m3 max run llama 3 8b?"])
def test_apple_silicon_is_said_to_be_outside_the_catalog(vocab: Vocabulary, text: str) -> None:
    result = extract(text, vocab)
    assert any(i.id == "apple_silicon" for i in result.issues) and "gpu" not in result.slots


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        (
            "We need to finetune Qwen2.5-14B on ~50k instruction pairs, single node preferred, ASAP",
            25_600_000,
        ),
        ("fine-tune llama 3 8b lora on 20k training examples", 10_240_000),
    ],
)
def test_examples_with_a_word_before_them_are_data_not_a_context(
    vocab: Vocabulary, text: str, tokens: int
) -> None:
    slots = extract(text, vocab).slots
    assert slots.get("train_tokens") == tokens and "context_len" not in slots


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("部署 llama 3 8b 给全公司用，大概 500 人，但同时在线的估计 50 个", 50),
        ("serve llama 3 8b to 2000 employees, maybe 100 at once", 100),
        ("部署 7b，同时用的人大概 20", 20),
    ],
)
def test_the_count_at_once_is_the_load_not_the_head_count(vocab: Vocabulary, text: str, users: int) -> None:
    result = extract(text, vocab)
    assert result.slots.get("concurrency") == users
    assert not any(i.id in ("conflicting_values", "number_unused") for i in result.issues)


def test_an_off_peak_rate_beside_the_peak_is_heard_and_set_aside(vocab: Vocabulary) -> None:
    result = extract("部署 qwen2.5 7b，峰值每秒 10 个请求，平时 2 个", vocab)
    assert result.slots.get("qps") == 10 and not any(i.id == "number_unused" for i in result.issues)


def test_from_scratch_said_briefly_is_pretraining(vocab: Vocabulary) -> None:
    assert extract("训练一个 1B 的小模型，从头训，100B token", vocab).slots.get("pretrain") is True


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (("部署 qwen2.5 7b 30 人 7x24", "能省点吗"), "最便宜"),
        (("部署 qwen2.5 7b 30 人 7x24", "给我启动命令"), "vllm serve"),
        (("Deploy Qwen2.5-7B for 30 users 24/7", "give me the vllm command"), "vllm serve"),
    ],
)
def test_follow_ups_in_plain_words_after_a_plan(
    dialog: Dialog, messages: tuple[str, ...], words: str
) -> None:
    reply, _ = talk(dialog, *messages)
    assert words in reply.text


@pytest.mark.parametrize("words", ["重新开始", "start over", "咱们从头再来吧"])
def test_starting_over_in_words_resets_the_conversation(dialog: Dialog, words: str) -> None:
    _, state = talk(dialog, "部署 qwen2.5 7b 30 人 7x24", words)
    assert not state.slots and not state.answered


def test_all_day_on_is_always_on(vocab: Vocabulary) -> None:
    assert extract("部署 qwen2.5 14b，大约三四十人同时用，全天开着", vocab).slots.get("always_on") is True


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (("部署 qwen2.5 7b 10 人 7x24", "ok"), "/order"),
        (("部署 qwen2.5 7b 10 人 7x24", "好的谢谢，那就租这个"), "✅"),
        (("deploy qwen2.5 7b for 10 users 24/7", "great, how do I order it?"), "✅"),
        (("部署 qwen2.5 7b 10 人 7x24", "那推理用 vllm 吗"), "vllm serve"),
    ],
)
def test_acknowledging_or_ordering_a_plan_gets_the_next_step(
    dialog: Dialog, messages: tuple[str, ...], words: str
) -> None:
    reply, _ = talk(dialog, *messages)
    assert words in reply.text and "没看懂" not in reply.text


@pytest.mark.parametrize("text", ["帮我推荐一下配置", "can you recommend a gpu?"])
def test_an_empty_request_for_advice_is_greeted_and_asked(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    assert "没看懂" not in reply.text and "didn't catch" not in reply.text
