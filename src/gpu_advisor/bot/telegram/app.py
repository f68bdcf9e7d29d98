"""The Telegram Application: handlers that convert updates into turns and show what they give back.

Shaped like python-telegram-bot's ``conversationbot.py`` / ``inlinebot.py`` examples:
one small handler per kind of update, and Telegram mechanics only. What a turn does is
the turn's (``bot.turn``: rate limit, dedupe, dialog, save, plan log, operator
commands); how it is shown is the surface's (``bot.telegram.surface``); what a deep link
says is ``bot.links``'s. Conversation state is per (chat, user) in the shared SQLite
store, so in a group each member has their own conversation and a restart resumes where
everyone was. A card's buttons are its asker's (``bot.links.bind``): another member's press
gets an alert and changes nothing. At start-up the bot says what it is (command menus,
description and short description in English and Chinese) and logs how it runs.
"""

from __future__ import annotations

import html
import logging

from telegram import (
    BotCommand,
    CallbackQuery,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    Update,
    User,
)
from telegram.constants import ParseMode
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from gpu_advisor import knowledge, locales
from gpu_advisor.bot import links
from gpu_advisor.bot.admission import Admission, Overloaded
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.dialog.commands import COMMANDS
from gpu_advisor.bot.execution import auto_workers
from gpu_advisor.bot.ratelimit import RateLimiter
from gpu_advisor.bot.storage.target import shown
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.surface import converse
from gpu_advisor.bot.telegram import render
from gpu_advisor.bot.telegram.config import TelegramConfig, application_builder
from gpu_advisor.bot.telegram.context import BotData, Context
from gpu_advisor.bot.telegram.send import reply_html, report_error, with_retry
from gpu_advisor.bot.telegram.surface import (
    PLATFORM,
    Privately,
    TelegramChats,
    addressed,
    in_group,
    offer_private,
    send,
    send_chart,
)
from gpu_advisor.bot.turn import OPERATOR_COMMANDS, Conversations, Turn, command_of, executor_for
from gpu_advisor.bot.turn_calls import Chart, Chat, FirstTime, Lang, MoveChat, Quick
from gpu_advisor.text.normalize import client_lang

log = logging.getLogger(__name__)

__all__ = [
    "TelegramConfig",
    "application_builder",
    "build_application",
    "describe_bot",
    "register_commands",
    "turn_of",
]
MENU = COMMANDS  # the command menu, each command once (``/analyze`` is one of them)
PRIVATE_COMMANDS = ("/why",)  # a card's buttons whose answer goes to the asker's private chat in a group


def build_application(
    config: TelegramConfig, dialog: Dialog | None = None, store: Store | None = None
) -> Application:  # type: ignore[type-arg]
    app = application_builder(config).post_init(on_startup).post_shutdown(on_shutdown).build()
    data: BotData = app.bot_data
    data.config, data.dialog = config, dialog or Dialog(knowledge.load(config.catalog))
    data.store = store or Store(config.db_path)
    conversations = Conversations(data.dialog, data.store, PLATFORM)
    workers = auto_workers() if config.workers is None else config.workers
    executor = executor_for(conversations, workers, config.catalog)
    limiter = RateLimiter(config.messages_per_minute)
    data.turn = Turn(conversations, executor, limiter, admission=Admission(workers, queue_limit=None))
    data.chats = TelegramChats(data.turn)
    app.add_handler(TypeHandler(Update, drop_duplicates), group=-1)
    app.add_handler(CommandHandler(list(OPERATOR_COMMANDS), on_operator))
    app.add_handler(CommandHandler(list(MENU), on_command))
    app.add_handler(MessageHandler(filters.COMMAND, on_unknown_command))
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(InlineQueryHandler(on_inline))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, on_text))
    app.add_error_handler(on_error)
    return app


async def on_startup(app: Application) -> None:  # type: ignore[type-arg]
    await turn_of(app).executor.initialize(wait=False)  # turns run here until the workers are up
    await register_commands(app)
    await describe_bot(app)
    data: BotData = app.bot_data
    log.info(
        "telegram bot @%s answering by %s; database %s; %s",
        app.bot.username,
        data.config.mode,
        shown(data.store.url),  # the database the store opened, password masked
        _workers(turn_of(app)),
    )


async def on_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    data: BotData = app.bot_data
    log.info("telegram bot %s stopping: letting the turn workers finish", _handle(app))
    await turn_of(app).executor.shutdown()
    log.info("telegram bot stopped; conversations are saved in %s", shown(data.store.url))


def _handle(app: Application) -> str:  # type: ignore[type-arg]
    """``@username``, or a plain word when the bot never got that far (a rejected token):
    shutdown runs after a failed start too, and PTB refuses ``username`` before ``getMe``."""
    try:
        return f"@{app.bot.username}"
    except RuntimeError:
        return "(not started)"


def _workers(turn: Turn) -> str:
    count = getattr(turn.executor, "count", 0)
    return f"{count} turn worker process(es)" if turn.executor.pooled else "turns on the event loop"


def turn_of(app: Application) -> Turn:  # type: ignore[type-arg]
    data: BotData = app.bot_data
    return data.turn


async def register_commands(app: Application) -> None:  # type: ignore[type-arg]
    """Command menus in English (default) and Chinese."""
    for lang, code in (("en", None), ("zh", "zh")):
        cmds = [BotCommand(c, locales.t(lang, f"commands.{c}")) for c in MENU]
        await app.bot.set_my_commands(cmds, language_code=code)


async def describe_bot(app: Application) -> None:  # type: ignore[type-arg]
    """What a user sees before the first message (description) and on the profile (short description)."""
    for lang, code in (("en", None), ("zh", "zh")):
        await app.bot.set_my_description(locales.t(lang, "telegram.description"), language_code=code)
        await app.bot.set_my_short_description(
            locales.t(lang, "telegram.short_description"), language_code=code
        )


def _chat(message: Message, user: User, update: Update, chat_id: int | None = None) -> Chat:
    return Chat(
        message.chat.id if chat_id is None else chat_id, user.id, user.language_code, update.update_id
    )


def _redelivered(update: Update) -> None:
    log.info("dropping redelivered update %s", update.update_id)


# --- handlers ---------------------------------------------------------------------
async def drop_duplicates(update: Update, context: Context) -> None:
    """Runs before every other handler: an update already answered is not answered again.

    Messages and button presses are checked inside their turn instead (``Chat.update_id``),
    in the same transaction that saves the state, and without a second trip to a worker.
    """
    if update.message is not None or update.callback_query is not None:
        return
    if not await context.bot_data.turn.ask(FirstTime(update.update_id)):
        _redelivered(update)
        raise ApplicationHandlerStop


async def on_text(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    text = addressed(message, message.text, context.bot.username, context.bot.id)
    if text is not None:  # else group chatter not meant for us
        await _converse(update, context, message, text)


async def on_command(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    command = command_of(message.text)
    opened = links.opened(context.args[0]) if command == "/start" and context.args else None
    if opened is not None:  # a deep link: that conversation's /why, here, read-only
        await _converse(update, context, message, opened.command, chat_id=opened.chat_id, save=False)
    elif in_group(message) and command == "/why":
        await _offer_private(update, context, message)
    elif command == "/help":
        await _say(update, context, message, "surfaces.telegram.help", bot=context.bot.username)
    else:
        await _converse(update, context, message, message.text)


async def on_unknown_command(update: Update, context: Context) -> None:
    """``/foo``: say it is unknown and point to /help. In a group only when it names this bot
    (``/foo@this_bot``) or replies to it: a bare ``/foo`` there may be another bot's."""
    message = update.effective_message
    if message is None or message.text is None:
        return
    word = message.text.split(maxsplit=1)[0]
    target = word.partition("@")[2]
    if target and target.lower() != (context.bot.username or "").lower():
        return
    if in_group(message) and not target and addressed(message, "", None, context.bot.id) is None:
        return
    name = command_of(message.text).removeprefix("/")[:32]
    await _say(update, context, message, "surfaces.telegram.unknown_command", command=name)


async def _say(update: Update, context: Context, message: Message, key: str, **values: object) -> None:
    """A fixed text of this surface, in the conversation's language, under the message; past the
    rate limit the turn's "slow down" instead, as for any other message."""
    user = update.effective_user
    assert user is not None
    chat, turn = _chat(message, user, update), context.bot_data.turn
    if turn.limiter is not None and not turn.limiter.allow((chat.chat_id, chat.user_id)):
        key, values = "dialog.slow_down", {}
    said = await turn.say(chat, key, **values)
    if said is None:
        _redelivered(update)
        return
    await send(message, said, group=in_group(message))


async def _converse(
    update: Update,
    context: Context,
    message: Message,
    text: str,
    chat_id: int | None = None,
    save: bool = True,
) -> None:
    user = update.effective_user
    assert user is not None
    chat = _chat(message, user, update, chat_id)
    if await converse(context.bot_data.chats, message, chat, text, save=save) is None:
        _redelivered(update)


async def on_button(update: Update, context: Context) -> None:
    """A quick reply on a card: only its asker's press counts; the surface shows what follows."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None or query.data is None:
        return
    message = query.message
    if not isinstance(message, Message):
        await with_retry(query.answer)
        return
    pressed = links.pressed(query.data)
    if not pressed.allowed(user.id):  # someone else's card: say so, touch nothing
        alert = locales.t(client_lang(user.language_code), "telegram.not_yours")
        await with_retry(lambda: query.answer(alert, show_alert=True))
        return
    chat, chats = _chat(message, user, update), context.bot_data.chats
    if pressed.payload == render.CHART_PAYLOAD:
        await _press_chart(update, context, query, message, chat)
        return
    if in_group(message) and pressed.payload in PRIVATE_COMMANDS:
        shown = await converse(chats, Privately(query, message), chat, pressed.payload, save=False)
    else:
        shown = await converse(chats, query, chat, button=pressed.payload)
    if shown is None:
        _redelivered(update)  # a redelivered press was acknowledged and answered the first time


async def _press_chart(
    update: Update, context: Context, query: CallbackQuery, message: Message, chat: Chat
) -> None:
    """The 📊 button: the plan's chart as a photo under its card (the conversation untouched)."""
    await with_retry(query.answer)
    turn = context.bot_data.turn
    lang = await turn.ask(Lang(chat))
    if lang is None:
        _redelivered(update)
        return
    try:  # a chart is a worker's time like a turn: admitted like one
        async with turn.admitted(turn.client(chat)):
            png = await turn.ask(Chart(chat))
    except Overloaded as exc:
        busy = locales.t(lang, "hardening.overloaded", seconds=exc.retry_after)
        await reply_html(message, html.escape(busy), None, quote=in_group(message))
        return
    await send_chart(message, png, lang)


async def on_inline(update: Update, context: Context) -> None:
    """``@bot 13b qlora`` → a result card: the reply's title, its summary, the reply itself."""
    query = update.inline_query
    if query is None:
        return
    reply = await context.bot_data.turn.ask(Quick.for_client(query.query, query.from_user.language_code))
    article = InlineQueryResultArticle(
        id="plan",
        title=render.inline_title(reply),
        description=render.inline_description(reply),
        input_message_content=InputTextMessageContent(
            render.split(render.to_html(reply))[0], parse_mode=ParseMode.HTML
        ),
    )
    await with_retry(lambda: query.answer([article], cache_time=5, is_personal=True))


async def on_operator(update: Update, context: Context) -> None:
    """/stats, /reload_catalog: the turn's operator commands, for the ids in ``admin_ids``."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or message.text is None:
        return
    data = context.bot_data
    allowed = user.id in data.config.admin_ids
    reply = await data.turn.operate(
        _chat(message, user, update), message.text, allowed, lambda: knowledge.reload(data.config.catalog)
    )
    if reply is None:
        _redelivered(update)
        return
    await reply_html(message, html.escape(reply.text), None, quote=True)


async def on_migrate(update: Update, context: Context) -> None:
    """A group became a supergroup: its chat id changed, so move everyone's conversation."""
    message = update.effective_message
    if message is not None and message.migrate_to_chat_id:
        await context.bot_data.turn.ask(MoveChat(message.chat.id, message.migrate_to_chat_id))


async def _offer_private(update: Update, context: Context, message: Message) -> None:
    """/why in a group: the offer, and a link that opens a private chat with the reasoning."""
    user = update.effective_user
    assert user is not None
    offer = await context.bot_data.turn.say(_chat(message, user, update), "telegram.why_in_dm")
    if offer is None:
        _redelivered(update)
        return
    await offer_private(message, offer.lang, context.bot.username, quote=True)


async def on_error(update: object, context: Context) -> None:
    """Log once with context, tell the user politely; their state was saved before sending."""
    await report_error(update, context.error)
