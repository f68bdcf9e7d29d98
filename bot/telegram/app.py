"""The Telegram Application: handlers that translate updates to the dialog core and back.

Shaped like python-telegram-bot's ``conversationbot.py`` / ``inlinebot.py`` examples:
one small handler per kind of update. Conversation state is per (chat, user) in the
shared SQLite store, so in a group each member has their own conversation and a
restart resumes where everyone was.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass, field

from telegram import BotCommand, InlineQueryResultArticle, InputTextMessageContent, Message, Update, User
from telegram.constants import ChatType, ParseMode
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

import knowledge
import locales
from bot.dialog import Dialog, Reply
from bot.dialog.commands import COMMANDS
from bot.execution import auto_workers
from bot.ratelimit import RateLimiter
from bot.store import Store
from bot.telegram import render
from bot.telegram.context import CONTEXT_TYPES, BotData, Context
from bot.telegram.request import JsonRequest
from bot.telegram.send import reply_html, with_retry
from bot.turn import Conversations, Turn, Turned, command_of, executor_for
from bot.turn_calls import Chat, FirstTime, Lang, MoveChat, Quick

log = logging.getLogger(__name__)
PLATFORM = "telegram"
ADMIN_COMMANDS = ("stats", "reload_catalog")
GROUPS = (ChatType.GROUP, ChatType.SUPERGROUP)


@dataclass(frozen=True)
class TelegramConfig:
    token: str
    base_url: str | None = None
    base_file_url: str | None = None
    db_path: str = "gpu-advisor.db"
    catalog: str | None = None
    admin_ids: frozenset[int] = field(default_factory=frozenset)
    max_retries: int = 3
    messages_per_minute: int = 20
    concurrent_updates: int = 64
    # Turn worker processes (bot.execution), each turn within the deadline; None: one per spare
    # CPU (1 to 4). 0 runs turns on the event loop without a deadline (tests, benchmarks).
    workers: int | None = None
    # HTTP connections to the Bot API. PTB's default of 256 costs more than it gives: httpcore
    # scans every pooled connection for each request it queues, and 16 connections already carry
    # far more than Telegram's ~30 messages/s per bot.
    connection_pool_size: int = 16
    overall_max_rate: float = 30  # Telegram's global limit, messages per second; 0 disables (benchmarks)


def application_builder(config: TelegramConfig) -> ApplicationBuilder:  # type: ignore[type-arg]
    """The transport settings (token, server, rate limits, concurrency, JSON requests), without handlers.

    The benchmark's echo bot is built from the same builder, so it differs from ours only in
    what its handlers do.
    """
    builder = (
        Application.builder()
        .token(config.token)
        .context_types(CONTEXT_TYPES)
        .rate_limiter(
            AIORateLimiter(overall_max_rate=config.overall_max_rate, max_retries=config.max_retries)
        )
        .concurrent_updates(config.concurrent_updates)
        .request(JsonRequest(connection_pool_size=config.connection_pool_size))
        .get_updates_request(JsonRequest(connection_pool_size=1))
    )
    if config.base_url:
        builder = builder.base_url(config.base_url).base_file_url(config.base_file_url or config.base_url)
    return builder


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
    data.turn = Turn(conversations, executor, RateLimiter(config.messages_per_minute))
    app.add_handler(TypeHandler(Update, drop_duplicates), group=-1)
    app.add_handler(CommandHandler(list(ADMIN_COMMANDS), on_admin))
    app.add_handler(CommandHandler([*COMMANDS, "analyze"], on_command))
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(InlineQueryHandler(on_inline))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, on_text))
    app.add_error_handler(on_error)
    return app


async def on_startup(app: Application) -> None:  # type: ignore[type-arg]
    await turn_of(app).executor.initialize(wait=False)  # turns run here until the workers are up
    await register_commands(app)


async def on_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    await turn_of(app).executor.shutdown()


def turn_of(app: Application) -> Turn:  # type: ignore[type-arg]
    data: BotData = app.bot_data
    return data.turn


async def register_commands(app: Application) -> None:  # type: ignore[type-arg]
    """Command menus in English (default) and Chinese."""
    for lang, code in (("en", None), ("zh", "zh")):
        cmds = [BotCommand(c, locales.t(lang, f"commands.{c}")) for c in (*COMMANDS, "analyze")]
        await app.bot.set_my_commands(cmds, language_code=code)


# --- conversations ----------------------------------------------------------------
def _chat(message: Message, user: User, update: Update) -> Chat:
    return Chat(message.chat.id, user.id, user.language_code, update.update_id)


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
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or message.text is None:
        return
    text = message.text
    if message.chat.type in GROUPS:
        addressed = _strip_mention(text, context.bot.username)
        if addressed is None and not _replies_to_bot(message, context.bot.id):
            return  # group chatter not meant for us
        text = addressed if addressed is not None else text
    await _converse(update, context, message, text)


async def on_command(update: Update, context: Context) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    text = message.text
    if command_of(text) == "/start" and context.args and context.args[0].startswith("why_"):
        await _deep_link_why(update, context, context.args[0])
        return
    if message.chat.type in GROUPS and command_of(text) == "/why":
        await _offer_dm(update, context, message)
        return
    await _converse(update, context, message, text)


async def _converse(update: Update, context: Context, message: Message, text: str) -> None:
    user = update.effective_user
    assert user is not None
    group = message.chat.type in GROUPS
    turned = await context.bot_data.turn.take(_chat(message, user, update), text, pictures=not group)
    if turned is None:
        _redelivered(update)
        return
    await _send(message, turned.reply, group=group)
    await _send_chart(message, turned)


async def _send_chart(message: Message, turned: Turned) -> None:
    """The picture the turn drew (memory vs card, cost vs alternatives, speed), if it drew one."""
    png = turned.chart
    if png is not None:
        caption = locales.t(turned.reply.lang, "chart.caption")
        await with_retry(lambda: message.reply_photo(png, caption=caption))


async def _send(message: Message, reply: Reply, group: bool) -> None:
    chunks = render.split(render.to_html(reply))
    for i, chunk in enumerate(chunks):
        markup = render.keyboard(reply.buttons) if i == len(chunks) - 1 else None
        await reply_html(message, chunk, markup, quote=group)


async def on_button(update: Update, context: Context) -> None:
    """A quick reply: acknowledge it, then edit the question in place with what follows."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None or query.data is None:
        return
    message = query.message
    if not isinstance(message, Message):
        await with_retry(query.answer)
        return
    turned = await context.bot_data.turn.take(_chat(message, user, update), button=query.data)
    if turned is None:  # a redelivered press was acknowledged and answered the first time
        _redelivered(update)
        return
    reply = turned.reply
    await with_retry(query.answer)
    chunks = render.split(render.to_html(reply))
    if len(chunks) == 1:
        await with_retry(
            lambda: query.edit_message_text(
                chunks[0], parse_mode=ParseMode.HTML, reply_markup=render.keyboard(reply.buttons)
            )
        )
    else:
        await _send(message, reply, group=message.chat.type in GROUPS)


async def on_inline(update: Update, context: Context) -> None:
    """``@bot 13b qlora`` → a result card with the pick, its cost and the top pitfall."""
    query = update.inline_query
    if query is None:
        return
    lang = "zh" if (query.from_user.language_code or "").startswith("zh") else "en"
    reply = await context.bot_data.turn.ask(Quick(query.query, lang))
    article = InlineQueryResultArticle(
        id="plan",
        title=render.inline_title(reply),
        description=render.inline_description(reply),
        input_message_content=InputTextMessageContent(
            render.split(render.to_html(reply))[0], parse_mode=ParseMode.HTML
        ),
    )
    await with_retry(lambda: query.answer([article], cache_time=5, is_personal=True))


async def on_admin(update: Update, context: Context) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or message.text is None:
        return
    data = context.bot_data
    lang = await data.turn.ask(Lang(_chat(message, user, update)))
    if lang is None:
        _redelivered(update)
        return
    if user.id not in data.config.admin_ids:
        await reply_html(message, html.escape(locales.t(lang, "admin.refused")), None, quote=True)
        return
    if command_of(message.text) == "/stats":
        stats = data.store.stats()
        text = locales.t(
            lang,
            "admin.stats",
            conversations=stats["conversations"],
            plans=stats["plans"],
            top=[f"{o['offer']} ×{o['count']}" for o in stats["top_offers"]],
        )
    else:
        data.dialog.reload(knowledge.reload(data.config.catalog))
        await data.turn.executor.restart()  # fresh workers read the catalog again
        text = locales.t(lang, "admin.reloaded", offers=len(data.dialog.kb.catalog.offers))
    await reply_html(message, html.escape(text), None, quote=True)


async def on_migrate(update: Update, context: Context) -> None:
    """A group became a supergroup: its chat id changed, so move everyone's conversation."""
    message = update.effective_message
    if message is not None and message.migrate_to_chat_id:
        await context.bot_data.turn.ask(MoveChat(message.chat.id, message.migrate_to_chat_id))


async def _offer_dm(update: Update, context: Context, message: Message) -> None:
    """In a group the long reasoning would flood the chat: offer it in a private chat instead."""
    user = update.effective_user
    assert user is not None
    offer = await context.bot_data.turn.say(_chat(message, user, update), "telegram.why_in_dm")
    if offer is None:
        _redelivered(update)
        return
    chat = str(message.chat.id).replace("-", "m")
    link = f"https://t.me/{context.bot.username}?start=why_{chat}"
    text = html.escape(offer.text)
    await reply_html(
        message, f'{text}\n<a href="{html.escape(link)}">{html.escape(link)}</a>', None, quote=True
    )


async def _deep_link_why(update: Update, context: Context, payload: str) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    group_chat = payload.removeprefix("why_").replace("m", "-")
    if not group_chat.lstrip("-").isdigit():
        return
    chat = Chat(int(group_chat), user.id, user.language_code, update.update_id)
    turned = await context.bot_data.turn.take(chat, "/why", save=False)
    if turned is None:
        _redelivered(update)
        return
    await _send(message, turned.reply, group=False)


async def on_error(update: object, context: Context) -> None:
    """Log once with context, tell the user politely; their state was saved before sending."""
    where = update.to_dict() if isinstance(update, Update) else {}
    chat = where.get("message", {}).get("chat", {}).get("id") if where else None
    log.error(
        "telegram handler failed (update %s, chat %s): %r",
        where.get("update_id"),
        chat,
        context.error,
        exc_info=context.error,
    )
    if isinstance(update, Update) and update.effective_message is not None:
        lang = (
            "zh"
            if (update.effective_user and (update.effective_user.language_code or "").startswith("zh"))
            else "en"
        )
        try:
            await update.effective_message.reply_text(locales.t(lang, "dialog.error_generic"))
        except Exception:  # the error may be the network itself; the log above has it
            log.warning("could not tell the user about the error", exc_info=True)


def _strip_mention(text: str, username: str | None) -> str | None:
    if not username:
        return None
    tag = f"@{username}"
    if tag.lower() not in text.lower():
        return None
    start = text.lower().index(tag.lower())
    return (text[:start] + text[start + len(tag) :]).strip()


def _replies_to_bot(message: Message, bot_id: int) -> bool:
    replied = message.reply_to_message
    return replied is not None and replied.from_user is not None and replied.from_user.id == bot_id
