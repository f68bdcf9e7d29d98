"""Replies carry their parts (title, short answer, detail sections) and surfaces style those parts.

No surface guesses that the first line is the title: a reply that leads with what was
understood still has its question as the title, and a plain reply has no title at all.
"""

from __future__ import annotations

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply
from gpu_advisor.bot.dialog.reply import Section
from gpu_advisor.bot.discord import render as discord_render
from gpu_advisor.bot.telegram import render as telegram_render
from gpu_advisor.bot.terminal import reply_json

SHEET = "8x H100 SXM5 80GB NVLink\n2x Intel Xeon 8480+\n2TB DDR5\n8x 400G InfiniBand NDR"


@pytest.fixture(scope="module")
def dialog() -> Dialog:
    return Dialog(knowledge.load())


def talk(dialog: Dialog, *messages: str, lang: str = "en") -> Reply:
    state = ConversationState(lang=lang, lang_locked=True)
    reply = None
    for text in messages:
        reply, state = dialog.handle(state, text)
    assert reply is not None
    return reply


def test_an_answer_has_the_pick_and_price_as_title_and_leaves_details_to_the_buttons(dialog: Dialog) -> None:
    reply = talk(dialog, "serve a 13B model for 4 users 24/7", "/plan")
    assert reply.kind == "answer" and reply.plan is not None and reply.plan.recommendation is not None
    assert reply.title is not None and reply.pick and reply.price and "CN¥" in reply.price
    assert reply.pick in reply.title and reply.price in reply.title
    assert reply.summary and not reply.sections
    assert reply.text == reply.as_text() and reply.text.startswith(reply.lead[0] + "\n" + reply.title)
    assert reply.chart == "all"


def test_a_question_keeps_what_was_understood_first_but_its_title_is_the_question(dialog: Dialog) -> None:
    reply = talk(dialog, "serve a 13B model")
    assert reply.kind == "question" and reply.lead and reply.title
    assert reply.text.split("\n")[0] == reply.lead[0]  # the text reads as before: echo, then the question
    assert "?" in reply.title and reply.text.endswith(reply.title)
    assert reply.chart is None


@pytest.mark.parametrize(
    ("command", "expected_in_title"),
    [("/gpu H100", "H100"), ("/compare A100 T4", "A100"), (f"/analyze {SHEET}", "🧾")],
)
def test_cards_are_titled_by_what_they_show(dialog: Dialog, command: str, expected_in_title: str) -> None:
    reply = talk(dialog, command)
    assert reply.kind == "card" and reply.title is not None and expected_in_title in reply.title
    assert reply.text == reply.as_text()


def test_why_and_cost_are_structured_too(dialog: Dialog) -> None:
    state = ConversationState(lang="en", lang_locked=True)
    _, state = dialog.handle(state, "serve a 7B model for 4 users 24/7")
    _, state = dialog.handle(state, "/plan")
    why, _ = dialog.handle(state, "/why")
    cost, _ = dialog.handle(state, "/cost")
    everything, _ = dialog.handle(state, "/why all")
    assert {"reasoning"} <= {s.id for s in why.sections}
    assert {"reasoning", "assumptions"} <= {s.id for s in everything.sections}
    assert cost.title is not None and cost.sections and cost.title not in cost.body()


def test_text_that_disagrees_with_the_parts_is_refused() -> None:
    with pytest.raises(ValueError, match="disagrees"):
        Reply(kind="answer", lang="en", title="Rent this", summary=["a"], text="Something else")


def test_a_plain_reply_keeps_its_text_and_has_no_title() -> None:
    reply = Reply(kind="info", lang="en", text="first line\nsecond line")
    assert reply.title is None and not reply.structured and reply.body() == reply.text


def test_telegram_bolds_the_title_and_headings_not_the_first_line() -> None:
    reply = Reply(
        kind="question",
        lang="en",
        lead=["Got it: <13B>"],
        title="How many users?",
        sections=[Section(id="pitfalls", heading="Watch out:", bullet="⚠", lines=["a<b"])],
    )
    html = telegram_render.to_html(reply)
    assert html == "Got it: &lt;13B&gt;\n<b>How many users?</b>\n<b>Watch out:</b>\n⚠ a&lt;b"
    plain = Reply(kind="info", lang="en", text="<script>\nline two")
    assert telegram_render.to_html(plain) == "&lt;script&gt;\nline two"


def test_telegram_inline_card_takes_its_title_and_description_from_the_parts(dialog: Dialog) -> None:
    reply = dialog.quick("70B int4 inference 24/7", "en")
    assert reply.title is not None
    assert telegram_render.inline_title(reply) == reply.title
    assert telegram_render.inline_description(reply) == " · ".join(reply.summary[:2])
    bare = Reply(kind="error", lang="en", text="not understood")
    assert telegram_render.inline_title(bare) == telegram_render.INLINE_FALLBACK_TITLE


def test_discord_embed_title_is_the_replys_title_and_is_not_repeated_below() -> None:
    reply = Reply(kind="question", lang="en", lead=["Got it: 13B"], title="How many users?")
    (page,) = discord_render.messages(reply)
    assert page[0].title == "How many users?" and page[0].description == "Got it: 13B"
    (plain,) = discord_render.messages(Reply(kind="info", lang="en", text="first\nsecond"))
    assert plain[0].title is None and plain[0].description == "first\nsecond"


def test_the_json_contract_keeps_text_and_adds_the_parts(dialog: Dialog) -> None:
    reply = talk(dialog, "serve a 13B model for 4 users 24/7", "/plan", "/why")
    out = reply_json(reply)
    assert out["text"] == reply.text and out["title"] == reply.title and out["chart"] == "all"
    assert out["sections"][0] == {
        "id": "reasoning",
        "heading": reply.sections[0].heading,
        "bullet": "•",
        "lines": reply.sections[0].lines,
        "code": False,
    }


def _commands_reply() -> Reply:
    command = "vllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 1 --max-model-len 4096"
    return Reply(
        kind="info",
        lang="en",
        title="How to run it",
        sections=[
            Section(id="launch_0", heading="vLLM:", bullet="", lines=[command, "a_b*c <x>"], code=True),
            Section(id="notes", heading="Notes:", lines=["replace YOUR_DATASET"]),
        ],
    )


def test_telegram_shows_a_command_section_as_one_pre_block_to_copy() -> None:
    html_text = telegram_render.to_html(_commands_reply())
    assert (
        "<pre>vllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 1 --max-model-len 4096\na_b*c &lt;x&gt;</pre>"
        in html_text
    )
    assert "• replace YOUR_DATASET" in html_text


def test_discord_shows_a_command_section_as_a_code_block_left_unescaped() -> None:
    [[embed]] = discord_render.messages(_commands_reply())
    description = embed.description or ""
    assert (
        "```\nvllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 1 --max-model-len 4096\na_b*c <x>\n```"
        in description
    )
    assert "\\_" not in description.split("```")[1]  # no markdown escapes inside the block


def test_the_answer_offers_its_launch_commands_as_a_code_section(dialog: Dialog) -> None:
    reply, state = dialog.handle(ConversationState(lang="en"), "serve qwen2.5-7b, concurrency 8, 24/7")
    assert any(b.payload == "/cmd" for b in reply.buttons)
    commands, _ = dialog.handle(state, "/cmd")
    code = [line for s in commands.sections if s.code for line in s.lines]
    # the plan picks INT8: the published W8A8 release of the instruct model (knowledge/checkpoints.yaml)
    assert any(line.startswith("vllm serve ") and "Qwen2.5-7B-Instruct" in line for line in code)
