"""The answer card (issue 18): a first message that fits a phone, details one screen each.

The first message confirms the request in one line, then the pick in words and its
price, one line on fit and speed and one caveat — about 300 characters at most. Each
detail view (/why, /cost, /alt, /whatif) fits one phone screen (~700 characters). No
text a person reads carries an offer id or an internal token, and no what-if repeats
the current price.
"""

from __future__ import annotations

import re

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply
from gpu_advisor.bot.dialog.render import changing_what_ifs
from gpu_advisor.engine.findings import Finding

FIRST_MESSAGE = 300  # characters: one glance on a phone
SCREEN = 700  # characters: one phone screen

WORKLOADS = {
    "serving": ("部署 Llama 2 13B，30 路并发，7×24", "serve llama 2 13B for 30 concurrent users 24/7"),
    "training": ("全参微调 70B，训练 10亿 token", "full fine-tune 70B on 1B tokens"),
    "lora": ("LoRA 微调 13B，1亿 token", "LoRA fine-tune 13B on 100M tokens"),
    "train_and_serve": (
        "训练加部署 7B 模型 LoRA 1亿 token 并发 16 7x24",
        "train and serve a 7B model with LoRA on 100M tokens, 16 concurrent users, 24/7",
    ),
    "multi_gpu": ("部署 Llama 3 70B，200 路并发，7×24", "serve llama 3 70B, 200 concurrent users, 24/7"),
    "one_off_job": ("推理 13B 跑三天 并发 8", "serve a 13B model for 3 days, 8 concurrent users"),
    "over_budget": (
        "部署 70B 并发 64 7x24 预算每月 1000 元",
        "serve a 70B model, 64 users, 24/7, budget 1000 CNY a month",
    ),
}
CASES = [(name, lang) for name in WORKLOADS for lang in ("zh", "en")]
DETAILS = ("/why", "/cost", "/alt", "/whatif")
# What must never reach a person: offer ids, ZeRO stage 0, slot labels with units, lazy plurals.
LEAKS = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)*-[0-9]+x\b|ZeRO-0|\(B\)|\(s\)|GPUs in all")


@pytest.fixture(scope="module")
def dialog() -> Dialog:
    return Dialog(knowledge.load())


def conversation(dialog: Dialog, name: str, lang: str) -> tuple[Reply, ConversationState]:
    state = ConversationState(lang=lang, lang_locked=True)
    text = WORKLOADS[name][0 if lang == "zh" else 1]
    reply, state = dialog.handle(state, text)
    if reply.kind == "question":
        reply, state = dialog.handle(state, "/plan")
    assert reply.kind == "answer", reply.text
    return reply, state


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_the_first_message_fits_a_phone(dialog: Dialog, name: str, lang: str) -> None:
    reply, _ = conversation(dialog, name, lang)
    assert len(reply.text) <= FIRST_MESSAGE, reply.text


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_the_confirmation_comes_before_the_card_in_one_line(dialog: Dialog, name: str, lang: str) -> None:
    reply, _ = conversation(dialog, name, lang)
    lines = reply.text.splitlines()
    assert len(reply.lead) == 1 and lines[0] == reply.lead[0]
    assert lines[0].startswith("收到" if lang == "zh" else "Got it")
    assert lines[1] == reply.title


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_the_price_and_pick_have_their_own_fields_and_are_in_the_title(
    dialog: Dialog, name: str, lang: str
) -> None:
    reply, _ = conversation(dialog, name, lang)
    assert reply.price and reply.pick and reply.title
    assert reply.pick in reply.title and reply.price in reply.title
    assert ("¥" in reply.price) and any(ch.isdigit() for ch in reply.price)


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_the_card_is_a_title_a_fit_line_and_at_most_one_caveat(dialog: Dialog, name: str, lang: str) -> None:
    reply, _ = conversation(dialog, name, lang)
    # how wide its figures under load are is said beside them, in the fit line (issues 29, 47)
    assert not reply.sections and not reply.footer
    assert 1 <= len(reply.summary) <= 3
    assert sum(line.count("⚠") for line in reply.summary) <= 1


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_buttons_are_why_cost_alternatives_and_start_over(dialog: Dialog, lang: str) -> None:
    reply, _ = conversation(dialog, "multi_gpu", lang)
    payloads = [b.payload for b in reply.buttons]
    assert payloads[:3] == ["/why", "/cost", "/alt"] and payloads[-1] == "/new"


def test_a_plan_whose_offer_has_an_order_link_gets_an_order_button_with_the_url(dialog: Dialog) -> None:
    from gpu_advisor.bot.dialog.render import answer_buttons

    reply, _ = conversation(dialog, "serving", "zh")
    assert reply.plan is not None and reply.plan.recommendation is not None
    pick = reply.plan.recommendation.model_copy(update={"order_url": "https://example.com/order/a100"})
    linked = reply.plan.model_copy(update={"recommendation": pick})
    order = [b for b in answer_buttons("zh", linked) if b.payload == "/order"]
    assert order and order[0].url == "https://example.com/order/a100"
    assert "/order" not in [b.payload for b in answer_buttons("zh", reply.plan)]


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_each_detail_view_fits_one_screen(dialog: Dialog, name: str, lang: str) -> None:
    _, state = conversation(dialog, name, lang)
    for command in DETAILS:
        view, _ = dialog.handle(state, command)
        assert len(view.text) <= SCREEN, (command, view.text)


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_no_offer_id_or_internal_token_reaches_a_person(dialog: Dialog, name: str, lang: str) -> None:
    reply, state = conversation(dialog, name, lang)
    texts = [reply.text, *(dialog.handle(state, c)[0].text for c in (*DETAILS, "/why all"))]
    for text in texts:
        assert not LEAKS.search(text), LEAKS.search(text)


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_no_what_if_repeats_the_current_price(dialog: Dialog, name: str, lang: str) -> None:
    reply, state = conversation(dialog, name, lang)
    assert reply.plan is not None
    for f in changing_what_ifs(reply.plan):
        assert f.values.get("amount") is None or f.values.get("amount") != f.values.get("pick_amount")
    for command in ("/alt", "/whatif", "/why all"):
        text = dialog.handle(state, command)[0].text
        assert not re.search(r"(¥[\d,]+)[（(](现在|now) \1[）)]", text), text


def test_a_what_if_that_changes_nothing_is_left_out() -> None:
    from gpu_advisor.engine.results import ModelSummary, Plan

    same = Finding(id="what_if_longer_seq", values={"amount": 1750, "pick_amount": 1750, "gpus": 1})
    dearer = Finding(id="what_if_double_concurrency", values={"amount": 5250, "pick_amount": 1750})
    model = ModelSummary(
        id="m", name="M", params_b=7, active_params_b=7, layers=32, hidden_size=4096, num_heads=32,
        num_kv_heads=32, head_dim=128, vocab_size=32000, kv_bytes_per_token=524288,
    )  # fmt: skip
    plan = Plan(status="ok", task="infer", model=model, recommendation=None, what_ifs=[same, dearer])
    assert changing_what_ifs(plan) == [dearer]


def test_english_counts_one_replica_and_one_gpu_in_the_singular(dialog: Dialog) -> None:
    _, state = conversation(dialog, "serving", "en")
    why = dialog.handle(state, "/why")[0].text
    assert "1 replica " in why and "replica(s)" not in why
    _, state = conversation(dialog, "lora", "en")
    why = dialog.handle(state, "/why")[0].text
    assert "1 GPU" in why and "no ZeRO sharding" in why


def test_the_cost_view_says_how_a_one_off_job_is_billed_and_what_it_costs(dialog: Dialog) -> None:
    _, state = conversation(dialog, "one_off_job", "zh")
    cost = dialog.handle(state, "/cost")[0].text
    assert "月租" in cost and "每小时" in cost and "按月计费" in cost and "本次任务" in cost


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_sentences_name_the_card_as_the_card_does(dialog: Dialog, name: str, lang: str) -> None:
    """Issue 18: the findings beside a card say 'RTX 3090', never the catalog's 'NVIDIA GeForce RTX 3090'."""
    reply, state = conversation(dialog, name, lang)
    texts = [reply.text, *(dialog.handle(state, c)[0].text for c in (*DETAILS, "/why all"))]
    for text in texts:
        assert "NVIDIA" not in text and "GeForce" not in text, text


@pytest.mark.parametrize(("name", "lang"), CASES)
def test_no_sentence_lists_counts_as_labels(dialog: Dialog, name: str, lang: str) -> None:
    """Issue 18: 'model replicas 1, 1-GPU machines 1' read like a form, not a sentence."""
    _, state = conversation(dialog, name, lang)
    why = dialog.handle(state, "/why all")[0].text
    assert not re.search(r"replicas \d|machines \d", why), why


def test_one_replica_on_one_machine_reads_in_the_singular(dialog: Dialog) -> None:
    _, state = conversation(dialog, "serving", "en")
    why = dialog.handle(state, "/why all")[0].text
    assert re.search(r"\b1 model replica on one machine with \d+ GPUs?\b", why), why
