"""The Telegram surface (``bot.surface.Surface``): where a reply goes, and how it is shown there.

A reply goes to a message (sent as HTML chunks under 4096, the quick replies on the
last one, quoting the asker in a group), to a pressed button, or to the presser's
private chat. A button that answers the card's question edits the question in place;
a command button ("为什么", "费用") answers as a reply under the card, which stays. Its
buttons are bound to the asker (``bot.links.bind``). In a group the asker's "为什么"
goes to their private chat (``Privately``), as ``/why`` does, or — when the bot may not
message them yet — a button opening that chat is posted instead. A chart is sent in a
private chat after ``/plan``, as one photo whose caption is the card when the card fits a caption;
every other answer carries a 📊 button that sends the chart under it (private chat or group).
Which messages in a group are meant for the bot is read here too: a mention or a reply
to one of its messages.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import Bot, CallbackQuery, Message
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden

from gpu_advisor import locales
from gpu_advisor.bot import links
from gpu_advisor.bot.dialog import Reply
from gpu_advisor.bot.telegram import render
from gpu_advisor.bot.telegram.send import reply_html, with_retry
from gpu_advisor.bot.turn import Turn, Turned

log = logging.getLogger(__name__)
PLATFORM = "telegram"
GROUPS = (ChatType.GROUP, ChatType.SUPERGROUP)


@dataclass(frozen=True)
class Privately:
    """A group card's button whose answer goes to the presser's private chat (its ``/why``)."""

    query: CallbackQuery
    group: Message


Where = Message | CallbackQuery | Privately


class TelegramChats:
    """Everyone's chats with the bot: a message or a button press in, the reply sent or edited in."""

    platform = PLATFORM

    def __init__(self, turn: Turn) -> None:
        self.turn = turn

    def pictures(self, where: Where) -> bool:
        return isinstance(where, Message) and not in_group(where)

    async def show(self, where: Where, turned: Turned) -> Reply:
        if isinstance(where, Privately):  # a group's reasoning read privately: its chart is the group's
            await _to_private_chat(where, turned.reply)
            return turned.reply
        reply = turned.reply if turned.chart is not None else render.with_chart_button(turned.reply)
        if isinstance(where, CallbackQuery):
            await _answer_press(where, reply)
        elif turned.chart is not None:
            await _send_with_chart(where, reply, turned.chart)
        else:
            await send(where, reply, group=in_group(where), owner=_asker(where))
        return reply


async def send_chart(message: Message, png: bytes | None, lang: str) -> None:
    """The 📊 button's answer: the plan's chart as a photo under the card (or why there is none)."""
    if png is None:
        await reply_html(message, locales.t(lang, "surfaces.no_chart"), None, quote=in_group(message))
        return
    caption = locales.t(lang, "chart.caption")
    await with_retry(lambda: message.reply_photo(png, caption=caption, do_quote=in_group(message)))


async def send(message: Message, reply: Reply, group: bool, owner: int | None = None) -> None:
    """The reply as HTML chunks; the quick replies (pressable by ``owner``) ride on the last one."""
    chunks = render.split(render.to_html(reply))
    for i, chunk in enumerate(chunks):
        markup = render.keyboard(reply.buttons, owner) if i == len(chunks) - 1 else None
        await reply_html(message, chunk, markup, quote=group)


async def _send_with_chart(message: Message, reply: Reply, png: bytes) -> None:
    """One photo whose caption is the card; a card too long for a caption goes first, then the photo."""
    caption = render.caption(reply)
    markup = render.keyboard(reply.buttons, _asker(message))
    if caption is None:
        await send(message, reply, group=in_group(message), owner=_asker(message))
        caption, markup = locales.t(reply.lang, "chart.caption"), None
    text = caption
    await with_retry(
        lambda: message.reply_photo(png, caption=text, parse_mode=ParseMode.HTML, reply_markup=markup)
    )


async def _answer_press(query: CallbackQuery, reply: Reply) -> None:
    """Acknowledge the press; an answer to the card's question replaces it, a command answers below it."""
    await with_retry(query.answer)
    message = query.message
    assert isinstance(message, Message)  # the handler answers presses on inaccessible messages itself
    owner, group = query.from_user.id, in_group(message)
    chunks = render.split(render.to_html(reply))
    command = links.pressed(query.data or "").payload.startswith("/")
    if len(chunks) > 1 or command or message.text is None:  # a photo's caption is not edited into text
        await send(message, reply, group=group, owner=owner)
        return
    markup = render.keyboard(reply.buttons, owner)
    await with_retry(
        lambda: query.edit_message_text(chunks[0], parse_mode=ParseMode.HTML, reply_markup=markup)
    )


async def _to_private_chat(where: Privately, reply: Reply) -> None:
    """The reasoning in the presser's private chat; if the bot may not write there, a button opening it."""
    query, bot = where.query, where.query.get_bot()
    user = query.from_user.id
    try:
        for chunk in render.split(render.to_html(reply)):
            await _send_to(bot, user, chunk)
    except (Forbidden, BadRequest) as exc:  # never started a chat with the bot, or blocked it
        log.info("cannot message user %s privately (%s); offering a link", user, exc.message)
        await with_retry(query.answer)
        await offer_private(where.group, reply.lang, bot.username, quote=True)
        return
    await with_retry(lambda: query.answer(locales.t(reply.lang, "telegram.sent_privately")))


async def _send_to(bot: Bot, chat_id: int, html_text: str) -> None:
    await with_retry(
        lambda: bot.send_message(chat_id, html_text, parse_mode=ParseMode.HTML, disable_web_page_preview=True)
    )


async def offer_private(message: Message, lang: str, username: str, quote: bool) -> None:
    """The offer to continue in a private chat, with a button that opens it on the group's ``/why``."""
    url = f"https://t.me/{username}?start={links.why_payload(message.chat.id)}"
    markup = render.link_button(locales.t(lang, "telegram.open_private"), url)
    text = render.to_html(Reply(kind="info", lang=lang, text=locales.t(lang, "telegram.why_in_dm")))
    await reply_html(message, text, markup, quote=quote)


def _asker(message: Message) -> int | None:
    return message.from_user.id if message.from_user is not None else None


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
