"""Concept and myth questions get a direct answer with numbers (issue 17), not "模型多大？".

Generated from ``engine.concepts.CONCEPTS`` and the example questions ``reading.concepts``
keeps for each: every concept hears its example questions
(Simplified, Traditional, English), answers first with a figure from ``knowledge/``, in
the user's language, with an offer to size and no rental plan. Golden figures: T4
320 GB/s and RTX 3090 936 GB/s (NVIDIA datasheets, knowledge/gpus.yaml), A100 NVLink
600 GB/s (A100 datasheet), T4 INT8 130 TOPS (T4 datasheet).
"""

from __future__ import annotations

import re
import string

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.reply import Reply
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.concepts import CONCEPTS, Asked, Concept
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.concepts import EXAMPLES as HEARD
from gpu_advisor.reading.concepts import find
from gpu_advisor.reading.requirements import normalize
from gpu_advisor.text.normalize import language_of
from tests.dialogs import simplified

CJK = re.compile(r"[\u4e00-\u9fff]")
EXAMPLES = [pytest.param(c, e, id=f"{c.id}-{i}") for c in CONCEPTS for i, e in enumerate(HEARD[c.id])]


def _ask(dialog: Dialog, text: str) -> Reply:
    return dialog.handle(ConversationState(), text)[0]


@pytest.mark.parametrize(("concept", "example"), EXAMPLES)
def test_each_concept_hears_its_example_questions(concept: Concept, example: str) -> None:
    assert find(normalize(example)) == concept.id


@pytest.mark.parametrize(("concept", "example"), EXAMPLES)
def test_a_concept_question_is_answered_first_with_a_number(
    dialog: Dialog, concept: Concept, example: str
) -> None:
    reply = _ask(dialog, example)
    first = reply.as_text().splitlines()[0]
    assert re.search(r"\d", first) and reply.plan is None
    assert bool(CJK.search(first)) == (language_of(example) == "zh")


@pytest.mark.parametrize(("concept", "example"), EXAMPLES)
def test_a_concept_answer_ends_with_an_offer_to_size(dialog: Dialog, concept: Concept, example: str) -> None:
    reply = _ask(dialog, example)
    assert simplified(reply.summary[-1]) == locales.t(reply.lang, "faq.offer")  # in the asker's script
    assert [b.payload for b in reply.buttons] == ["/plan"]


@pytest.mark.parametrize("lang", locales.LANGS)
@pytest.mark.parametrize("concept", CONCEPTS, ids=lambda c: c.id)
def test_every_concept_sentence_uses_only_facts_it_computes(
    concept: Concept, lang: str, kb: Knowledge
) -> None:
    template = locales.messages(lang)[f"concept.{concept.id}"]
    fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    assert fields <= set(concept.facts(kb, Asked()))
    assert "?" not in locales.t(lang, f"concept.{concept.id}", **concept.facts(kb, Asked()))


def test_t4_or_3090_cites_both_bandwidths_from_the_datasheets(dialog: Dialog) -> None:
    first = _ask(dialog, "T4 or 3090 for serving?").as_text().splitlines()[0]
    assert "936 GB/s" in first and "320 GB/s" in first and first.startswith("For Llama 3.1 8B with 8 users")


def test_nvlink_for_inference_names_tensor_parallelism(dialog: Dialog) -> None:
    first = _ask(dialog, "NVLink 对推理有帮助吗？").as_text().splitlines()[0]
    assert first.startswith("NVLink 只在一个模型拆到多张卡") and "600 GB/s" in first


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("T4 的 INT8 真的有 65 TOPS 吗？", "130 TOPS"),
        ("T4 的 INT8 真的有 65 TOPS 嗎？", "130 TOPS"),
        ("is A100 NVLink really 900 GB/s?", "600 GB/s"),
        ("A100 的 NVLink 是 900 GB/s 吗?", "600 GB/s"),
    ],
)
def test_a_myth_question_is_answered_by_its_myth_rule(dialog: Dialog, text: str, expect: str) -> None:
    reply = _ask(dialog, text)
    assert expect in reply.as_text().splitlines()[0] and reply.plan is None


@pytest.mark.parametrize("text", ["405B Q4 一张 H100 能跑吗", "can one H100 run llama 3.1 405b q4?"])
def test_405b_q4_on_one_h100_is_answered_no_with_the_weight_size(dialog: Dialog, text: str) -> None:
    first = _ask(dialog, text).as_text().splitlines()[0]
    assert ("不能" in first or ": no" in first) and reply_has_gib(dialog, text)


def reply_has_gib(dialog: Dialog, text: str) -> bool:
    return re.search(r"\d+(\.\d)? GiB", _ask(dialog, text).as_text()) is not None


@pytest.mark.parametrize(
    "text",
    ["serve llama 70b with nvlink machines for 50 users", "我想微调一个7B模型，预算一万", "t4"],
)
def test_a_requirement_that_mentions_a_concept_word_is_not_a_concept_answer(
    dialog: Dialog, text: str
) -> None:
    reply = _ask(dialog, text)
    assert not any(reply.as_text().startswith(locales.t(reply.lang, f"concept.{c.id}")[:6]) for c in CONCEPTS)
