"""The Telegram Application: handlers that translate updates to the dialog core and back.

Shaped like python-telegram-bot's ``conversationbot.py`` / ``inlinebot.py`` examples:
one small handler per kind of update. Conversation state is per (chat, user) in the
shared SQLite store, so in a group each member has their own conversation and a
restart resumes where everyone was.
"""

from __future__ import annotations

import asyncio
import html
import logging
from dataclasses import dataclass, field

from telegram import BotCommand, InlineQueryResultArticle, InputTextMessageContent, Message, Update
from telegram.constants import ChatType, ParseMode
from telegram.ext import (
    AIORateLimiter,
    Application,
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
from bot.dialog import ConversationState, Dialog, Reply
from bot.dialog.commands import COMMANDS
from bot.ratelimit import ConversationLocks, RateLimiter
from bot.store import Store
from bot.telegram import render
from bot.telegram.send import reply_html, with_retry

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
    overall_max_rate: float = 30  # Telegram's global limit, messages per second; 0 disables (benchmarks)


def build_application(
    config: TelegramConfig, dialog: Dialog | None = None, store: Store | None = None
) -> Application:  # type: ignore[type-arg]
    builder = (
        Application.builder()
        .token(config.token)
        .rate_limiter(
            AIORateLimiter(overall_max_rate=config.overall_max_rate, max_retries=config.max_retries)
        )
        .concurrent_updates(config.concurrent_updates)
    )
    if config.base_url:
        builder = builder.base_url(config.base_url).base_file_url(config.base_file_url or config.base_url)
    app = builder.post_init(register_commands).build()
    app.bot_data["dialog"] = dialog or Dialog(knowledge.load(config.catalog))
    app.bot_data["store"] = store or Store(config.db_path)
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


async def register_commands(app: Application) -> None:  # type: ignore[type-arg]
    """Command menus in English (default) and Chinese."""
    for lang, code in (("en", None), ("zh", "zh")):
        cmds = [BotCommand(c, locales.t(lang, f"commands.{c}")) for c in (*COMMANDS, "analyze")]
        await app.bot.set_my_commands(cmds, language_code=code)


# --- state ------------------------------------------------------------------------
def _load(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int, language_code: str | None
) -> ConversationState:
    state: ConversationState = context.bot_data["store"].load(PLATFORM, chat_id, user_id)
    if state.turns == 0 and not state.lang_locked and language_code:
        state = state.model_copy(update={"lang": "zh" if language_code.lower().startswith("zh") else "en"})
    return state


def _save(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int, state: ConversationState, reply: Reply
) -> None:
    store: Store = context.bot_data["store"]
    store.save(PLATFORM, chat_id, user_id, state)
    if reply.kind == "answer" and reply.plan is not None:
        store.log_plan(PLATFORM, reply.plan)


# --- handlers ---------------------------------------------------------------------
async def drop_duplicates(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Runs before every other handler: an update already answered is not answered again."""
    if not context.bot_data["store"].first_time(PLATFORM, update.update_id):
        log.info("dropping redelivered update %s", update.update_id)
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
    chat_id = message.chat.id
    async with context.bot_data["locks"].hold((chat_id, user.id)):
        await _converse_locked(context, message, user.id, user.language_code, text)


async def _converse_locked(
    context: ContextTypes.DEFAULT_TYPE, message: Message, user_id: int, language_code: str | None, text: str
) -> None:
    chat_id = message.chat.id
    state = _load(context, chat_id, user_id, language_code)
    if not context.bot_data["limiter"].allow((chat_id, user_id)):
        await reply_html(
            message,
            render.to_html(locales.t(state.lang, "dialog.slow_down")),
            None,
            quote=message.chat.type in GROUPS,
        )
        return
    dialog: Dialog = context.bot_data["dialog"]
    reply, state = dialog.handle(state, text)
    _save(context, chat_id, user_id, state, reply)
    await _send(message, reply, group=message.chat.type in GROUPS)
    if _command(text) == "/plan" and reply.kind == "answer" and message.chat.type not in GROUPS:
        await _send_chart(dialog, message, state)


async def _send_chart(dialog: Dialog, message: Message, state: ConversationState) -> None:
    """/plan in a private chat also gets the picture: memory vs card, cost vs alternatives, speed."""
    png = await asyncio.to_thread(dialog.chart_png, state)
    if png is not None:
        await with_retry(lambda: message.reply_photo(png, caption=locales.t(state.lang, "chart.caption")))


async def _send(message: Message, reply: Reply, group: bool) -> None:
    chunks = render.split(render.to_html(reply.text))
    for i, chunk in enumerate(chunks):
        markup = render.keyboard(reply.buttons) if i == len(chunks) - 1 else None
        await reply_html(message, chunk, markup, quote=group)


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A quick reply: acknowledge at once, then edit the question in place with what follows."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None or query.data is None:
        return
    await with_retry(query.answer)
    message = query.message
    if not isinstance(message, Message):
        return
    chat_id = message.chat.id
    async with context.bot_data["locks"].hold((chat_id, user.id)):
        state = _load(context, chat_id, user.id, user.language_code)
        dialog: Dialog = context.bot_data["dialog"]
        reply, state = dialog.press(state, query.data)
        _save(context, chat_id, user.id, state, reply)
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
    dialog: Dialog = context.bot_data["dialog"]
    lang = "zh" if (query.from_user.language_code or "").startswith("zh") else "en"
    reply = dialog.quick(query.query, lang, lock=False)
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
    state = _load(context, message.chat.id, user.id, user.language_code)
    if user.id not in config.admin_ids:
        await reply_html(message, html.escape(locales.t(state.lang, "admin.refused")), None, quote=True)
        return
    if _command(message.text) == "/stats":
        stats = context.bot_data["store"].stats()
        text = locales.t(
            state.lang,
            "admin.stats",
            conversations=stats["conversations"],
            plans=stats["plans"],
            top=[f"{o['offer']} ×{o['count']}" for o in stats["top_offers"]],
        )
    else:
        knowledge.load.cache_clear()
        dialog: Dialog = context.bot_data["dialog"]
        dialog.reload(knowledge.load(config.catalog))
        text = locales.t(state.lang, "admin.reloaded", offers=len(dialog.kb.catalog.offers))
    await reply_html(message, html.escape(text), None, quote=True)


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: its chat id changed, so move everyone's conversation."""
    message = update.effective_message
    if message is not None and message.migrate_to_chat_id:
        context.bot_data["store"].move_chat(PLATFORM, message.chat.id, message.migrate_to_chat_id)


async def _offer_dm(update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message) -> None:
    """In a group the long reasoning would flood the chat: offer it in a private chat instead."""
    user = update.effective_user
    assert user is not None
    state = _load(context, message.chat.id, user.id, user.language_code)
    chat = str(message.chat.id).replace("-", "m")
    link = f"https://t.me/{context.bot.username}?start=why_{chat}"
    text = html.escape(locales.t(state.lang, "telegram.why_in_dm"))
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
    state = _load(context, int(group_chat), user.id, user.language_code)
    dialog: Dialog = context.bot_data["dialog"]
    reply, _ = dialog.handle(state, "/why")
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
