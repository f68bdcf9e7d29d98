"""What Discord says about itself: /help names its slash commands only, charts by a button,
"share" shares what is on screen, /analyze names cards. Real discord.py against the loopback fake.
"""

# ruff: noqa: F811  (``fake`` is the fixture imported from test_discord_bot)
from __future__ import annotations

import re
from pathlib import Path

from gpu_advisor.bot.discord import render
from tests.fakes.discord_api import EPHEMERAL, FakeDiscord
from tests.test_discord_bot import buttons, fake, running, shown_text, title  # noqa: F401  (fixture)

SHEET = "2x NVIDIA A100 80GB SXM, 2x Xeon 8380, 1 TB DDR4, NVLink, liquid cooling"
ASK = "部署 7B，7×24，并发 4"


async def test_help_names_only_the_registered_slash_commands_and_how_a_server_works(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    lee, mei = fake.user(2101, "lee", locale="en-US"), fake.user(2102, "mei", locale="zh-CN")
    async with running(fake, tmp_path):
        said = [(await fake.replies(await fake.slash(who, "help")))[0] for who in (lee, mei)]
        registered = {c["name"] for c in fake.commands(guild=True)}
    for reply in said:
        text = shown_text(reply).replace("\\", "")
        advertised = set(re.findall(r"(?<![\w@])/([a-z]+)", text))
        assert advertised and advertised <= registered, advertised - registered  # no /alt, /whatif, /cmd
        assert reply["flags"] & EPHEMERAL
    assert "Share in channel" in shown_text(said[0]) and "分享到频道" in shown_text(said[1])


async def test_the_chart_button_on_an_answer_uploads_the_plans_chart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    ned = fake.user(2103, "ned", locale="en-US")
    async with running(fake, tmp_path):
        (answer,) = await fake.replies(await fake.slash(ned, "advise", text=ASK))
        press = await fake.click(ned, answer, "gpuadv:" + render.CHART_PAYLOAD)
        (chart,) = await fake.replies(press)
    (upload,) = [c for c in fake.calls_of("edit_original") if c.files]
    assert upload.files[render.CHART_FILE][:4] == b"\x89PNG"
    assert chart["embeds"][0]["image"]["url"] == f"attachment://{render.CHART_FILE}"


async def test_share_posts_the_alternatives_when_the_alternatives_are_on_screen(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    oli = fake.user(2104, "oli", locale="en-US")
    async with running(fake, tmp_path):
        (answer,) = await fake.replies(await fake.slash(oli, "advise", text=ASK))
        (alternatives,) = await fake.replies(await fake.click(oli, answer, "gpuadv:/alt"))
        share = await fake.click(oli, alternatives, "gpuadv:share:/alt")
        (public,) = await fake.replies(share)
    assert "gpuadv:share:/plan" not in buttons(alternatives)
    assert not public["flags"] & EPHEMERAL and title(public) == title(alternatives) != title(answer)


async def test_analyze_names_the_card_and_the_interconnect_not_their_ids(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    pat = fake.user(2105, "pat", locale="en-US")
    async with running(fake, tmp_path):
        (reply,) = await fake.replies(await fake.slash(pat, "analyze", sheet=SHEET))
    text = shown_text(reply)
    assert "A100 80GB" in text and "NVLink" in text and "a100-80g-sxm" not in text
