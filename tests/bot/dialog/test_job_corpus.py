"""Every non-LLM question of the phrasing corpus is answered as its own job, never as a chatbot.

The corpus (``tests/corpus/phrasings.jsonl``) holds questions people ask about image,
video, speech, embedding, vision and encoding jobs, each with its source; the ``holdout``
rows are kept out of tuning and are not read here. Each question is one first message:
no reply may name a language model the engine would fall back to (Llama 3.1 8B and the
rest of ``models.yaml``), and none may ask "train or serve?", the language-model flow's
first question.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.jobs.plan import JobFamily
from gpu_advisor.engine.specs import Knowledge

CORPUS = Path(__file__).parents[2] / "corpus" / "phrasings.jsonl"
NOT_JOBS = {"none", "llm_serve", "llm_train"}


def rows() -> list[dict[str, Any]]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    every = [json.loads(line) for line in lines if line.strip()]
    return [r for r in every if r["job"] not in NOT_JOBS and r["split"] != "holdout"]


QUESTIONS = rows()


def test_the_corpus_holds_every_family() -> None:
    assert {r["job"] for r in QUESTIONS} == set(get_args(JobFamily))


@pytest.mark.parametrize("row", QUESTIONS, ids=[r["text"][:40] for r in QUESTIONS])
def test_a_non_llm_question_names_no_language_model_and_never_asks_train_or_serve(
    dialog: Dialog, kb: Knowledge, row: dict[str, Any]
) -> None:
    reply, _ = dialog.handle(ConversationState(), row["text"])
    named = [m.name for m in kb.models.values() if m.name in reply.text]
    assert named == []
    assert reply.title not in {locales.t("zh", "question.task"), locales.t("en", "question.task")}
    assert reply.plan is None


def test_nearly_every_non_llm_question_is_sized_or_asked_its_one_missing_input(dialog: Dialog) -> None:
    """Sized as its job, or asked the job's own question; a few go to the buy-vs-rent answer."""
    answered = 0
    for row in QUESTIONS:
        reply, _ = dialog.handle(ConversationState(), row["text"])
        asks_job = any(b.payload.startswith("jq:") for b in reply.buttons)
        answered += reply.job is not None or asks_job
    assert answered / len(QUESTIONS) >= 0.95
