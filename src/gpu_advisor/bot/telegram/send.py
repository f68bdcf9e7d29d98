"""Sending with the retries Telegram needs.

429s are the rate limiter's job (``AIORateLimiter(max_retries=…)`` honours retry_after);
here we retry what it does not: transient network errors and timeouts, twice, with a
short back-off. Anything else propagates to the application's error handler, which
reports it here (``report_error``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import NetworkError, RetryAfter, TimedOut

from gpu_advisor import locales
from gpu_advisor.text.normalize import client_lang

log = logging.getLogger(__name__)
T = TypeVar("T")
ATTEMPTS = 3
BACKOFF_S = 0.5


async def with_retry(call: Callable[[], Awaitable[T]]) -> T:
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return await call()
        except RetryAfter:
            raise
        except (NetworkError, TimedOut):
            if attempt == ATTEMPTS:
                raise
            await asyncio.sleep(BACKOFF_S * attempt)
    raise AssertionError("unreachable")


async def reply_html(
    message: Message, text: str, markup: InlineKeyboardMarkup | None, quote: bool
) -> Message:
    """Reply in HTML; in groups as a reply to the asker so threads stay readable."""
    return await with_retry(
        lambda: message.reply_text(
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            do_quote=quote,
            disable_web_page_preview=True,
        )
    )


async def report_error(update: object, error: BaseException | None) -> None:
    """A handler failed: log it once with the update's ids, tell the user politely in their language."""
    where = update.to_dict() if isinstance(update, Update) else {}
    chat = where.get("message", {}).get("chat", {}).get("id") if where else None
    log.error(
        "telegram handler failed (update %s, chat %s): %r",
        where.get("update_id"),
        chat,
        error,
        exc_info=error,
    )
    if isinstance(update, Update) and update.effective_message is not None:
        user = update.effective_user
        lang = client_lang(user.language_code if user else None)
        try:
            await update.effective_message.reply_text(locales.t(lang, "dialog.error_generic"))
        except Exception:  # the error may be the network itself; the log above has it
            log.warning("could not tell the user about the error", exc_info=True)
