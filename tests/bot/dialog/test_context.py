"""Issue 17, the dialog's half: context across turns, edits, corrections, exclusions, follow-ups.

Multi-turn conversations through ``Dialog.handle`` / ``press``. Where the reader
(``reading.requirements``) does not yet read a phrase class, the test hands the dialog
the :class:`Extraction` the reader documents for it (``reading/requirements/result.py``),
so what is tested is what the dialog does with it.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.terminal import button_for
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading import message
from gpu_advisor.reading.requirements import extract
from gpu_advisor.reading.requirements.result import Constraints, Edit, Extraction
from tests.dialogs import simplified, talk

SERVE_14B = "部署 Qwen2.5-14B 推理，30 路并发，7x24"
SERVE_70B = "部署 Llama-3.1-70B 推理，30 路并发，7x24"  # pick: 2 × A100 40GB, yearly 8 折 (seed 000 §三 #1)
TRAIN_7B = "微调 Qwen2.5-7B，LoRA，1亿 token"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, Extraction]:
    """Messages the reader is told to read as given Extractions (others go to the real reader)."""
    given: dict[str, Extraction] = {}
    real = extract

    def fake(
        text: str, vocab: Any, expecting: str | None = None, current_lang: Any = None, today: Any = None
    ) -> Extraction:
        return (
            given[text]
            if text in given
            else real(text, vocab, expecting=expecting, current_lang=current_lang, today=today)
        )

    monkeypatch.setattr(message, "extract", fake)
    return given


def said(lang: str = "zh", **kw: Any) -> Extraction:
    return Extraction(lang=lang, **kw)


# --- answers to the question just asked --------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "expected"),
    [("我想微调 Qwen2.5-7B，LoRA", "train_tokens"), ("部署 Qwen2.5-7B 推理", "concurrency")],
)
def test_the_slot_of_the_question_just_asked_is_passed_to_the_reader(
    dialog: Dialog, monkeypatch: pytest.MonkeyPatch, first: str, expected: str
) -> None:
    _, state = talk(dialog, first)
    seen: list[str | None] = []
    real = extract

    def spy(
        text: str, vocab: Any, expecting: str | None = None, current_lang: Any = None, today: Any = None
    ) -> Extraction:
        seen.append(expecting)
        return real(text, vocab, expecting=expecting, current_lang=current_lang, today=today)

    monkeypatch.setattr(message, "extract", spy)
    dialog.handle(state, "3亿")  # not a button label (a typed label presses its button)
    assert seen == [expected]


def test_a_first_message_is_read_without_an_expected_slot(
    dialog: Dialog, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str | None] = []
    real = extract

    def spy(
        text: str, vocab: Any, expecting: str | None = None, current_lang: Any = None, today: Any = None
    ) -> Extraction:
        seen.append(expecting)
        return real(text, vocab, expecting=expecting, current_lang=current_lang, today=today)

    monkeypatch.setattr(message, "extract", spy)
    talk(dialog, "1亿")
    assert seen == [None]


# --- relative edits ---------------------------------------------------------------------------


@pytest.mark.parametrize("phrase", ["预算再少一半", "預算再少一半", "half the budget"])
def test_halving_the_budget_scales_the_held_amount_and_keeps_currency_and_period(
    dialog: Dialog, reads: dict[str, Extraction], phrase: str
) -> None:
    _, state = talk(dialog, SERVE_14B + "，预算每月 4000 元")
    reads[phrase] = said(edits=[Edit(slot="budget", op="scale", factor=0.5)])
    reply, state = dialog.handle(state, phrase)
    assert state.slots["budget"] == {"amount": 2000.0, "currency": "CNY", "per": "month"}
    assert reply.kind == "answer" and reply.requirements["budget"]["amount"] == 2000.0


@pytest.mark.parametrize(
    ("phrase", "factor", "expected"), [("并发翻个倍", 2.0, 60), ("并发减三分之一", 2 / 3, 20)]
)
def test_scaling_concurrency_rounds_to_whole_users(
    dialog: Dialog, reads: dict[str, Extraction], phrase: str, factor: float, expected: int
) -> None:
    _, state = talk(dialog, SERVE_14B)
    reads[phrase] = said(edits=[Edit(slot="concurrency", op="scale", factor=factor)])
    _, state = dialog.handle(state, phrase)
    assert state.slots["concurrency"] == expected


@pytest.mark.parametrize("phrase", ["make it 2000 instead", "改成2000", "改成兩千"])
def test_an_edit_naming_no_slot_changes_the_number_last_given(
    dialog: Dialog, reads: dict[str, Extraction], phrase: str
) -> None:
    _, state = talk(dialog, SERVE_14B)  # the last number given is the concurrency
    reads[phrase] = said(edits=[Edit(op="set", value=2000)])
    _, state = dialog.handle(state, phrase)
    assert state.slots["concurrency"] == 2000


def test_an_edit_with_nothing_to_change_is_said_not_dropped(
    dialog: Dialog, reads: dict[str, Extraction]
) -> None:
    _, state = talk(dialog, SERVE_14B)  # no budget given
    reads["预算再少一半"] = said(edits=[Edit(slot="budget", op="scale", factor=0.5)])
    reply, after = dialog.handle(state, "预算再少一半")
    assert "预算" in reply.text and "budget" not in after.slots


# --- task corrections and train-then-serve -----------------------------------------------------


@pytest.mark.parametrize(
    "phrase", ["不对，是推理不是训练", "不對，是推理不是訓練", "no wait, inference not training"]
)
def test_a_task_correction_replaces_the_task_and_drops_training_settings(
    dialog: Dialog, reads: dict[str, Extraction], phrase: str
) -> None:
    _, state = talk(dialog, TRAIN_7B)
    reads[phrase] = said(slots={"task": "infer"}, replace=["task"])
    reply, state = dialog.handle(state, phrase)
    assert state.slots["task"] == "infer"
    assert "method" not in state.slots and "train_tokens" not in state.slots
    assert reply.plan is None or reply.plan.task == "infer"


def test_train_then_serve_keeps_both_halves_when_a_later_message_talks_only_of_serving(
    dialog: Dialog, reads: dict[str, Extraction]
) -> None:
    _, state = talk(dialog, "先微调 Qwen2.5-7B 再部署上线")
    assert state.slots["task"] == "both"
    reads["上线后 20 路并发推理"] = said(slots={"task": "infer", "concurrency": 20})
    _, state = dialog.handle(state, "上线后 20 路并发推理")
    assert state.slots["task"] == "both" and state.slots["concurrency"] == 20


# --- exclusions and owned cards ----------------------------------------------------------------


@pytest.mark.parametrize("phrase", ["不要 3090", "不要 3090 了", "no 3090 please"])
def test_an_excluded_card_is_echoed_and_never_picked(
    dialog: Dialog, reads: dict[str, Extraction], phrase: str
) -> None:
    first, state = talk(dialog, SERVE_14B)
    assert first.plan is not None and first.plan.recommendation is not None
    assert first.plan.recommendation.gpu == "rtx3090"  # the pick before the exclusion
    reads[phrase] = said(constraints=Constraints(exclude_gpus=["rtx3090"]))
    reply, state = dialog.handle(state, phrase)
    assert reply.plan is not None and reply.plan.recommendation is not None
    assert reply.plan.recommendation.gpu != "rtx3090"
    assert "RTX 3090" in reply.lead[0]


def test_excluding_consumer_cards_leaves_no_consumer_card_in_the_plan(kb: Knowledge) -> None:
    plan = recommend(
        Workload(task="infer", model="qwen2.5-14b", concurrency=30, exclude_segments=["consumer"]), kb
    )
    options = [plan.recommendation, *plan.alternatives]
    assert all(kb.gpus[o.gpu].segment != "consumer" for o in options if o is not None)


def test_domestic_only_proposes_only_chinese_vendors(kb: Knowledge) -> None:
    plan = recommend(Workload(task="infer", model="qwen2.5-7b", concurrency=4, domestic_only=True), kb)
    options = [o for o in (plan.recommendation, *plan.alternatives) if o is not None]
    assert all(kb.gpus[o.gpu].vendor == "huawei" for o in options)


def test_exclusions_accumulate_over_messages(dialog: Dialog, reads: dict[str, Extraction]) -> None:
    _, state = talk(dialog, SERVE_14B)
    reads["不要 3090"] = said(constraints=Constraints(exclude_gpus=["rtx3090"]))
    reads["也不要 4090"] = said(constraints=Constraints(exclude_gpus=["rtx4090"]))
    _, state = talk(dialog, "不要 3090", "也不要 4090", state=state)
    assert state.slots["exclude_gpus"] == ["rtx3090", "rtx4090"]


@pytest.mark.parametrize(
    ("message", "word"),
    [
        ("我手上有两张 4090D，想部署 Qwen2.5-7B 推理，10 路并发，7x24", "够用"),
        ("我手上有兩張 4090D，想部署 Qwen2.5-7B 推理，10 路並發，7x24", "够用"),
    ],
)
def test_owned_cards_that_suffice_head_the_answer(dialog: Dialog, message: str, word: str) -> None:
    reply, _ = talk(dialog, message)
    assert reply.kind == "answer" and reply.title is not None
    title = simplified(reply.title)
    assert word in title and "4090 D" in title and "推荐" not in title


def test_owned_cards_that_suffice_show_their_own_fit_and_no_rent(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "我手上有两张 4090D，想部署 Qwen2.5-7B 推理，10 路并发，7x24")
    assert reply.plan is not None and reply.plan.requested is not None
    own = reply.plan.requested
    # The fit line is the 4090 D's (23.6 GiB usable), not the rental pick's.
    assert f"/{own.capacity_gib:.0f} GiB" in reply.summary[0]
    assert reply.price is None and reply.pick is not None and "4090 D" in reply.pick


def test_owned_cards_that_do_not_suffice_are_said_before_what_to_rent(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "我手上有一张 T4，想部署 Llama-3.1-70B 推理，30 路并发，7x24")
    assert reply.kind == "answer" and any("T4" in line and "不够" in line for line in reply.lead)


# --- follow-ups on a plan ----------------------------------------------------------------------


@pytest.mark.parametrize("phrase", ["有没有更便宜的", "有沒有更便宜的", "cheaper?", "便宜点的呢"])
def test_asking_for_cheaper_on_the_cheapest_plan_says_it_is_already_the_cheapest(
    dialog: Dialog, phrase: str
) -> None:
    _, state = talk(dialog, SERVE_14B)
    reply, after = dialog.handle(state, phrase)
    assert reply.kind == "info" and ("最便宜" in reply.text or "cheapest" in reply.text)
    assert after.slots == state.slots


@pytest.mark.parametrize("phrase", ["年付能省多少", "包年能便宜多少", "how much do I save paying yearly"])
def test_the_yearly_saving_comes_from_the_catalogs_discount(dialog: Dialog, phrase: str) -> None:
    _, state = talk(dialog, SERVE_70B)
    reply, _ = dialog.handle(state, phrase)
    # 2 × ¥2,800 with 20 % off a year: ¥4,480/month, 12 × ¥1,120 = ¥13,440 (seed 000 §三 #1)
    assert reply.kind == "info" and "13,440" in reply.text


@pytest.mark.parametrize("phrase", ["要跑多久", "要多久才能訓完", "how long will it take?"])
def test_how_long_answers_the_training_jobs_hours(dialog: Dialog, phrase: str) -> None:
    _, state = talk(dialog, TRAIN_7B)
    assert state.answered
    reply, _ = dialog.handle(state, phrase)
    assert reply.kind == "info" and ("小时" in simplified(reply.text) or "hours" in reply.text)


@pytest.mark.parametrize("phrase", ["为什么不用 T4", "為什麼不用 T4", "why not a T4?"])
def test_why_not_a_card_answers_with_its_own_memory_and_price(dialog: Dialog, phrase: str) -> None:
    _, state = talk(dialog, SERVE_14B)
    reply, after = dialog.handle(state, phrase)
    assert reply.kind == "info" and "T4" in reply.text and "GiB" in reply.text
    assert "2,700" in reply.text  # the catalog's T4 at ¥2,700/month, dearer than the ¥1,750 RTX 3090
    assert "gpu" not in after.slots


@pytest.mark.parametrize("phrase", ["换成 H20 呢", "換成 H20 呢", "what about an H20?"])
def test_switching_to_a_card_reruns_the_plan_on_it(dialog: Dialog, phrase: str) -> None:
    _, state = talk(dialog, SERVE_14B)
    reply, _ = dialog.handle(state, phrase)
    assert reply.kind == "info" and "H20" in reply.text and "GiB" in reply.text


# --- language ----------------------------------------------------------------------------------


@pytest.mark.parametrize("phrase", ["7x24", "13B", "LoRA", "20 QPS"])
def test_a_chinese_conversation_stays_chinese_on_technical_words(dialog: Dialog, phrase: str) -> None:
    reply, state = talk(dialog, "我想部署一个模型", phrase)
    assert state.lang == "zh" and reply.lang == "zh"


def test_a_clearly_english_sentence_switches_the_language(dialog: Dialog) -> None:
    _, state = talk(dialog, "我想部署一个模型", "I want to serve Qwen2.5-7B for my team")
    assert state.lang == "en"


# --- the terminal's numbered buttons -----------------------------------------------------------


def test_a_bare_number_after_a_question_presses_that_choice(dialog: Dialog) -> None:
    question, _ = talk(dialog, "部署 Qwen2.5-7B 推理")
    assert question.kind == "question"
    assert button_for("2", question) == question.buttons[1].payload


@pytest.mark.parametrize("line", ["2 个人", "２", "²", " 2x", "99"])
def test_a_line_that_is_not_only_a_choice_number_is_a_message(dialog: Dialog, line: str) -> None:
    question, _ = talk(dialog, "部署 Qwen2.5-7B 推理")
    assert button_for(line, question) is None


def test_a_number_typed_after_an_answer_presses_the_answer_cards_button(dialog: Dialog) -> None:
    answer, _ = talk(dialog, SERVE_14B)
    assert answer.kind == "answer" and answer.buttons
    assert button_for("1", answer) == answer.buttons[0].payload  # issue 26: digits press any card's buttons


# --- keep it honest ----------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "words"), [("zh", "假设 4 路并发"), ("en", "assuming 4 concurrent users")])
def test_a_default_user_count_is_said_in_the_confirmation_line(dialog: Dialog, lang: str, words: str) -> None:
    state = ConversationState(lang=lang, lang_locked=True)
    reply, _ = talk(dialog, "部署 Qwen2.5-7B 推理", "/plan", state=state)
    assert reply.kind == "answer" and words in reply.lead[0]


def test_a_user_count_that_was_given_is_not_called_an_assumption(dialog: Dialog) -> None:
    reply, _ = talk(dialog, SERVE_14B)
    assert "假设" not in reply.lead[0]


@pytest.mark.parametrize("phrase", ["一共多少钱", "一共多少錢", "how much in total?"])
def test_the_price_of_a_train_then_serve_plan_adds_both_halves(dialog: Dialog, phrase: str) -> None:
    _, state = talk(dialog, "先用 LoRA 微调 Qwen2.5-7B，1亿 token，再部署上线 10 路并发")
    assert state.slots["task"] == "both" and state.answered
    reply, _ = dialog.handle(state, phrase)
    # RTX 3090 job ¥1,750 (seed 000 §三 #2) + T4 ¥900/month (seed 000 §三) in the first month
    assert reply.kind == "info" and "2,650" in reply.text and "900" in reply.text


@pytest.mark.parametrize(
    ("lang", "first", "typed"),
    [
        ("zh", "我想部署一个13B的聊天机器人", "几十人（≈16）"),
        ("zh", "我想部署一个13B的聊天机器人", "几十人"),
        ("zh", "我想部署一个13B的聊天机器人", "几十人 (≈16)"),
        ("en", "I want to serve a 13B chatbot", "Dozens"),
        ("en", "I want to serve a 13B chatbot", "dozens (≈16)"),
    ],
)
def test_a_button_label_typed_by_hand_answers_as_the_button_does(
    dialog: Dialog, lang: str, first: str, typed: str
) -> None:
    _, asked = dialog.handle(ConversationState(lang=lang), first)
    assert asked.pending == "traffic"
    _, typed_state = dialog.handle(asked, typed)
    _, pressed_state = dialog.press(asked, "q:traffic:1")
    assert typed_state.slots["concurrency"] == pressed_state.slots["concurrency"] == 16
