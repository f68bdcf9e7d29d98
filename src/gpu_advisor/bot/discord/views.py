"""Quick replies as buttons that keep working after a restart.

Every button's custom_id is ``gpuadv:`` + the dialog payload (≤ 64 ASCII bytes by
``bot.dialog.reply``, so ≤ 71 of Discord's 100 characters). Which payloads exist is
the core's business, not ours, so instead of a fixed persistent View listing every
possible custom_id we register one :class:`discord.ui.DynamicItem` whose template
matches them all (``bot.add_dynamic_items`` at startup): a click on a message sent by
an earlier process is rebuilt from its custom_id and routed to the bot, which loads the
clicker's stored state. Views have ``timeout=None``: nothing expires in memory.
A "continue" button (``ContinueButton``, custom_id ``gpuadv-next``) opens a form for the
next answer (``bot.discord.modals``), so nobody retypes ``/advise`` each turn.

Layout limits: 5 buttons per row, 5 rows, labels of 80 characters.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol, Self, runtime_checkable

import discord

from gpu_advisor import locales
from gpu_advisor.bot.dialog import Button
from gpu_advisor.bot.discord import modals
from gpu_advisor.text.normalize import client_lang

log = logging.getLogger(__name__)
PREFIX = "gpuadv:"
CONTINUE = "gpuadv-next"
SHARE = "share:"
MAX_CUSTOM_ID, MAX_LABEL, PER_ROW, MAX_BUTTONS = 100, 80, 5, 25


@runtime_checkable
class PressHandler(Protocol):
    """What the client behind an interaction must offer for a button press to reach it."""

    async def on_press(self, interaction: discord.Interaction[Any], payload: str) -> None: ...


class PayloadButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"gpuadv:(?P<payload>.+)"
):
    """One quick reply; its only state is the payload inside its custom_id."""

    def __init__(
        self,
        payload: str,
        label: str,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label[:MAX_LABEL] or "?", custom_id=PREFIX + payload, style=style
        )
        super().__init__(button, row=row)
        self.payload = payload

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        label = item.label if isinstance(item, discord.ui.Button) else None
        return cls(match["payload"], label or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        client = interaction.client
        if isinstance(client, PressHandler):
            await client.on_press(interaction, self.payload)
        else:
            log.warning("button %r pressed on a client that cannot handle it", self.payload)


class ContinueButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=CONTINUE):
    """Opens the form for the next answer, in the clicker's language; it carries no state."""

    def __init__(self, label: str = "…") -> None:
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label[:MAX_LABEL], custom_id=CONTINUE, style=discord.ButtonStyle.success
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(item.label if isinstance(item, discord.ui.Button) and item.label else "…")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        lang = client_lang(interaction.locale.value)
        await interaction.response.send_modal(modals.next_answer(lang))


def quick_replies(
    buttons: list[Button], lang: str, share: str | None = None, more: bool = False
) -> discord.ui.View | None:
    """The reply's buttons, five to a row, then "continue" (``more``) and "share" (replaying ``share``)."""
    items: list[discord.ui.Item[Any]] = [
        _item(b) for b in buttons if getattr(b, "url", None) or fits(b.payload)
    ]
    if more:
        items = [*items[: MAX_BUTTONS - 2], ContinueButton(locales.t(lang, "surface.continue"))]
    if share is not None and fits(SHARE + share):
        label = locales.t(lang, "discord.share")
        items = [*items[: MAX_BUTTONS - 1], PayloadButton(SHARE + share, label, discord.ButtonStyle.primary)]
    if not items:
        return None
    view = discord.ui.View(timeout=None)
    for i, item in enumerate(items[:MAX_BUTTONS]):
        item.row = i // PER_ROW
        view.add_item(item)
    return view


def _item(button: Button) -> discord.ui.Item[Any]:
    """A quick reply, or a link button where the reply's button has a ``url`` (an offer's order page)."""
    url: str | None = getattr(button, "url", None)
    if url:
        return discord.ui.Button(label=button.label[:MAX_LABEL] or "?", url=url)
    return PayloadButton(button.payload, button.label)


def fits(payload: str) -> bool:
    if len(PREFIX + payload) <= MAX_CUSTOM_ID:
        return True
    log.warning("button payload too long for a custom_id, left out: %r", payload[:40])
    return False
