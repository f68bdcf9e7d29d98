"""The Telegram bot's settings and the transport they configure (token, server, limits, pool sizes).

Apart from the handlers (``bot.telegram.app``) so the benchmark's echo bot is built from
the very same transport and differs from ours only in what its handlers do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from telegram.ext import AIORateLimiter, Application, ApplicationBuilder

from gpu_advisor.bot.telegram.context import CONTEXT_TYPES
from gpu_advisor.bot.telegram.request import JsonRequest


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
    mode: str = "long polling"  # how updates arrive, for the start-up log line ("webhook at <url>")


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
