"""The Telegram surface (``bot.surface.Surface``): where a reply goes, and how it is shown there.

A reply goes to a message (sent as HTML chunks under 4096, the quick replies on the
last one, quoting the asker in a group) or to a pressed button (the question is
edited in place into what follows, or answered anew when it no longer fits one
message). A chart follows a reply in a private chat only: in a group it would flood
everyone. Which messages in a group are meant for the bot is read here too: a
mention or a reply to one of its messages.
"""

from __future__ import annotations

from telegram import CallbackQuery, Message
from telegram.constants import ChatType, ParseMode

import locales
from bot.dialog import Reply
from bot.telegram import render
from bot.telegram.send import reply_html, with_retry
from bot.turn import Turn, Turned

PLATFORM = "telegram"
GROUPS = (ChatType.GROUP, ChatType.SUPERGROUP)
Where = Message | CallbackQuery


class TelegramChats:
    """Everyone's chats with the bot: a message or a button press in, the reply sent or edited in."""

    platform = PLATFORM

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    def pictures(self, where: Where) -> bool:
        return isinstance(where, Message) and not in_group(where)

    async def show(self, where: Where, turned: Turned) -> Reply:
        if isinstance(where, CallbackQuery):
            await _edit(where, turned.reply)
            return turned.reply
        await send(where, turned.reply, group=in_group(where))
        if turned.chart is not None:
            caption = locales.t(turned.reply.lang, "chart.caption")
            png = turned.chart
            await with_retry(lambda: where.reply_photo(png, caption=caption))
        return turned.reply


async def send(message: Message, reply: Reply, group: bool) -> None:
    """The reply as HTML chunks; the quick replies ride on the last one."""
    chunks = render.split(render.to_html(reply))
    for i, chunk in enumerate(chunks):
        markup = render.keyboard(reply.buttons) if i == len(chunks) - 1 else None
        await reply_html(message, chunk, markup, quote=group)


async def _edit(query: CallbackQuery, reply: Reply) -> None:
    """Acknowledge the press, then edit the question into the reply (or answer anew if it is long)."""
    await with_retry(query.answer)
    message = query.message
    assert isinstance(message, Message)  # the handler answers presses on inaccessible messages itself
    chunks = render.split(render.to_html(reply))
    if len(chunks) == 1:
        await with_retry(
            lambda: query.edit_message_text(
                chunks[0], parse_mode=ParseMode.HTML, reply_markup=render.keyboard(reply.buttons)
            )
        )
    else:
        await send(message, reply, group=in_group(message))


def in_group(message: Message) -> bool:
    return message.chat.type in GROUPS


def addressed(message: Message, text: str, username: str | None, bot_id: int) -> str | None:
    """What a message says to the bot: all of it in a private chat; in a group the text
    without the bot's @mention, the whole text of a reply to the bot, else ``None``."""
    if not in_group(message):
        return text
    stripped = _strip_mention(text, username)
    if stripped is not None:
        return stripped
    replied = message.reply_to_message
    to_bot = replied is not None and replied.from_user is not None and replied.from_user.id == bot_id
    return text if to_bot else None


def _strip_mention(text: str, username: str | None) -> str | None:
    if not username:
        return None
    tag = f"@{username}"
    if tag.lower() not in text.lower():
        return None
    start = text.lower().index(tag.lower())
    return (text[:start] + text[start + len(tag) :]).strip()
