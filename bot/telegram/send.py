"""Sending with the retries Telegram needs.

429s are the rate limiter's job (``AIORateLimiter(max_retries=…)`` honours retry_after);
here we retry what it does not: transient network errors and timeouts, twice, with a
short back-off. Anything else propagates to the application's error handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import NetworkError, RetryAfter, TimedOut

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
