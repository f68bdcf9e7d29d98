"""Bot API requests with JSON bodies instead of PTB's form encoding.

PTB posts every call as ``application/x-www-form-urlencoded``. For our replies that is
the most expensive thing the transport does: ``urllib.parse.quote`` escapes a reply
byte by byte in Python, and a Chinese character (three UTF-8 bytes) becomes nine
characters on the wire. A typical answer of ours (1,500 characters, mostly Chinese,
with a keyboard) spends more CPU in that loop than in the rest of PTB's send path.
The Bot API accepts ``application/json`` for every method that uploads no file
(core.telegram.org/bots/api, "Making requests"), and the standard library encodes
JSON in C, so calls without files go as JSON; uploads keep PTB's multipart path.
"""

from __future__ import annotations

import json

import httpx
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, HTTPXRequest, RequestData

HEADERS = {"User-Agent": HTTPXRequest.USER_AGENT, "Content-Type": "application/json"}


def json_body(request_data: RequestData) -> bytes:
    """The call's parameters as one UTF-8 JSON object (PTB has already turned objects into dicts)."""
    return json.dumps(request_data.parameters, ensure_ascii=False, separators=(",", ":")).encode()


class JsonRequest(HTTPXRequest):
    """``HTTPXRequest`` that sends calls without files as JSON; same pool, timeouts and errors."""

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if request_data is None or request_data.contains_files:
            return await super().do_request(
                url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
            )
        if self._client.is_closed:
            raise RuntimeError("This JsonRequest is not initialized!")
        timeout = self._timeout(read_timeout, write_timeout, connect_timeout, pool_timeout)
        try:
            res = await self._client.request(
                method, url, content=json_body(request_data), headers=HEADERS, timeout=timeout
            )
        except httpx.PoolTimeout as err:
            raise TimedOut("Pool timeout: every connection to the Bot API is busy; not sent.") from err
        except httpx.TimeoutException as err:
            raise TimedOut from err
        except httpx.HTTPError as err:  # the base class of httpx's errors, so it comes last
            raise NetworkError(f"httpx.{type(err).__name__}: {err}") from err
        return res.status_code, res.content

    def _timeout(
        self,
        read: ODVInput[float],
        write: ODVInput[float],
        connect: ODVInput[float],
        pool: ODVInput[float],
    ) -> httpx.Timeout:
        """A call's own timeouts, the client's where the call leaves one at its default."""
        default = self._client.timeout

        def pick(value: ODVInput[float], fallback: float | None) -> float | None:
            return fallback if isinstance(value, DefaultValue) else value

        return httpx.Timeout(
            connect=pick(connect, default.connect),
            read=pick(read, default.read),
            write=pick(write, default.write),
            pool=pick(pool, default.pool),
        )
