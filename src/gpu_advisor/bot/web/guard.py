"""Middleware in front of every handler: CORS allow-list, JSON errors, per-address limit, body size.

Outermost first: ``cors`` sees every response, errors included, so the widget on an
allowed site can read a 429's body; a request from a browser page on any other origin
is refused before it does anything. ``errors`` turns every exception into the JSON
error object. ``limits`` refuses over-eager clients, oversized bodies and, for a route that
needs a turn worker, a request admission control would refuse anyway (issue 41), before a
handler reads a byte: such a refusal costs no body read, no parse, no session load and no
log line, only a counter. Its body is rendered once per language and Retry-After
(``overloaded_response``), the client's key once per peer and X-Forwarded-For (``_key_of``),
and the connection is kept alive, so a refusal is a few dozen microseconds of the event
loop. A client that comes back before the Retry-After it was given is held until then
(``Admission.hold_early``, a timer) and is then admitted or refused like any arrival: it is
not refused again, and again, as fast as it can send.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time
from functools import lru_cache
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler

from gpu_advisor import locales
from gpu_advisor.bot.admission import Overloaded
from gpu_advisor.bot.storage import StorageUnavailable
from gpu_advisor.bot.turn import STORAGE_ERRORS
from gpu_advisor.bot.web import proxies
from gpu_advisor.bot.web.context import ARRIVED, CLIENT, CONTEXT
from gpu_advisor.bot.web.errors import (
    ApiError,
    dumps,
    error,
    from_http,
    json_response,
    overloaded,
    rate_limited,
    too_large,
    unavailable,
)
from gpu_advisor.text.normalize import client_lang

log = logging.getLogger(__name__)
ADMIN_PREFIX = "/api/admin/"
# The routes that take a turn worker's time (POST), and so pass admission control.
ADMITTED = frozenset(
    {
        "/api/chat",
        "/api/chat/chart",
        "/api/chat/forget",
        "/api/estimate",
        "/api/recommend",
        "/api/analyze",
        "/api/quote",
    }
)
PREFLIGHT = {
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type",
    "Access-Control-Max-Age": "600",
}


def normalize_origin(origin: str) -> str:
    """ "https://Rent.Example/" → "https://rent.example"; anything but scheme://host[:port] is refused."""
    if origin == "*":
        return origin
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
        raise ValueError(f"not an origin (scheme://host[:port]): {origin!r}")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def _listed(origin: str, allowed: tuple[str, ...]) -> bool:
    return "*" in allowed or origin.lower() in allowed


def _own_page(origin: str, request: web.Request) -> bool:
    """The chat page this server serves, posting back to it, where no other site can pose as it.

    Its origin is this server's own, and the Host is an address (127.0.0.1, [::1]) or
    localhost. A DNS name proves nothing: a hostile page can point its own name at this
    server (DNS rebinding) and send ``Host`` and ``Origin`` that match. A site that serves
    the chat page under its name lists it with ``--cors-origin``.
    """
    parts = urlsplit(origin)
    if parts.netloc.lower() != request.host.lower() or parts.hostname is None:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        ipaddress.ip_address(parts.hostname)
    except ValueError:
        return False
    return True


@web.middleware
async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
    allowed = request.app[CONTEXT].config.cors_origins
    origin = request.headers.get("Origin")
    listed = origin is not None and _listed(origin, allowed)
    same_site = origin is not None and _own_page(origin, request)
    if origin is not None and not (listed or same_site):
        exc = error(403, f"origin {origin} may not use this API", code="origin_not_allowed")
        response: web.StreamResponse = json_response(exc.payload, 403)
    elif request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        response = web.Response(status=204, headers=PREFLIGHT)
    else:
        response = await handler(request)
    if listed and origin is not None:
        response.headers["Access-Control-Allow-Origin"] = "*" if "*" in allowed else origin
        response.headers["Access-Control-Expose-Headers"] = "Retry-After"
    response.headers.add("Vary", "Origin")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as exc:
        return json_response(exc.payload, exc.status, exc.headers)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return from_http(exc)
    except asyncio.CancelledError:
        raise
    except STORAGE_ERRORS as exc:
        # An outage is said once, with a count, where the store runs (bot.storage.outage)
        level = logging.DEBUG if isinstance(exc, StorageUnavailable) else logging.ERROR
        log.log(level, "web request could not use the store: %s %s: %s", request.method, request.path, exc)
        exc_ = unavailable("storage unavailable; please try again in a few minutes")
        return json_response(exc_.payload, exc_.status, exc_.headers)
    except Exception:
        log.exception("web request failed: %s %s", request.method, request.path)
        return json_response(error(500, "internal error; see the server log", code="internal").payload, 500)


def body_limit(request: web.Request) -> int:
    config = request.app[CONTEXT].config
    return config.max_catalog_bytes if request.path.startswith(ADMIN_PREFIX) else config.max_body_bytes


def client_address(request: web.Request) -> str:
    """The peer, or behind a listed reverse proxy the right-most untrusted X-Forwarded-For hop.

    ``ForgedForwarding`` when proxies are listed and a peer outside them sends the header.
    """
    forwarded = request.headers.getall(proxies.HEADER, None)
    joined = ",".join(forwarded) if forwarded else None
    return proxies.client_of(request.remote, joined, request.app[CONTEXT].config.trusted_proxies)


def client_key(request: web.Request) -> str:
    """The client's network (``proxies.network_of``): whom fair shares and per-client limits count.

    Set by ``limits`` on every request; computed here for a handler reached without it (tests).
    """
    key = request.get(CLIENT)
    if key is None:
        config = request.app[CONTEXT].config
        forwarded = request.headers.getall(proxies.HEADER, None)
        joined = ",".join(forwarded) if forwarded else None
        key = _key_of(
            request.remote, joined, config.trusted_proxies, config.client_v4_prefix, config.client_v6_prefix
        )
        request[CLIENT] = key
    return key


@lru_cache(maxsize=4096)
def _key_of(peer: str | None, forwarded: str | None, cidrs: tuple[str, ...], v4: int, v6: int) -> str:
    """The key of a peer and its X-Forwarded-For: parsing addresses was a third of a refusal's
    CPU, and a client sends the same pair request after request (a refusal raised is not cached)."""
    return proxies.network_of(proxies.client_of(peer, forwarded, cidrs), v4, v6)


@lru_cache(maxsize=64)
def _overloaded_body(lang: str, retry_after: int) -> bytes:
    text = locales.t(lang, "hardening.overloaded", seconds=retry_after)
    return dumps(overloaded(text, retry_after).payload).encode()


def overloaded_response(lang: str, retry_after: int) -> web.Response:
    """The 503 of admission control, its JSON body rendered once per language and Retry-After."""
    return web.Response(
        body=_overloaded_body(lang, retry_after),
        status=503,
        content_type="application/json",
        charset="utf-8",
        headers={"Retry-After": str(retry_after)},
    )


def browser_lang(request: web.Request) -> str:
    """The browser's language (Accept-Language) by the one mapping, ``text.normalize.client_lang``;
    a browser that says nothing, or another language, meets the site's Chinese."""
    return client_lang(request.headers.get("Accept-Language"), default="zh")


@web.middleware
async def limits(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        client = client_key(request)
    except proxies.ForgedForwarding as exc:
        log.warning("refused %s %s: %s", request.method, request.path, exc)
        raise error(
            400, "X-Forwarded-For is accepted only from the site's proxy", field=proxies.HEADER
        ) from None
    except proxies.BadForwarding:
        raise error(
            400, "X-Forwarded-For does not name the client's IP address", field=proxies.HEADER
        ) from None
    if request.path.startswith("/api/"):
        ctx = request.app[CONTEXT]
        if not ctx.per_ip.allow(("ip", client)):
            raise rate_limited("address")
        limit = body_limit(request)
        if request.content_length is not None and request.content_length > limit:
            raise too_large(limit)
        if request.method == "POST" and request.path in ADMITTED:
            if await ctx.admission.hold_early(client):  # it came back before its Retry-After
                request[ARRIVED] = time.monotonic()  # it arrives when it was told to
            try:  # refused now, it is refused before its body is read
                ctx.admission.check(client, request.get(ARRIVED))
            except Overloaded as exc:
                return overloaded_response(browser_lang(request), exc.retry_after)
    return await handler(request)


async def read_body(request: web.Request) -> bytes:
    """The body, refused with 413 as soon as it grows past the route's limit (chunked uploads too)."""
    limit = body_limit(request)
    body = bytearray()
    async for chunk in request.content.iter_any():
        body += chunk
        if len(body) > limit:
            raise too_large(limit)
    return bytes(body)
