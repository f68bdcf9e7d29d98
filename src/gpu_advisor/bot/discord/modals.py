"""Text typed into a pop-up form: the next answer in a conversation, or a pasted server sheet.

A slash command's text option is one line: a sheet pasted into ``/analyze`` loses its line
breaks, and answering the dialog meant typing ``/advise`` every turn. A modal's paragraph
input keeps the lines, and a "continue" button on each reply opens one
(``bot.discord.views.ContinueButton``). What was typed goes to the client's ``on_text``
(the bot hands it to the one turn), as if it had been typed after the command it stands for.
Modals live in memory only while they are open; nothing in them needs to survive a restart.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol, runtime_checkable

import discord

from gpu_advisor import locales

log = logging.getLogger(__name__)
TITLE, LABEL, PLACEHOLDER = 45, 45, 100  # Discord's limits on a modal's title and an input's words
ANSWER_MAX, SHEET_MAX = 2000, 4000


@runtime_checkable
class TextHandler(Protocol):
    """What the client behind an interaction must offer for a modal's text to reach the dialog."""

    async def on_text(self, interaction: discord.Interaction[Any], text: str) -> None: ...


class TextModal(discord.ui.Modal):
    """One paragraph input; on submit, ``prefix`` + what was typed goes to the client's ``on_text``."""

    def __init__(
        self, title: str, label: str, max_length: int, prefix: str = "", placeholder: str = ""
    ) -> None:
        super().__init__(title=title[:TITLE], timeout=None)
        self.prefix = prefix
        self.text: discord.ui.TextInput[TextModal] = discord.ui.TextInput(
            label=label[:LABEL],
            style=discord.TextStyle.paragraph,
            max_length=max_length,
            placeholder=placeholder[:PLACEHOLDER] or None,
        )
        self.add_item(self.text)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        if isinstance(client, TextHandler):
            await client.on_text(interaction, self.prefix + self.text.value)
        else:
            log.warning("modal submitted on a client that cannot handle it")


def next_answer(lang: str) -> TextModal:
    """The form behind "continue": the answer to the last question, or a correction."""
    return TextModal(
        locales.t(lang, "surface.continue_title"),
        locales.t(lang, "surface.continue_label"),
        ANSWER_MAX,
        placeholder=locales.t(lang, "surface.continue_placeholder"),
    )


def sheet(lang: str) -> TextModal:
    """The form behind ``/analyze``: a configuration sheet, pasted with its lines."""
    return TextModal(
        locales.t(lang, "surface.analyze_title"),
        locales.t(lang, "surface.analyze_label"),
        SHEET_MAX,
        "/analyze ",
    )
