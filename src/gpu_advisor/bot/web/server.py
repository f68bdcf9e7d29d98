"""Listening for the web surface: idle connections time out, one address holds only so many.

aiohttp closes a connection that has sent nothing for ``keepalive_timeout`` seconds, but
offers no per-address cap; without one a single client can open idle connections until
the process runs out of file descriptors (1,024 by default) and nobody else gets in.
``AddressLimitedHandler`` counts open connections per peer address and closes a new one
at once past ``connections_per_ip``. It is aiohttp's own ``RequestHandler``, built by a
protocol factory handed to ``loop.create_server``: everything else is aiohttp's. The listen
backlog is ``listen_backlog``, not asyncio's 100, which a burst of connections overflows.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from gpu_advisor.bot.web.config import WebConfig
from gpu_advisor.bot.web.processes import reuse_port, spread_connections
from gpu_advisor.bot.web.proxies import trusted

log = logging.getLogger(__name__)


class AddressLimitedHandler(web.RequestHandler):
    """aiohttp's connection handler, refusing a peer that already holds ``limit`` connections."""

    def __init__(
        self, manager: web.Server, counts: Counter[str], limit: int, proxies: tuple[str, ...], **kwargs: Any
    ) -> None:
        super().__init__(manager, **kwargs)
        self._counts, self._limit, self._proxies = counts, limit, proxies
        self._address: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        if self._limit and self._counts[address] >= self._limit and not trusted(address, self._proxies):
            log.warning("refused a connection from %s: it holds %d already", address, self._limit)
            transport.close()  # aiohttp never saw it, so it need not hear connection_lost
            return
        self._address = address
        self._counts[address] += 1
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._address is None:
            return
        self._counts[self._address] -= 1
        if not self._counts[self._address]:
            del self._counts[self._address]
        self._address = None
        super().connection_lost(exc)


@dataclass
class Listening:
    runner: web.AppRunner
    server: asyncio.Server

    @property
    def port(self) -> int:
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        self.server.close()
        await self.runner.cleanup()


async def listen(app: web.Application, config: WebConfig, port: int | None = None) -> Listening:
    """Serve ``app`` on ``config.host`` (``port`` overrides ``config.port``; 0 picks a free one)."""
    if reuse_port():  # one of several processes on the port: kept-alive connections move on
        spread_connections(app)
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=config.keepalive_timeout_s)
    await runner.setup()
    loop = asyncio.get_running_loop()
    counts: Counter[str] = Counter()
    limit = config.connections_per_ip
    manager = runner.server
    assert manager is not None  # set by setup()

    def handler() -> AddressLimitedHandler:
        return AddressLimitedHandler(
            manager,
            counts,
            limit,
            config.trusted_proxies,
            loop=loop,
            keepalive_timeout=config.keepalive_timeout_s,
            access_log=None,
        )

    server = await loop.create_server(
        handler,
        config.host,
        config.port if port is None else port,
        reuse_port=reuse_port() or None,
        backlog=config.listen_backlog,
    )
    return Listening(runner, server)
