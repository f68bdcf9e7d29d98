"""The user's spelling of a model is kept for the whole conversation (bot.dialog.spelling).

Someone who wrote "llama-3.1-8b" or "SDXL" reads that name back in the reply to that
message, and also after answering a question with a button, after ``/why`` and in a later
turn; the conversation stores it (``ConversationState.spelled``), so a restart that reloads
the state from JSON keeps it too. The JSON keeps the catalog id; ``/new`` forgets.
"""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog
from tests.dialogs import talk


def _press_through(dialog: Dialog, text: str) -> tuple[str, ConversationState]:
    """Send ``text``, then press each question's first button until the plan comes."""
    reply, state = talk(dialog, text)
    while reply.kind == "question":
        reply, state = dialog.press(state, reply.buttons[0].payload)
    assert reply.kind == "answer", reply.text
    return reply.text, state


def test_a_button_answer_names_the_llm_as_typed(dialog: Dialog) -> None:
    said, _ = _press_through(dialog, "部署 llama-3.1-8b 给团队用")
    assert "llama-3.1-8b" in said and "Llama 3.1 8B" not in said


def test_a_later_turn_names_the_llm_as_typed(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 Mistral-7B，并发 12，7x24")
    reply, _ = talk(dialog, "并发改成 30 呢", state=state)
    assert "Mistral-7B" in reply.text and "Mistral 7B v0.1" not in reply.text


def test_the_spelling_survives_the_state_stored_as_json(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 Mistral-7B，并发 12，7x24")
    stored = ConversationState.model_validate_json(state.model_dump_json())
    reply, _ = talk(dialog, "/plan", state=stored)
    assert "Mistral-7B" in reply.text and reply.requirements["model"] == "mistral-7b"


def test_a_job_question_answered_by_button_names_the_model_as_typed(dialog: Dialog) -> None:
    asked, state = talk(dialog, "SDXL 租什么卡")
    assert asked.kind == "question"
    reply, _ = dialog.press(state, asked.buttons[1].payload)
    assert reply.job is not None and reply.job.model == "Stable Diffusion XL 1.0"
    assert "SDXL" in reply.text and "Stable Diffusion XL 1.0" not in reply.text


def test_a_new_conversation_forgets_the_spelling(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 Mistral-7B，并发 12，7x24", "/new")
    assert state.spelled == {}
