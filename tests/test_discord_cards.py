"""Discord shows the answer as a card: embed fields for its facts, a "continue" form, /analyze by form.

Driven through the real ``bot.start()`` against the loopback REST + gateway server.
"""

# ruff: noqa: F811  (``fake`` is the fixture imported from test_discord_bot)
from __future__ import annotations

from pathlib import Path

from gpu_advisor import locales
from gpu_advisor.bot.dialog import Reply
from gpu_advisor.bot.discord import render
from gpu_advisor.bot.discord.views import CONTINUE
from tests.fakes.discord_api import FakeDiscord, Json
from tests.test_discord_bot import buttons, fake, running  # noqa: F401  (the fixture)

SHEET = "型号: 2x NVIDIA A100 80GB SXM\nCPU: 2x Xeon 8380\n内存: 1 TB DDR4\n硬盘: 4x 3.84 TB NVMe"


def fields(message: Json) -> dict[str, str]:
    return {f["name"]: f["value"] for f in message["embeds"][0].get("fields", [])}


def test_an_answer_card_lays_its_facts_out_as_fields_not_a_paragraph() -> None:
    reply = Reply(
        kind="answer",
        lang="en",
        title="✅ 1× T4 · $120/mo",
        pick="✅ 1× T4",  # the core states its pick and price; no surface takes a title apart
        price="$120/mo",
        summary=["INT8 weights · vLLM · ~24 tokens/s per stream"],
        footer=["Type /why for the reasoning."],
    )
    ((embed,),) = render.messages(reply)
    got = {f.name: f.value for f in embed.fields}
    assert got == {
        "Pick": "✅ 1× T4",
        "Price": "$120/mo",
        "Fit": "INT8 weights · vLLM",
        "Speed": "\\~24 tokens/s per stream",
    }
    assert embed.title == "✅ 1× T4 · $120/mo" and "INT8" not in (embed.description or "")


def test_a_verdict_is_not_taken_apart_into_a_pick_and_a_price() -> None:
    # "… · LoRA 能 · QLoRA 能" once came out as the price "QLoRA 能": a verdict picks nothing.
    reply = Reply(
        kind="answer",
        lang="zh",
        title="1 张 RTX 4090 D 训 7B：全参微调 不能 · LoRA 能 · QLoRA 能",
        summary=["LoRA：能，16.8/22.5 GiB"],
    )
    ((embed,),) = render.messages(reply)
    assert not embed.fields and "LoRA：能" in (embed.description or "")


def test_a_question_keeps_its_paragraph() -> None:
    reply = Reply(kind="question", lang="en", title="How many users at once?", summary=["e.g. 16"])
    ((embed,),) = render.messages(reply)
    assert not embed.fields and embed.description == "e.g. 16"


async def test_the_answer_embed_has_pick_price_fit_and_speed_fields(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    alice = fake.user(2001, "alice", locale="zh-CN")
    async with running(fake, tmp_path):
        ask = await fake.slash(alice, "advise", text="部署 7B，7×24，并发 4")
        (answer,) = await fake.replies(ask)
    got = fields(answer)
    names = [locales.t("zh", f"surface.{n}") for n in ("pick", "price", "fit", "speed")]
    assert set(got) == set(names) and "¥" in got[names[1]] and "token/s" in got[names[3]]


async def test_continue_opens_a_form_whose_answer_is_the_next_turn(fake: FakeDiscord, tmp_path: Path) -> None:
    bob = fake.user(2002, "bob", locale="zh-CN")
    async with running(fake, tmp_path):
        ask = await fake.slash(bob, "advise", text="我想部署一个13B的模型")
        (question,) = await fake.replies(ask)
        assert CONTINUE in buttons(question)
        opened = await fake.click(bob, question, CONTINUE)
        await fake.wait_for("callback", count=2)
        assert opened.callback == 9 and opened.modal is not None
        (text_input,) = opened.modal["components"][0]["components"]
        assert text_input["style"] == 2  # a paragraph
        sent = await fake.submit(opened, **{text_input["custom_id"]: "并发 8\n7×24"})
        (answer,) = await fake.replies(sent)
    assert "¥" in str(answer["embeds"][0].get("title", "")) and sent.callback == 5


async def test_analyze_without_a_sheet_opens_a_form_that_keeps_the_sheets_lines(
    fake: FakeDiscord,
    tmp_path: Path,
) -> None:
    carol = fake.user(2003, "carol", locale="zh-CN")
    async with running(fake, tmp_path):
        opened = await fake.slash(carol, "analyze")
        await fake.wait_for("callback")
        assert opened.modal is not None
        (text_input,) = opened.modal["components"][0]["components"]
        assert text_input["style"] == 2 and text_input["max_length"] == 4000
        sent = await fake.submit(opened, **{text_input["custom_id"]: SHEET})
        (card,) = await fake.replies(sent)
    shown = str(card["embeds"][0].get("title", "")) + str(card["embeds"][0].get("description", ""))
    assert "A100 80GB" in shown and "15.36 TB" in shown  # the GPU line and the last line, both read
