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
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

import knowledge
import locales
from bot.dialog import Dialog, Reply
from bot.dialog.commands import COMMANDS
from bot.ratelimit import ConversationLocks, RateLimiter
from bot.store import Store
from bot.telegram import render
from bot.telegram.request import JsonRequest
from bot.telegram.send import reply_html, with_retry
from bot.turns import Chat, Conversations, Turns

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
    workers: int = 0  # turn worker processes; 0 runs turns on the event loop (see bot.turns)
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
    dialog = dialog or Dialog(knowledge.load(config.catalog))
    store = store or Store(config.db_path)
    app.bot_data["dialog"] = dialog
    app.bot_data["store"] = store
    app.bot_data["turns"] = Turns(Conversations(dialog, store, PLATFORM), config.workers, config.catalog)
    app.bot_data["config"] = config
    app.bot_data["limiter"] = RateLimiter(config.messages_per_minute)
    app.bot_data["locks"] = ConversationLocks()
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
    await turns_of(app).start(wait=False)  # turns run here until the workers are up
    await register_commands(app)


async def on_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    await turns_of(app).stop()


def turns_of(app: Application) -> Turns:  # type: ignore[type-arg]
    turns: Turns = app.bot_data["turns"]
    return turns


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
async def drop_duplicates(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Runs before every other handler: an update already answered is not answered again.

    Messages and button presses are checked inside their turn instead (``Chat.update_id``),
    in the same transaction that saves the state, and without a second trip to a worker.
    """
    if update.message is not None or update.callback_query is not None:
        return
    if not await turns_of(context.application).first_time(update.update_id):
        _redelivered(update)
        raise ApplicationHandlerStop


async def on_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
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


async def on_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    if message is None or message.text is None:
        return
    text = message.text
    if _command(text) == "/start" and context.args and context.args[0].startswith("why_"):
        await _deep_link_why(update, context, context.args[0])
        return
    if message.chat.type in GROUPS and _command(text) == "/why":
        await _offer_dm(update, context, message)
        return
    await _converse(update, context, message, text)


async def _converse(update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message, text: str) -> None:
    user = update.effective_user
    assert user is not None
    chat, turns = _chat(message, user, update), turns_of(context.application)
    async with context.bot_data["locks"].hold((chat.chat_id, chat.user_id)):
        if not context.bot_data["limiter"].allow((chat.chat_id, chat.user_id)):
            reply = await turns.say(chat, "dialog.slow_down")
        else:
            reply = await turns.text(chat, text)
        if reply is None:
            _redelivered(update)
            return
        await _send(message, reply, group=message.chat.type in GROUPS)
        if _command(text) == "/plan" and reply.kind == "answer" and message.chat.type not in GROUPS:
            await _send_chart(turns, message, chat, reply.lang)


async def _send_chart(turns: Turns, message: Message, chat: Chat, lang: str) -> None:
    """/plan in a private chat also gets the picture: memory vs card, cost vs alternatives, speed."""
    png = await turns.chart(chat)
    if png is not None:
        await with_retry(lambda: message.reply_photo(png, caption=locales.t(lang, "chart.caption")))


async def _send(message: Message, reply: Reply, group: bool) -> None:
    chunks = render.split(render.to_html(reply.text))
    for i, chunk in enumerate(chunks):
        markup = render.keyboard(reply.buttons) if i == len(chunks) - 1 else None
        await reply_html(message, chunk, markup, quote=group)


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A quick reply: acknowledge it, then edit the question in place with what follows."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None or query.data is None:
        return
    message = query.message
    if not isinstance(message, Message):
        await with_retry(query.answer)
        return
    chat = _chat(message, user, update)
    async with context.bot_data["locks"].hold((chat.chat_id, chat.user_id)):
        reply = await turns_of(context.application).press(chat, query.data)
    if reply is None:  # a redelivered press was acknowledged and answered the first time
        _redelivered(update)
        return
    await with_retry(query.answer)
    chunks = render.split(render.to_html(reply.text))
    if len(chunks) == 1:
        await with_retry(
            lambda: query.edit_message_text(
                chunks[0], parse_mode=ParseMode.HTML, reply_markup=render.keyboard(reply.buttons)
            )
        )
    else:
        await _send(message, reply, group=message.chat.type in GROUPS)


async def on_inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``@bot 13b qlora`` → a result card with the pick, its cost and the top pitfall."""
    query = update.inline_query
    if query is None:
        return
    lang = "zh" if (query.from_user.language_code or "").startswith("zh") else "en"
    reply = await turns_of(context.application).quick(query.query, lang)
    title = reply.text.split("\n", 1)[0][:256] or "GPU Advisor"
    description = " · ".join(reply.text.split("\n")[1:3])[:512]
    article = InlineQueryResultArticle(
        id="plan",
        title=title,
        description=description,
        input_message_content=InputTextMessageContent(
            render.split(render.to_html(reply.text))[0], parse_mode=ParseMode.HTML
        ),
    )
    await with_retry(lambda: query.answer([article], cache_time=5, is_personal=True))


async def on_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or message.text is None:
        return
    config: TelegramConfig = context.bot_data["config"]
    turns = turns_of(context.application)
    lang = await turns.lang(_chat(message, user, update))
    if lang is None:
        _redelivered(update)
        return
    if user.id not in config.admin_ids:
        await reply_html(message, html.escape(locales.t(lang, "admin.refused")), None, quote=True)
        return
    if _command(message.text) == "/stats":
        stats = context.bot_data["store"].stats()
        text = locales.t(
            lang,
            "admin.stats",
            conversations=stats["conversations"],
            plans=stats["plans"],
            top=[f"{o['offer']} ×{o['count']}" for o in stats["top_offers"]],
        )
    else:
        knowledge.load.cache_clear()
        dialog: Dialog = context.bot_data["dialog"]
        dialog.reload(knowledge.load(config.catalog))
        await turns.restart()  # fresh workers read the catalog again
        text = locales.t(lang, "admin.reloaded", offers=len(dialog.kb.catalog.offers))
    await reply_html(message, html.escape(text), None, quote=True)


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: its chat id changed, so move everyone's conversation."""
    message = update.effective_message
    if message is not None and message.migrate_to_chat_id:
        await turns_of(context.application).move_chat(message.chat.id, message.migrate_to_chat_id)


async def _offer_dm(update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message) -> None:
    """In a group the long reasoning would flood the chat: offer it in a private chat instead."""
    user = update.effective_user
    assert user is not None
    offer = await turns_of(context.application).say(_chat(message, user, update), "telegram.why_in_dm")
    if offer is None:
        _redelivered(update)
        return
    chat = str(message.chat.id).replace("-", "m")
    link = f"https://t.me/{context.bot.username}?start=why_{chat}"
    text = html.escape(offer.text)
    await reply_html(
        message, f'{text}\n<a href="{html.escape(link)}">{html.escape(link)}</a>', None, quote=True
    )


async def _deep_link_why(update: Update, context: ContextTypes.DEFAULT_TYPE, payload: str) -> None:
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    group_chat = payload.removeprefix("why_").replace("m", "-")
    if not group_chat.lstrip("-").isdigit():
        return
    chat = Chat(int(group_chat), user.id, user.language_code, update.update_id)
    reply = await turns_of(context.application).text(chat, "/why", save=False)
    if reply is None:
        _redelivered(update)
        return
    await _send(message, reply, group=False)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
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


def _command(text: str) -> str:
    """ "/plan@GpuAdvisorBot extra" → "/plan"."""
    return text.split(maxsplit=1)[0].split("@", maxsplit=1)[0] if text.strip() else ""


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
