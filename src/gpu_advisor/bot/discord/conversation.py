"""One turn of a conversation over an interaction: acknowledge, think, answer, remember.

Discord wants every interaction acknowledged within 3 seconds, so each turn defers
first (a "thinking…" message for commands, a silent update for a quick reply that
replaces its question) and only then takes the one turn every surface takes
(``bot.turn.Turn``: rate limit, dialog, save, plan log, wherever its executor runs it)
and edits the acknowledgement into the answer; what does not fit one message
follows as follow-ups. In a server replies are ephemeral (only the asker sees them) and
answers carry a "share" button that posts them publicly; in DMs nothing is ephemeral.
Questions and answers carry a "continue" button whose form (``bot.discord.modals``) takes
the next answer; what a form submits is a turn like a command's text.

State is per (channel, user) in the shared store, platform ``discord``. A failure is
logged once with the interaction's context, the user is told politely in their
language, and their stored state stays as it was before the failed turn.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from gpu_advisor import locales
from gpu_advisor.bot.admission import Overloaded
from gpu_advisor.bot.dialog import Reply
from gpu_advisor.bot.dialog.state import Lang
from gpu_advisor.bot.discord import render
from gpu_advisor.bot.discord.views import SHARE, quick_replies
from gpu_advisor.bot.surface import converse
from gpu_advisor.bot.turn import Turn, Turned
from gpu_advisor.bot.turn_calls import Chart, Chat
from gpu_advisor.bot.turn_calls import Lang as LangOf
from gpu_advisor.text.normalize import client_lang

log = logging.getLogger(__name__)
PLATFORM = "discord"
Interaction = discord.Interaction[Any]
# What "share" replays: the view the user is looking at (the plan, or one of its details).
SHARED_COMMANDS = ("/why", "/why all", "/cost", "/alt", "/whatif", "/cmd", "/order")
CONTINUED = ("question", "answer")  # replies the conversation goes on from: they get "continue"


@dataclass(frozen=True)
class Asked:
    """Where a reply goes: the interaction, what it asked (the text a "share" button replays)
    and whether it is a shared replay (public, signed, without buttons)."""

    interaction: Interaction
    invoked: str
    shared: bool = False


class Conversations:
    """Everyone's conversations with the bot: interactions in, the one turn, embeds out.

    The Discord surface (``bot.surface.Surface``): a reply edits the interaction's
    acknowledgement. Discord shows no charts (yet): an embed's picture needs an upload.
    """

    platform = PLATFORM

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    def pictures(self, where: Asked) -> bool:
        return False

    async def show(self, where: Asked, turned: Turned) -> Reply:
        interaction, reply = where.interaction, turned.reply
        if where.shared:
            # No buttons in public: another member's click would act on their own conversation.
            reply = reply.model_copy(update={"buttons": []})
            footer = locales.t(reply.lang, "discord.shared_by", name=interaction.user.display_name)
            await deliver(interaction, reply, ephemeral=False, footer=footer)
            return reply
        reply = render.with_chart_button(reply)
        private = is_private(interaction)
        share = None if private else share_command(where.invoked, reply)
        more = reply.kind in CONTINUED
        await deliver(interaction, reply, ephemeral=not private, share=share, more=more)
        return reply

    # --- entry points ---------------------------------------------------------------
    async def command(self, interaction: Interaction, text: str) -> None:
        """A slash command, passed to the core as the text it stands for ("/plan", "/gpu H100"),
        or what a form submitted (the next answer, a pasted sheet)."""

        async def ack() -> None:
            await interaction.response.defer(ephemeral=not is_private(interaction), thinking=True)

        what = f"/{interaction.command.name}" if interaction.command else "form"
        await self._serve(interaction, what, ack, self._turn_for(text))

    async def press(self, interaction: Interaction, payload: str) -> None:
        """A quick reply: an answer to the question replaces it; a command ("/why") answers anew."""
        if payload.startswith(SHARE):
            await self._serve(interaction, "share", lambda: _defer_public(interaction), self._share(payload))
            return
        if payload == render.CHART_PAYLOAD:
            await self._serve(interaction, "chart", lambda: _defer_own(interaction), self._chart)
            return
        in_place = not payload.startswith("/")

        async def ack() -> None:
            if in_place:
                await interaction.response.defer()  # the question is edited into what follows
            else:
                await interaction.response.defer(ephemeral=not is_private(interaction), thinking=True)

        await self._serve(interaction, f"button {payload[:32]}", ack, self._turn_for(payload, pressed=True))

    async def say(self, interaction: Interaction, key: str) -> None:
        """A fixed text of this surface (its /help), in the conversation's language; past the rate
        limit the turn's "slow down" instead, as for any other command."""

        async def work(interaction: Interaction) -> None:
            chat, turn = chat_of(interaction), self.turn
            allowed = turn.limiter is None or turn.limiter.allow((chat.chat_id, chat.user_id))
            said = await turn.say(chat, key if allowed else "dialog.slow_down")
            if said is not None:
                await deliver(interaction, said, ephemeral=not is_private(interaction))

        await self._serve(interaction, f"say {key}", lambda: _defer_own(interaction), work)

    async def _chart(self, interaction: Interaction) -> None:
        """The 📊 button: the plan's chart uploaded under its card (the conversation untouched)."""
        chat = chat_of(interaction)
        lang = await self.turn.ask(LangOf(chat)) or lang_of(interaction.locale)
        try:  # a chart is a worker's time like a turn: admitted like one
            async with self.turn.admitted(self.turn.client(chat)):
                png = await self.turn.ask(Chart(chat))
        except Overloaded as exc:
            busy = render.escape(locales.t(lang, "hardening.overloaded", seconds=exc.retry_after))
            await interaction.edit_original_response(embed=discord.Embed(description=busy))
            return
        if png is None:
            text = render.escape(locales.t(lang, "surfaces.no_chart"))
            await interaction.edit_original_response(embed=discord.Embed(description=text))
            return
        picture = discord.File(io.BytesIO(png), filename=render.CHART_FILE)
        await interaction.edit_original_response(embed=render.chart_embed(lang), attachments=[picture])

    # --- steps ----------------------------------------------------------------------
    async def _serve(
        self,
        interaction: Interaction,
        what: str,
        ack: Callable[[], Awaitable[None]],
        work: Callable[[Interaction], Awaitable[None]],
    ) -> None:
        try:
            await ack()
            await work(interaction)
        except Exception:
            log.exception(
                "discord %s failed (interaction %s, guild %s, channel %s, user %s)",
                what,
                interaction.id,
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
            )
            await self.apologise(interaction)

    def _turn_for(self, text: str, pressed: bool = False) -> Callable[[Interaction], Awaitable[None]]:
        async def work(interaction: Interaction) -> None:
            # Interactions carry no update id, so none is redelivered: every turn is shown.
            where, chat = Asked(interaction, text), chat_of(interaction)
            if pressed:
                await converse(self, where, chat, button=text)
            else:
                await converse(self, where, chat, text)

        return work

    def _share(self, payload: str) -> Callable[[Interaction], Awaitable[None]]:
        """Replay the command behind an answer publicly, signed; a replay changes no state."""
        command = payload[len(SHARE) :]

        async def work(interaction: Interaction) -> None:
            await converse(
                self, Asked(interaction, command, shared=True), chat_of(interaction), command, save=False
            )

        return work

    # --- apologies ----------------------------------------------------------------------
    async def apologise(self, interaction: Interaction) -> None:
        """Say sorry in the user's language; if even that fails, the log already has the error."""
        try:
            lang = await self.turn.ask(LangOf(chat_of(interaction))) or lang_of(interaction.locale)
        except Exception:
            lang = lang_of(interaction.locale)
        embed = discord.Embed(
            description=render.escape(locales.t(lang, "dialog.error_generic")), colour=render.COLOURS["error"]
        )
        ephemeral = not is_private(interaction)
        try:
            if interaction.response.is_done():
                await interaction.followup.send(embed=embed, ephemeral=ephemeral)
            else:
                await interaction.response.send_message(embed=embed, ephemeral=ephemeral)
        except discord.DiscordException as exc:
            log.warning("could not tell the user about the error (interaction %s): %r", interaction.id, exc)


async def deliver(
    interaction: Interaction,
    reply: Reply,
    ephemeral: bool,
    share: str | None = None,
    footer: str | None = None,
    more: bool = False,
) -> None:
    """Edit the acknowledgement into the first page; further pages follow, buttons on the last."""
    pages = render.messages(reply, footer)
    view = quick_replies(reply.buttons, reply.lang, share, more)
    await interaction.edit_original_response(embeds=pages[0], view=view if len(pages) == 1 else None)
    for number, page in enumerate(pages[1:], start=2):
        if number == len(pages) and view is not None:
            await interaction.followup.send(embeds=page, view=view, ephemeral=ephemeral, wait=True)
        else:
            await interaction.followup.send(embeds=page, ephemeral=ephemeral, wait=True)


async def _defer_own(interaction: Interaction) -> None:
    await interaction.response.defer(ephemeral=not is_private(interaction), thinking=True)


async def _defer_public(interaction: Interaction) -> None:
    await interaction.response.defer(thinking=True)


def share_command(invoked: str, reply: Reply) -> str | None:
    """What "share" replays publicly: the plan (or its /why, /cost), or the command behind a card."""
    if reply.kind == "answer":
        return invoked if invoked in SHARED_COMMANDS else "/plan"
    if reply.kind == "card" and invoked.startswith("/"):
        return invoked
    return None


def chat_of(interaction: Interaction) -> Chat:
    """State is per (channel, user); a first conversation speaks the client's language."""
    return Chat(interaction.channel_id or 0, interaction.user.id, interaction.locale.value)


def is_private(interaction: Interaction) -> bool:
    """A DM (or group DM): nobody else to hide from, nobody to share with."""
    return interaction.guild_id is None


def lang_of(locale: discord.Locale) -> Lang:
    return client_lang(locale.value)
