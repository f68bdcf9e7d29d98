"""Every failure as the CLI's JSON error object (``bot.errors``): ``{"error": {"code", "field", …}}``.

Handlers raise ``ApiError``; the middleware in ``bot.web.guard`` turns it, and aiohttp's
own 404/405/413, into a JSON response. Nothing else ever reaches a client.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from aiohttp import web

from gpu_advisor.bot.errors import error_body

_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(obj: Any) -> str:
    """JSON as UTF-8 text; a lone surrogate (from a header's undecodable bytes, echoed in a
    message) becomes U+FFFD rather than failing the response."""
    return _SURROGATE.sub("\ufffd", json.dumps(obj, ensure_ascii=False))


RETRY_AFTER_S = 60  # bot.ratelimit's window: a full window always frees a slot

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "rate_limited",
    503: "storage_unavailable",
}


class ApiError(Exception):
    def __init__(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(payload["error"].get("message", ""))
        self.status, self.payload, self.headers = status, payload, headers or {}


def error(status: int, message: str, field: str | None = None, **extra: Any) -> ApiError:
    code = extra.pop("code", None) or HTTP_CODES.get(status, "error")
    return ApiError(status, error_body(code, message, field, **extra))


def too_large(limit: int) -> ApiError:
    return error(413, f"request body exceeds {limit} bytes")


def rate_limited(what: str, retry_after: float = RETRY_AFTER_S, message: str | None = None) -> ApiError:
    seconds = max(1, math.ceil(retry_after))
    text = message or f"too many requests from this {what}; retry later"
    exc = error(429, text, retry_after=seconds)
    exc.headers["Retry-After"] = str(seconds)
    return exc


def unavailable(message: str) -> ApiError:
    """The store cannot be written (disk full, read-only, I/O error): try again later."""
    exc = error(503, message, retry_after=RETRY_AFTER_S)
    exc.headers["Retry-After"] = str(RETRY_AFTER_S)
    return exc


def overloaded(message: str, retry_after: int) -> ApiError:
    """Admission control refused the request (bot.admission): the workers are busy, try again soon."""
    exc = error(503, message, code="overloaded", retry_after=retry_after)
    exc.headers["Retry-After"] = str(retry_after)
    return exc


def json_response(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(payload, status=status, headers=headers, dumps=dumps)


def from_http(exc: web.HTTPException) -> web.Response:
    """aiohttp's 404/405/413… as a JSON error, keeping headers such as ``Allow``."""
    message = exc.reason if exc.status != 413 else "request body too large"
    headers = {k: v for k, v in exc.headers.items() if k.lower() in ("allow", "retry-after")}
    return json_response(error(exc.status, message).payload, exc.status, headers)
