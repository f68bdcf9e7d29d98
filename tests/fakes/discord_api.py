"""A fake Discord on loopback — REST API and gateway websocket in one aiohttp app — for discord.py.

Transport tests must run discord.py's own HTTP client, rate-limit handling, gateway
session and view dispatch (STYLE.md §7), so instead of mocking our adapter we play
Discord: point ``discord.http.Route.BASE`` at :attr:`FakeDiscord.api_base` and
``DiscordWebSocket.DEFAULT_GATEWAY`` at :attr:`FakeDiscord.gateway_url`, then
``await bot.start(token)`` as in production.

    async with FakeDiscord(token="T") as fake:
        ...start the bot...
        alice = fake.user(1, "alice", locale="zh-CN")
        ix = await fake.slash(alice, "advise", text="部署 13B")
        [answer] = await fake.replies(ix)

Gateway (Discord developer docs, "Gateway events"): HELLO, HEARTBEAT → ACK,
IDENTIFY → READY (one unavailable guild) then GUILD_CREATE; interactions arrive as
INTERACTION_CREATE dispatches. Frames are sent as text, which discord.py accepts
despite asking for zlib-stream.

Refused as Discord refuses (so a bug we could ship fails a test): a callback later than
3 s (10062 Unknown interaction) or a second one (40060); follow-ups or edits before
the callback; embeds over their limits (title 256, description 4096, 25 fields, field
value 1024, footer 2048, 6000 in all, 10 per message); content over 2000; more than 5
rows or 5 buttons a row, custom_id over 100, label over 80, duplicate custom_ids; empty
messages; command names, descriptions or localisations Discord would reject; REST
calls without the bot token. JSON answers carry exactly ``Content-Type:
application/json`` (discord.py parses nothing else) and injected 429s carry ``Via``
unless told not to (discord.py treats a 429 without it as a Cloudflare ban).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any, Self

from aiohttp import WSMsgType, web

from tests.fakes.signal import Signal

Json = dict[str, Any]
EPHEMERAL, LOADING = 1 << 6, 1 << 7
CALLBACK_WINDOW_S = 3.0
_NAME = re.compile(r"^[-_\w]{1,32}$")
# Discord's locales (developer docs, "Reference: Locales")
# fmt: off
_LOCALES = frozenset({
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no",
    "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN",
    "ja", "zh-TW", "ko",
})
# fmt: on
_ROUTES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (method, name, re.compile(pattern))
    for method, name, pattern in (
        ("GET", "get_gateway", r"/gateway"),
        ("GET", "get_bot_gateway", r"/gateway/bot"),
        ("GET", "get_me", r"/users/@me"),
        ("GET", "application_info", r"(?:/oauth2)?/applications/@me"),
        ("PUT", "sync_commands", r"/applications/(?P<app>\d+)/commands"),
        ("PUT", "sync_guild_commands", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands"),
        ("POST", "callback", r"/interactions/(?P<id>\d+)/(?P<token>[^/]+)/callback"),
        ("GET", "get_original", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original"),
        ("PATCH", "edit_original", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original"),
        ("PATCH", "edit_followup", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<message>\d+)"),
        ("POST", "followup", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)"),
        ("POST", "send_message", r"/channels/(?P<channel>\d+)/messages"),
    )
)
_UNAUTHENTICATED = frozenset({"callback", "get_original", "edit_original", "edit_followup", "followup"})


class ApiError(Exception):
    """A refusal in Discord's shape: ``{"message": ..., "code": ...}`` with an HTTP status."""

    def __init__(self, status: int, code: int, message: str, errors: Json | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors

    @classmethod
    def invalid(cls, where: str, what: str) -> ApiError:
        return cls(
            400, 50035, "Invalid Form Body", {where: {"_errors": [{"code": "BASE_TYPE", "message": what}]}}
        )

    def to_json(self) -> Json:
        return {"message": self.message, "code": self.code} | ({"errors": self.errors} if self.errors else {})


@dataclass(frozen=True)
class Call:
    """One REST request the bot made; ``status`` is what the fake answered."""

    route: str
    method: str
    path: str
    body: Json
    query: dict[str, str]
    time: float  # time.monotonic()
    status: int = 200
    result: Any = None
    files: dict[str, bytes] = field(default_factory=dict)  # uploads of a multipart body, by filename

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def summary(self) -> str:
        return f"{self.method} {self.route} [{self.status}] {json.dumps(self.body, ensure_ascii=False)[:120]}"


@dataclass(frozen=True)
class User:
    id: int
    name: str
    locale: str = "zh-CN"

    def to_api(self) -> Json:
        user = {"id": str(self.id), "username": self.name, "global_name": self.name}
        return user | {"discriminator": "0", "avatar": None, "bot": False}


@dataclass
class Interaction:
    """An interaction the fake dispatched, and what the bot did with it."""

    id: str
    token: str
    kind: int  # 2 application command, 3 component, 5 modal submit
    sent_at: float
    user: User
    channel_id: str
    guild_id: str | None
    component_message: str | None = None
    callback: int | None = None  # the response type the bot chose
    callback_at: float | None = None
    original: str | None = None  # message id behind @original
    messages: list[str] = field(default_factory=list)  # created or edited for it, first to last
    modal: Json | None = None  # the form the bot opened in answer (response type 9)
    dm: bool = False


@dataclass
class _Fault:
    kind: str  # "fail" or "delay"
    times: int
    status: int = 429
    retry_after: float = 0.3
    via: bool = True
    seconds: float = 0.0


class FakeDiscord:
    """Discord's API v10 and gateway on 127.0.0.1:<free port>, with recording and fault injection."""

    def __init__(self, token: str, app_id: int = 900, guild_id: int = 700, channel_id: int = 701) -> None:
        self.token, self.app_id = token, str(app_id)
        self.guild_id, self.channel_id = str(guild_id), str(channel_id)
        self.bot_user: Json = {"id": self.app_id, "username": "GPU Advisor", "global_name": None}
        self.bot_user |= {"discriminator": "0", "avatar": None, "bot": True, "verified": True, "flags": 0}
        self.calls: list[Call] = []
        self.identified: list[Json] = []  # IDENTIFY payloads, token removed
        self.messages: dict[str, Json] = {}
        self.port = 0
        self._commands: dict[str | None, list[Json]] = {}
        self._interactions: dict[str, Interaction] = {}
        self._by_token: dict[str, Interaction] = {}
        self._faults: dict[str, list[_Fault]] = {}
        self._ids = itertools.count(1_000_000)
        self._session: web.WebSocketResponse | None = None
        self._sessions = 0
        self._seq = 0
        self._changed = Signal()
        self._runner: web.AppRunner | None = None

    # ---- lifecycle -------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        """For ``discord.http.Route.BASE``."""
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        """For ``DiscordWebSocket.DEFAULT_GATEWAY`` (as a yarl.URL)."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def __aenter__(self) -> Self:
        """Listen on loopback only, on a port the OS picks."""
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5, handler_cancellation=True)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # ---- test side: people and what they do ---------------------------------------------------

    def user(self, id: int, name: str, locale: str = "zh-CN") -> User:
        return User(id, name, locale)

    async def slash(self, user: User, name: str, /, dm: bool = False, **options: str) -> Interaction:
        """The user runs ``/name`` with string options (by their default names), in the guild or a DM."""
        command = self._registered(name, dm)
        declared = {o["name"]: o for o in command.get("options", [])}
        for key in options:
            if key not in declared:
                raise ValueError(f"/{name} has no option {key!r}; it declares {sorted(declared)}")
        missing = [k for k, o in declared.items() if o.get("required") and k not in options]
        if missing:
            raise ValueError(f"/{name} needs {missing}")
        sent = [{"name": k, "type": 3, "value": v} for k, v in options.items()]
        data = {"id": command["id"], "name": name, "type": 1, "options": sent}
        return await self._interact(user, 2, data, dm=dm)

    async def click(self, user: User, message: Json, custom_id: str) -> Interaction:
        """The user presses a button on a message; only buttons the message currently shows exist."""
        current = self.messages[message["id"]]
        offered = [c["custom_id"] for row in current.get("components", []) for c in row["components"]]
        if custom_id not in offered:
            raise ValueError(f"message {message['id']} has no button {custom_id!r}; it offers {offered}")
        owner = current.get("_for_user")
        if current["flags"] & EPHEMERAL and owner is not None and owner != str(user.id):
            raise ValueError("an ephemeral message is visible to its own user only")
        data = {"custom_id": custom_id, "component_type": 2}
        dm = current.get("_dm", False)
        return await self._interact(user, 3, data, dm=dm, message=current)

    async def submit(self, opened: Interaction, **values: str) -> Interaction:
        """The user fills in the form the bot opened for ``opened`` (inputs by custom_id) and sends it."""
        modal = opened.modal
        if modal is None:
            raise ValueError(f"interaction {opened.id} opened no form (its response was {opened.callback})")
        inputs = [c for row in modal["components"] for c in _inputs(row)]
        unknown = set(values) - {c["custom_id"] for c in inputs}
        if unknown:
            raise ValueError(
                f"the form has no input {sorted(unknown)}; it has {[c['custom_id'] for c in inputs]}"
            )
        rows = [
            {
                "type": 1,
                "components": [
                    {"type": 4, "custom_id": c["custom_id"], "value": values.get(c["custom_id"], "")}
                ],
            }
            for c in inputs
        ]
        data = {"custom_id": modal["custom_id"], "components": rows}
        message = self.messages.get(opened.component_message or "")
        return await self._interact(opened.user, 5, data, dm=opened.dm, message=message)

    async def _interact(
        self, user: User, kind: int, data: Json, dm: bool, message: Json | None = None
    ) -> Interaction:
        await self._wait_session()
        ix_id, token = str(next(self._ids)), f"interaction-token-{next(self._ids)}"
        channel = self._dm_channel(user) if dm else self.channel_id
        ix = Interaction(ix_id, token, kind, time.monotonic(), user, channel, None if dm else self.guild_id)
        ix.component_message, ix.dm = (message["id"] if message else None), dm
        self._interactions[ix_id] = self._by_token[token] = ix
        payload = self._interaction_payload(ix, data, dm) | ({"message": _public(message)} if message else {})
        await self._dispatch("INTERACTION_CREATE", payload)
        return ix

    def _interaction_payload(self, ix: Interaction, data: Json, dm: bool) -> Json:
        payload: Json = {"id": ix.id, "application_id": self.app_id, "type": ix.kind, "token": ix.token}
        payload |= {"version": 1, "data": data, "locale": ix.user.locale, "channel_id": ix.channel_id}
        payload |= {
            "app_permissions": "2248473465835073",
            "entitlements": [],
            "attachment_size_limit": 8 << 20,
        }
        if dm:
            channel = {"id": ix.channel_id, "type": 1, "recipients": [ix.user.to_api()]}
            return payload | {"user": ix.user.to_api(), "channel": channel, "context": 1}
        member = {"user": ix.user.to_api(), "roles": [], "joined_at": _now(), "deaf": False, "mute": False}
        member |= {"permissions": "2248473465835073", "flags": 0, "pending": False, "nick": None}
        guild = {"id": self.guild_id, "locale": "zh-CN", "features": []}
        channel = {"id": self.channel_id, "type": 0, "guild_id": self.guild_id, "name": "general"}
        payload |= {"guild_id": self.guild_id, "guild": guild, "guild_locale": "zh-CN", "member": member}
        return payload | {"channel": channel | {"position": 0, "permission_overwrites": []}, "context": 0}

    def _registered(self, name: str, dm: bool) -> Json:
        scopes = [None] if dm else [self.guild_id, None]
        for scope in scopes:
            for command in self._commands.get(scope, []):
                if command["name"] == name:
                    return command
        raise ValueError(
            f"/{name} is not registered (synced: {self.commands() or self.commands(guild=True)})"
        )

    def _dm_channel(self, user: User) -> str:
        return str(800_000 + user.id)

    # ---- test side: what the bot did ---------------------------------------------------------

    def calls_of(self, route: str, include_failed: bool = False) -> list[Call]:
        return [c for c in self.calls if c.route == route and (include_failed or c.ok)]

    def commands(self, guild: bool = False) -> list[Json]:
        """The commands last synced globally, or to the test guild."""
        return self._commands.get(self.guild_id if guild else None, [])

    async def wait_for(
        self,
        route: str,
        count: int = 1,
        timeout: float = 5.0,
        predicate: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """Await the bot's calls instead of sleeping; on timeout, say what did arrive."""
        found = await self._until(
            lambda: [c for c in self.calls_of(route) if predicate is None or predicate(c)], count, timeout
        )
        if found is None:
            raise AssertionError(f"expected {count} {route} call(s) in {timeout}s; got:\n  " + self._log())
        return found

    async def replies(self, ix: Interaction, count: int = 1, timeout: float = 5.0) -> list[Json]:
        """The finished messages an interaction created or edited, first to last, once ``count`` exist."""

        def finished() -> list[Json]:
            shown = [self.messages[m] for m in ix.messages]
            return [_public(m) for m in shown if not m["flags"] & LOADING and _has_content(m)]

        found = await self._until(finished, count, timeout)
        if found is None:
            raise AssertionError(
                f"interaction {ix.id}: expected {count} replies in {timeout}s; got:\n  " + self._log()
            )
        return found

    async def _until(self, probe: Callable[[], list[Any]], count: int, timeout: float) -> list[Any] | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(found := probe()) < count:
            if (remaining := deadline - loop.time()) <= 0:
                return None
            await self._changed.wait(remaining)
        return found

    def _log(self) -> str:
        return "\n  ".join(c.summary() for c in self.calls) or "(no calls)"

    # ---- fault injection -------------------------------------------------------------------

    def fail_next(
        self, route: str, status: int = 429, retry_after: float = 0.3, via: bool = True, times: int = 1
    ) -> None:
        """Answer the next ``times`` calls to ``route`` with an error (a 429 as Discord's rate limiter)."""
        self._faults.setdefault(route, []).append(_Fault("fail", times, status, retry_after, via))

    def delay_next(self, route: str, seconds: float, times: int = 1) -> None:
        self._faults.setdefault(route, []).append(_Fault("delay", times, seconds=seconds))

    def _take_fault(self, route: str) -> _Fault | None:
        queue = self._faults.get(route)
        if not queue:
            return None
        fault = queue[0]
        fault.times -= 1
        if fault.times <= 0:
            queue.pop(0)
        return fault

    # ---- gateway -----------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(msg.data)
            if frame["op"] == 1:
                await ws.send_str(json.dumps({"op": 11}))
            elif frame["op"] == 2:
                await self._identify(ws, frame["d"])
            elif frame["op"] == 6:  # no resuming here: invalid session, start afresh
                await ws.send_str(json.dumps({"op": 9, "d": False}))
        if self._session is ws:
            self._session = None
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: Json) -> None:
        if data.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return
        self.identified.append({k: v for k, v in data.items() if k != "token"})
        self._sessions += 1
        self._session, self._seq = ws, 0
        ready = {"v": 10, "user": self.bot_user, "guilds": [{"id": self.guild_id, "unavailable": True}]}
        ready |= {"session_id": f"session-{self._sessions}", "resume_gateway_url": self.gateway_url}
        ready |= {"application": {"id": self.app_id, "flags": 0}, "private_channels": []}
        await self._dispatch("READY", ready)
        await self._dispatch("GUILD_CREATE", self._guild())
        self._changed.fire()

    def _guild(self) -> Json:
        everyone = {"id": self.guild_id, "name": "@everyone", "permissions": "2248473465835073"}
        everyone |= {"position": 0, "color": 0, "hoist": False, "managed": False, "mentionable": False}
        channel = {"id": self.channel_id, "type": 0, "name": "general", "position": 0}
        channel |= {"guild_id": self.guild_id, "permission_overwrites": [], "nsfw": False}
        guild = {
            "id": self.guild_id,
            "name": "Test guild",
            "icon": None,
            "owner_id": "1",
            "roles": [everyone],
        }
        guild |= {"channels": [channel], "threads": [], "members": [], "member_count": 2, "large": False}
        guild |= {"unavailable": False, "features": [], "emojis": [], "stickers": [], "voice_states": []}
        return guild | {"presences": [], "joined_at": _now(), "preferred_locale": "zh-CN"}

    async def _wait_session(self, timeout: float = 5.0) -> None:
        if await self._until(lambda: [self._session] if self._session else [], 1, timeout) is None:
            raise AssertionError("no bot is connected to the gateway")

    async def _dispatch(self, event: str, data: Json) -> None:
        if self._session is None:
            raise AssertionError("no gateway session")
        self._seq += 1
        await self._session.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    # ---- REST --------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        route, params = _match(request.method, path)
        body, files = await _read_body(request)
        call = Call(route, request.method, path, body, dict(request.query), time.monotonic(), files=files)
        try:
            if route not in _UNAUTHENTICATED and request.headers.get("Authorization") != f"Bot {self.token}":
                raise ApiError(401, 0, "401: Unauthorized")
            fault = self._take_fault(route)
            if fault is not None and fault.kind == "delay":
                await asyncio.sleep(fault.seconds)
            elif fault is not None:
                return self._fail(call, fault)
            result = await self._handle(route, params, call)
        except ApiError as err:
            self._record(replace(call, status=err.status, result=err.to_json()))
            return _json(err.to_json(), err.status)
        self._record(replace(call, status=204 if result is None else 200, result=result))
        return web.Response(status=204) if result is None else _json(result)

    def _fail(self, call: Call, fault: _Fault) -> web.Response:
        body: Json = {"message": "You are being rate limited.", "code": 0}
        headers = {"Via": "1.1 google"} if fault.via else {}
        if fault.status == 429:
            body |= {"retry_after": fault.retry_after, "global": False}
            headers |= {"Retry-After": str(max(1, round(fault.retry_after))), "X-RateLimit-Scope": "user"}
        self._record(replace(call, status=fault.status, result=body))
        return _json(body, fault.status, headers)

    def _record(self, call: Call) -> None:
        self.calls.append(call)
        self._changed.fire()

    async def _handle(self, route: str, params: dict[str, str], call: Call) -> Any:
        if route.startswith("unknown"):
            raise ApiError(404, 0, "404: Not Found")
        if route == "send_message":
            return self._send_message(params["channel"], call.body)
        if route in ("get_gateway", "get_bot_gateway"):
            limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
            return {"url": self.gateway_url} | (
                {"shards": 1, "session_start_limit": limit} if "bot" in route else {}
            )
        if route == "get_me":
            return self.bot_user
        if route == "application_info":
            return self._application()
        if route.startswith("sync"):
            return self._sync(params, call.body)
        if route == "callback":
            return self._callback(params, call.body)
        return self._webhook(route, params, call)

    def _application(self) -> Json:
        app = {"id": self.app_id, "name": "GPU Advisor", "description": "", "icon": None, "bot_public": True}
        app |= {"bot_require_code_grant": False, "verify_key": "0" * 64, "flags": 0, "rpc_origins": []}
        return app | {"owner": {"id": "1", "username": "owner", "discriminator": "0", "avatar": None}}

    # ---- application commands ------------------------------------------------------------------

    def _sync(self, params: dict[str, str], body: Any) -> list[Json]:
        if params["app"] != self.app_id:
            raise ApiError(403, 50001, "Missing Access")
        guild = params.get("guild")
        if guild is not None and guild != self.guild_id:
            raise ApiError(403, 50001, "Missing Access")
        if not isinstance(body, list) or len(body) > 100:
            raise ApiError.invalid("commands", "a list of at most 100 commands")
        for i, command in enumerate(body):
            _check_command(f"{i}", command)
        extra = {"application_id": self.app_id, "version": "1", "default_member_permissions": None}
        extra |= {"guild_id": guild} if guild else {}
        self._commands[guild] = [{"type": 1, "id": str(next(self._ids))} | c | extra for c in body]
        return self._commands[guild]

    # ---- interactions -------------------------------------------------------------------------

    def _callback(self, params: dict[str, str], body: Json) -> Json:
        ix = self._interactions.get(params["id"])
        if ix is None or ix.token != params["token"] or time.monotonic() - ix.sent_at > CALLBACK_WINDOW_S:
            raise ApiError(404, 10062, "Unknown interaction")
        if ix.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        kind, data = int(body["type"]), body.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 5: {4, 5, 6, 7} if ix.component_message else {4, 5}}
        if kind not in allowed[ix.kind]:
            raise ApiError.invalid(
                "type", f"response type {kind} is not valid for interaction type {ix.kind}"
            )
        if kind in (4, 7):
            _check_message(data)
        if kind == 9:
            _check_modal(data)
            ix.modal = data
        ix.callback, ix.callback_at = kind, time.monotonic()
        if kind in (6, 7):
            ix.original = ix.component_message
            if kind == 7:
                self._edit(ix, ix.component_message or "", data)
        elif kind in (4, 5):
            loading = LOADING if kind == 5 else 0
            ix.original = self._new_message(ix, data, extra_flags=loading)["id"]
        message = self.messages.get(ix.original or "")
        answer: Json = {"interaction": {"id": ix.id, "type": ix.kind, "response_message_id": ix.original}}
        answer["interaction"] |= {"response_message_loading": kind == 5}
        answer["interaction"] |= {
            "response_message_ephemeral": bool(message and message["flags"] & EPHEMERAL)
        }
        if message is not None and kind in (4, 5, 7):
            answer["resource"] = {"type": kind, "message": _public(message)}
        return answer

    def _webhook(self, route: str, params: dict[str, str], call: Call) -> Json | None:
        ix = self._by_token.get(params.get("token", ""))
        if ix is None or params.get("app") != self.app_id:
            raise ApiError(404, 10015, "Unknown Webhook")
        if ix.callback is None:
            raise ApiError(404, 10015, "Unknown Webhook")  # nothing to follow up yet
        if route == "followup":
            _check_message(call.body)
            message = self._new_message(ix, call.body)
            return _public(message) if call.query.get("wait") in ("true", "1", "True") else None
        target = ix.original if route.endswith("original") else params.get("message")
        if target not in self.messages or (target != ix.original and target not in ix.messages):
            raise ApiError(404, 10008, "Unknown Message")
        if route == "get_original":
            return _public(self.messages[target])
        _check_message(call.body, editing=True)
        return _public(self._edit(ix, target, call.body))

    def _send_message(self, channel_id: str, data: Json) -> Json:
        """A plain channel message (not through an interaction): the guild channel or a known DM."""
        dms = {self._dm_channel(ix.user) for ix in self._interactions.values()}
        if channel_id != self.channel_id and channel_id not in dms:
            raise ApiError(404, 10003, "Unknown Channel")
        _check_message(data)
        guild = self.guild_id if channel_id == self.channel_id else None
        return _public(self._store(channel_id, guild, data, flags=0, kind=0))

    def _new_message(self, ix: Interaction, data: Json, extra_flags: int = 0) -> Json:
        flags = (int(data.get("flags", 0)) & EPHEMERAL) | extra_flags
        message = self._store(ix.channel_id, ix.guild_id, data, flags, kind=20 if ix.kind == 2 else 19)
        message |= {"webhook_id": self.app_id, "application_id": self.app_id, "_for_user": str(ix.user.id)}
        ix.messages.append(message["id"])
        return message

    def _store(self, channel_id: str, guild_id: str | None, data: Json, flags: int, kind: int) -> Json:
        message: Json = {"id": str(next(self._ids)), "channel_id": channel_id, "author": self.bot_user}
        message |= {"content": data.get("content", ""), "embeds": data.get("embeds", [])}
        message |= {"components": data.get("components", []), "flags": flags, "type": kind}
        message |= {"timestamp": _now(), "edited_timestamp": None, "tts": False, "mention_everyone": False}
        message |= {"mentions": [], "mention_roles": [], "attachments": [], "pinned": False}
        message |= {"_dm": guild_id is None} | ({"guild_id": guild_id} if guild_id else {})
        self.messages[message["id"]] = message
        self._changed.fire()
        return message

    def _edit(self, ix: Interaction, message_id: str, data: Json) -> Json:
        """Replace what the edit names; a loading message stops loading. Stored messages are replaced."""
        old = self.messages[message_id]
        new = old | {k: data[k] for k in ("content", "embeds", "components", "attachments") if k in data}
        new |= {"flags": old["flags"] & ~LOADING, "edited_timestamp": _now()}
        if not _has_content(new):
            raise ApiError(400, 50006, "Cannot send an empty message")
        self.messages[message_id] = new
        if message_id not in ix.messages:
            ix.messages.append(message_id)
        return new


async def _read_body(request: web.Request) -> tuple[Json, dict[str, bytes]]:
    """JSON, or multipart as discord.py sends an upload: ``payload_json`` and one part per file."""
    if not request.can_read_body:
        return {}, {}
    if not request.content_type.startswith("multipart/"):
        return await request.json(), {}
    form = await request.post()
    files = {v.filename: v.file.read() for v in form.values() if isinstance(v, web.FileField)}
    return json.loads(str(form["payload_json"])), files


# ---- content rules ---------------------------------------------------------------------------


def _check_message(data: Json, editing: bool = False) -> None:
    """Discord's limits for a message body; an over-long embed is a 400, not a truncation."""
    if len(data.get("content") or "") > 2000:
        raise ApiError.invalid("content", "Must be 2000 or fewer in length.")
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        raise ApiError.invalid("embeds", "Must be 10 or fewer in length.")
    for i, embed in enumerate(embeds):
        _check_embed(f"embeds.{i}", embed)
    if sum(_embed_size(e) for e in embeds) > 6000:
        raise ApiError.invalid("embeds", "Embed size exceeds maximum size of 6000")
    _check_components(data.get("components") or [])
    if not editing and not (data.get("content") or embeds or data.get("components")):
        raise ApiError(400, 50006, "Cannot send an empty message")


def _check_embed(where: str, embed: Json) -> None:
    limits = {"title": 256, "description": 4096}
    for key, limit in limits.items():
        if len(embed.get(key) or "") > limit:
            raise ApiError.invalid(f"{where}.{key}", f"Must be {limit} or fewer in length.")
    if len((embed.get("footer") or {}).get("text") or "") > 2048:
        raise ApiError.invalid(f"{where}.footer.text", "Must be 2048 or fewer in length.")
    if len((embed.get("author") or {}).get("name") or "") > 256:
        raise ApiError.invalid(f"{where}.author.name", "Must be 256 or fewer in length.")
    fields = embed.get("fields") or []
    if len(fields) > 25:
        raise ApiError.invalid(f"{where}.fields", "Must be 25 or fewer in length.")
    for j, f in enumerate(fields):
        if not 1 <= len(f.get("name") or "") <= 256 or not 1 <= len(f.get("value") or "") <= 1024:
            raise ApiError.invalid(f"{where}.fields.{j}", "name 1-256, value 1-1024 characters")


def _embed_size(embed: Json) -> int:
    fields = embed.get("fields") or []
    parts = [embed.get("title"), embed.get("description"), (embed.get("footer") or {}).get("text")]
    parts += [(embed.get("author") or {}).get("name")]
    parts += [f.get("name") for f in fields] + [f.get("value") for f in fields]
    return sum(len(p or "") for p in parts)


def _check_components(rows: list[Json]) -> None:
    if len(rows) > 5:
        raise ApiError.invalid("components", "Must be 5 or fewer in length.")
    seen: set[str] = set()
    for i, row in enumerate(rows):
        buttons = row.get("components") or []
        if row.get("type") != 1 or not 1 <= len(buttons) <= 5:
            raise ApiError.invalid(f"components.{i}", "an action row holds 1 to 5 buttons")
        for j, button in enumerate(buttons):
            if button.get("style") == 5:  # a link button: a URL, no custom_id
                if (
                    not str(button.get("url", "")).startswith(("https://", "http://"))
                    or "custom_id" in button
                ):
                    raise ApiError.invalid(f"components.{i}.components.{j}", "a link button has a url only")
                continue
            custom_id = button.get("custom_id") or ""
            if not 1 <= len(custom_id) <= 100 or len(button.get("label") or "") > 80:
                raise ApiError.invalid(f"components.{i}.components.{j}", "custom_id 1-100, label ≤ 80")
            if custom_id in seen:
                raise ApiError.invalid(
                    f"components.{i}.components.{j}.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED"
                )
            seen.add(custom_id)


def _check_modal(data: Json) -> None:
    """A form: a custom_id, a title of 1-45, 1-5 text inputs (label 1-45, max_length up to 4000)."""
    if not 1 <= len(data.get("custom_id") or "") <= 100 or not 1 <= len(data.get("title") or "") <= 45:
        raise ApiError.invalid("data", "a modal needs a custom_id and a title of 1-45 characters")
    inputs = [c for row in data.get("components") or [] for c in _inputs(row)]
    if not 1 <= len(inputs) <= 5:
        raise ApiError.invalid("data.components", "a modal holds 1 to 5 text inputs")
    for i, text in enumerate(inputs):
        label = text.get("label") or ""
        if (
            text.get("type") != 4
            or not 1 <= len(label) <= 45
            or not 1 <= int(text.get("max_length", 4000)) <= 4000
        ):
            raise ApiError.invalid(f"data.components.{i}", "text input: label 1-45, max_length 1-4000")


def _inputs(row: Json) -> list[Json]:
    """The inputs of one top-level modal component: an action row's, or a label's one."""
    if row.get("type") == 18:
        return [row["component"]]
    return list(row.get("components") or [])


def _check_command(where: str, command: Json) -> None:
    _check_names(where, command)
    options = command.get("options") or []
    if len(options) > 25:
        raise ApiError.invalid(f"{where}.options", "Must be 25 or fewer in length.")
    required = [bool(o.get("required")) for o in options]
    if required != sorted(required, reverse=True):
        raise ApiError.invalid(f"{where}.options", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID")
    for i, o in enumerate(options):
        _check_names(f"{where}.options.{i}", o)
        for j, choice in enumerate(o.get("choices") or []):
            if not 1 <= len(choice["name"]) <= 100:
                raise ApiError.invalid(f"{where}.options.{i}.choices.{j}", "name 1-100 characters")


def _check_names(where: str, item: Json) -> None:
    names = [item["name"], *(item.get("name_localizations") or {}).values()]
    descriptions = [item["description"], *(item.get("description_localizations") or {}).values()]
    locales = {*(item.get("name_localizations") or {}), *(item.get("description_localizations") or {})}
    if unknown := locales - _LOCALES:
        raise ApiError.invalid(f"{where}.name_localizations", f"unknown locales {sorted(unknown)}")
    for name in names:
        if not _NAME.match(name) or name != name.lower():
            raise ApiError.invalid(f"{where}.name", f"APPLICATION_COMMAND_INVALID_NAME {name!r}")
    for description in descriptions:
        if not 1 <= len(description) <= 100:
            raise ApiError.invalid(f"{where}.description", f"Must be 1-100 in length: {description!r}")


# ---- helpers -----------------------------------------------------------------------------------


def _match(method: str, path: str) -> tuple[str, dict[str, str]]:
    for route_method, name, pattern in _ROUTES:
        if route_method == method and (m := pattern.fullmatch(path)):
            return name, m.groupdict()
    return f"unknown {method} {path}", {}


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """Exactly ``application/json``: with "; charset=utf-8" discord.py would not parse the body."""
    return web.Response(
        body=json.dumps(body).encode(), status=status, headers=headers, content_type="application/json"
    )


def _public(message: Json) -> Json:
    """A stored message as Discord shows it (without the fake's bookkeeping keys)."""
    return {k: v for k, v in message.items() if not k.startswith("_")}


def _has_content(message: Json) -> bool:
    return bool(message.get("content") or message.get("embeds") or message.get("components"))


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
