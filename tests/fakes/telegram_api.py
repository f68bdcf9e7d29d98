"""A fake Telegram Bot API server on loopback, for driving the real python-telegram-bot offline.

Transport tests must exercise PTB's own request encoding, response parsing, retries and long
polling (STYLE.md §7), so instead of mocking our adapter we answer PTB's HTTP requests the way
the real Bot API does (its documentation, "Making requests"): ``{"ok": true,
"result": ...}`` or ``{"ok": false, "error_code": ..., "description": ..., "parameters": ...}``.

    async with FakeTelegram() as tg:
        app = Application.builder().token("123:TEST").base_url(tg.base_url)...build()
        alice = tg.user(1, "Alice")
        tg.send_text(alice, "/start")
        [reply] = await tg.wait_for("sendMessage")

The fake refuses what the real server refuses when that refusal is a bug we could ship: unknown
chats, over-long texts (4096) and captions (1024), callback_data over 64 bytes, HTML that does not
parse, edits that change nothing, answering a query twice, getUpdates while a webhook is set, two
pollers at once, messages to a migrated group or to a user who blocked the bot.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Literal, Self
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from tests.fakes.signal import Signal

Json = dict[str, Any]
ChatType = Literal["private", "group", "supergroup"]
MemberStatus = Literal["member", "left", "kicked"]

# Parameters the Bot API types as String: JSON-decoding them would turn the text "123" into 123.
_STRING_PARAMS = frozenset(
    {"text", "caption", "query", "data", "parse_mode", "callback_query_id", "inline_query_id"}
    | {"inline_message_id", "url", "secret_token", "language_code", "action", "next_offset", "photo"}
    | {"ip_address", "business_connection_id", "message_effect_id", "description", "short_description"}
)
_MAX_TEXT, _MAX_CAPTION, _MAX_CALLBACK_DATA, _MAX_INLINE_RESULTS = 4096, 1024, 64, 50
_MAX_CALLBACK_ANSWER = 200
_HTML_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "span"}
    | {"tg-spoiler", "tg-emoji", "blockquote"}
)
_TAG = re.compile(r"<(/?)([A-Za-z-]*)[^<>]*>")
_COMMAND = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")
_MENTION = re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{5,32}")
_COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")
_SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_WEBHOOK_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
_DESCRIPTIONS = {
    400: "Bad Request",
    403: "Forbidden: bot was blocked by the user",
    409: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


class ApiError(Exception):
    """A refusal in Telegram's shape; raising it anywhere in a method handler answers with it."""

    def __init__(self, code: int, description: str, parameters: Json | None = None) -> None:
        super().__init__(description)
        self.code, self.description, self.parameters = code, description, parameters

    @classmethod
    def for_status(cls, status: int, retry_after: int = 1, description: str | None = None) -> ApiError:
        """The error Telegram would send for this status, so injected faults look like real ones."""
        if status == 429:
            return cls(
                429,
                description or f"Too Many Requests: retry after {retry_after}",
                {"retry_after": retry_after},
            )
        return cls(status, description or _DESCRIPTIONS.get(status, f"Error {status}"))

    def to_json(self) -> Json:
        body: Json = {"ok": False, "error_code": self.code, "description": self.description}
        return body | ({"parameters": self.parameters} if self.parameters else {})


@dataclass(frozen=True)
class Call:
    """One request the bot made, decoded; ``status`` is 200, an error code, or 0 if never answered."""

    method: str
    params: Json
    files: dict[str, bytes]
    time: float  # time.monotonic(), to measure gaps such as retry delays
    status: int = 200
    result: Any = None
    content_type: str = ""  # how the client encoded the call: JSON, form or multipart

    @property
    def ok(self) -> bool:
        return self.status == 200

    def summary(self) -> str:
        """One line for failure messages: enough to see which call went wrong and why."""
        shown = {k: v for k, v in self.params.items() if k in ("chat_id", "text", "message_id", "offset")}
        return f"{self.method} [{self.status}] {shown}"[:160]


@dataclass(frozen=True)
class User:
    """A person talking to the bot; ``lang`` becomes language_code, which picks our locale."""

    id: int
    first_name: str
    lang: str = "zh"
    username: str | None = None

    def to_api(self) -> Json:
        user: Json = {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.lang,
        }
        return user | ({"username": self.username} if self.username else {})


@dataclass
class _Fault:
    """An armed misbehaviour: let ``after`` matching calls through, then hit the next ``times``."""

    kind: Literal["fail", "delay", "drop"]
    times: int
    after: int = 0
    error: ApiError | None = None
    seconds: float = 0.0


class FakeTelegram:
    """The Bot API on 127.0.0.1:<free port>: methods, test-side injectors, recording, faults."""

    def __init__(self, bot_id: int = 123, bot_username: str = "gpu_advisor_test_bot") -> None:
        self.bot_user: Json = {"id": bot_id, "is_bot": True, "first_name": "GPU Advisor"}
        self.bot_user |= {"username": bot_username, "can_join_groups": True, "supports_inline_queries": True}
        self.calls: list[Call] = []
        self._succeeded: dict[str, list[Call]] = {}  # by lower-cased method: wait_for must not rescan
        self.webhook: Json = {}
        self.port = 0
        self._updates: list[Json] = []
        self._next_update_id = 1
        self._chats: dict[int, Json] = {}
        self._blocked: set[int] = set()
        self._migrated: dict[int, int] = {}
        self._messages: dict[tuple[int, int], Json] = {}
        self._last_message_id: dict[int, int] = {}
        self._files: dict[str, bytes] = {}
        self._open_queries: set[str] = set()
        self._commands: dict[tuple[str, str], list[Json]] = {}
        self.descriptions: dict[tuple[str, str], str] = {}  # (kind, language_code) → text
        self._not_started: set[int] = set()  # users who never opened a private chat with the bot
        self._faults: dict[str, list[_Fault]] = {}
        self._duplicate_next = False
        self._poll_generation = 0
        self._closing = False
        self._updates_changed, self._calls_changed = Signal(), Signal()
        self._runner: web.AppRunner | None = None
        self._methods: dict[str, Callable[[Call], Awaitable[Any]]] = {
            name.lower(): handler for name, handler in self._method_table().items()
        }

    def _method_table(self) -> dict[str, Callable[[Call], Awaitable[Any]]]:
        return {
            "getMe": self._get_me,
            "getUpdates": self._get_updates,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "answerCallbackQuery": self._answer_callback_query,
            "answerInlineQuery": self._answer_inline_query,
            "sendPhoto": self._send_photo,
            "sendChatAction": self._send_chat_action,
            "setMyCommands": self._set_my_commands,
            "setMyDescription": self._set_my_description,
            "setMyShortDescription": self._set_my_short_description,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "close": self._no_op,
            "logOut": self._no_op,
        }

    # ---- lifecycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """What ApplicationBuilder.base_url wants: PTB appends the token and then /method."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    async def __aenter__(self) -> Self:
        """Listen on loopback only, on a port the OS picks, so parallel test runs never collide."""
        app = web.Application(client_max_size=50 * 1024**2)  # Telegram's upload cap, not aiohttp's 1 MiB
        app.router.add_route("*", "/bot{token}/{method}", self._dispatch)
        # handler_cancellation: a client that hangs up (PTB cancelling a long poll on stop) ends
        # its request here too, instead of lingering until it collides with the next poll.
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
        """Release pending long polls first, or the server would wait for them to time out."""
        self._closing = True
        self._updates_changed.fire()
        if self._runner is not None:
            await self._runner.cleanup()

    # ---- dispatch --------------------------------------------------------------------------

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        """Decode the request, apply an armed fault, run the method and record the call."""
        method = request.match_info["method"]
        params, files = await _read_params(request)
        call = Call(method, params, files, time.monotonic(), content_type=request.content_type)
        fault = self._take_fault(method)
        if fault is not None and fault.kind == "drop":
            return self._drop(request, call)
        try:
            if fault is not None:
                await self._misbehave(fault)
            result = await self._run(call)
        except ApiError as err:
            self._record(replace(call, status=err.code, result=err.to_json()))
            return web.json_response(err.to_json(), status=err.code)
        except asyncio.CancelledError:
            self._record(replace(call, status=0))  # the client hung up first (timeout, shutdown)
            raise
        self._record(replace(call, result=result))
        return web.json_response({"ok": True, "result": result})

    async def _run(self, call: Call) -> Any:
        """Telegram matches method names case-insensitively; a malformed request is a 400."""
        handler = self._methods.get(call.method.lower())
        if handler is None:
            raise ApiError(404, "Not Found")
        try:
            return await handler(call)
        except (KeyError, TypeError, ValueError) as exc:
            raise ApiError(400, f"Bad Request: malformed {call.method} request ({exc!r})") from exc

    def _record(self, call: Call) -> None:
        self.calls.append(call)
        if call.ok:
            self._succeeded.setdefault(call.method.lower(), []).append(call)
        self._calls_changed.fire()

    def _take_fault(self, method: str) -> _Fault | None:
        queue = self._faults.get(method.lower())
        if not queue:
            return None
        fault = queue[0]
        if fault.after > 0:
            fault.after -= 1
            return None
        fault.times -= 1
        if fault.times <= 0:
            queue.pop(0)
        return fault

    async def _misbehave(self, fault: _Fault) -> None:
        if fault.kind == "delay":
            await asyncio.sleep(fault.seconds)
        elif fault.error is not None:
            raise fault.error

    def _drop(self, request: web.Request, call: Call) -> web.StreamResponse:
        """Close the socket unanswered: the client sees a disconnect, never a status."""
        self._record(replace(call, status=0))
        if request.transport is not None:
            request.transport.close()
        return web.Response()

    # ---- fault injection -------------------------------------------------------------------

    def _arm(self, method: str, fault: _Fault) -> None:
        self._faults.setdefault(method.lower(), []).append(fault)

    def fail_next(
        self,
        method: str,
        status: int = 429,
        retry_after: int = 1,
        times: int = 1,
        after: int = 0,
        description: str | None = None,
    ) -> None:
        """Answer the next ``times`` calls (after letting ``after`` through) with a Telegram error."""
        self._arm(
            method, _Fault("fail", times, after, error=ApiError.for_status(status, retry_after, description))
        )

    def delay_next(self, method: str, seconds: float, times: int = 1) -> None:
        """Hold the next answers back, e.g. past the client's read timeout."""
        self._arm(method, _Fault("delay", times, seconds=seconds))

    def drop_next(self, method: str, times: int = 1) -> None:
        """Close the connection without answering (and without performing the method)."""
        self._arm(method, _Fault("drop", times))

    def duplicate_next_update(self) -> None:
        """Deliver the next polled update twice, as Telegram may after a flaky confirmation."""
        self._duplicate_next = True

    # ---- recording -------------------------------------------------------------------------

    def calls_of(self, method: str, include_failed: bool = False) -> list[Call]:
        """Calls to ``method``; by default only those that succeeded, i.e. what actually happened."""
        if not include_failed:
            return list(self._succeeded.get(method.lower(), ()))
        return [c for c in self.calls if c.method.lower() == method.lower()]

    async def wait_for(
        self,
        method: str,
        count: int = 1,
        timeout: float = 5.0,
        predicate: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """Await the bot's asynchronous calls instead of sleeping; on timeout, say what did arrive."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        succeeded = self._succeeded.setdefault(method.lower(), [])
        while True:
            # A load test waits for tens of thousands of calls: no rescan without a predicate.
            matching = succeeded if predicate is None else [c for c in succeeded if predicate(c)]
            if len(matching) >= count:
                return list(matching)
            if (remaining := deadline - loop.time()) <= 0:
                raise AssertionError(self._describe_miss(method, count, len(matching), timeout))
            await self._calls_changed.wait(remaining)

    def _describe_miss(self, method: str, count: int, found: int, timeout: float) -> str:
        polls = len(self.calls_of("getUpdates", include_failed=True))
        others = [c.summary() for c in self.calls if c.method != "getUpdates"]
        received = "\n  ".join(others) or "(nothing but polling)"
        return (
            f"expected {count} successful {method} call(s) within {timeout}s, got {found}.\n"
            f"Bot made {polls} getUpdates call(s) and:\n  {received}"
        )

    def commands(self, language_code: str = "", scope: Json | None = None) -> list[Json]:
        """The command menu currently set for this scope and language."""
        return self._commands.get(_commands_key(scope, language_code), [])

    # ---- test-side injectors ---------------------------------------------------------------

    def user(
        self, id: int, first_name: str, lang: str = "zh", username: str | None = None, started: bool = True
    ) -> User:
        """A user who has opened a private chat with the bot, so the bot may message them;
        ``started=False``: one who has not (a group member), whom the bot may not message first."""
        if started:
            private: Json = {"id": id, "type": "private", "first_name": first_name}
            self._chats.setdefault(id, private | ({"username": username} if username else {}))
        else:
            self._not_started.add(id)
        return User(id, first_name, lang, username)

    def send_text(
        self,
        user: User,
        text: str,
        chat: int | None = None,
        chat_type: ChatType = "private",
        reply_to: Json | None = None,
    ) -> int:
        """The user sends text; /commands and @mentions get entities as Telegram clients add them."""
        target = self._chat_for(user, chat, chat_type)
        quoted = _without_reply(self._messages[(target["id"], reply_to["message_id"])]) if reply_to else None
        message = self._new_message(
            target, user.to_api(), text=text, entities=_entities(text) or None, reply_to_message=quoted
        )
        return self._push_update(message=message)

    def press(self, user: User, message: Json | Call, data: str) -> int:
        """The user taps a button; Telegram only sends callback_data on the message's current keyboard."""
        sent = message.result if isinstance(message, Call) else message
        key = (sent["chat"]["id"], sent["message_id"])
        current = self._messages[key]
        keyboard = (current.get("reply_markup") or {}).get("inline_keyboard", [])
        offered = [button.get("callback_data") for row in keyboard for button in row]
        if data not in offered:
            raise ValueError(f"message {key} has no button with callback_data={data!r}; it offers {offered}")
        query = {"id": self._open_query(), "from": user.to_api(), "message": current, "data": data}
        return self._push_update(callback_query=query | {"chat_instance": str(key[0])})

    def inline(self, user: User, query: str, offset: str = "") -> int:
        """The user types ``@bot query`` in any chat."""
        inline_query = {"id": self._open_query(), "from": user.to_api(), "query": query, "offset": offset}
        return self._push_update(inline_query=inline_query | {"chat_type": "sender"})

    def chat_member_update(
        self,
        user: User,
        new_status: MemberStatus = "kicked",
        old_status: MemberStatus = "member",
        chat: int | None = None,
    ) -> int:
        """The bot's own membership changes: "kicked" in a private chat means the user blocked it."""
        target = self._chats[user.id if chat is None else chat]
        if new_status == "member":
            self._blocked.discard(target["id"])
        else:
            self._blocked.add(target["id"])

        def member(status: str) -> Json:
            return {"status": status, "user": self.bot_user} | (
                {"until_date": 0} if status == "kicked" else {}
            )

        change = {"chat": target, "from": user.to_api(), "date": int(time.time())}
        change |= {"old_chat_member": member(old_status), "new_chat_member": member(new_status)}
        return self._push_update(my_chat_member=change)

    def migrate_group(self, old_id: int, new_id: int) -> tuple[int, int]:
        """Upgrade a group to a supergroup: two service messages, and the old id stops working."""
        old = self._chats[old_id]
        new = {"id": new_id, "type": "supergroup", "title": old.get("title", "")}
        self._chats[new_id] = new
        self._migrated[old_id] = new_id
        first = self._push_update(message=self._new_message(old, None, migrate_to_chat_id=new_id))
        return first, self._push_update(message=self._new_message(new, None, migrate_from_chat_id=old_id))

    def _chat_for(self, user: User, chat: int | None, chat_type: ChatType) -> Json:
        if chat is None or chat == user.id:
            self._not_started.discard(user.id)  # writing to the bot opens the private chat
            return self._chats.setdefault(
                user.id, {"id": user.id, "type": "private", "first_name": user.first_name}
            )
        if chat_type == "private":
            raise ValueError("a private chat's id is the user's id; pass chat_type='group' or 'supergroup'")
        if chat in self._migrated:
            raise ValueError(f"group {chat} migrated to {self._migrated[chat]}; send there")
        return self._chats.setdefault(
            chat, {"id": chat, "type": chat_type, "title": f"Test {chat_type} {chat}"}
        )

    def _push_update(self, **payload: Json) -> int:
        update_id = self._next_update_id
        self._next_update_id += 1
        self._updates.append({"update_id": update_id} | payload)
        self._updates_changed.fire()
        return update_id

    def _open_query(self) -> str:
        query_id = f"q{self._next_update_id}"
        self._open_queries.add(query_id)
        return query_id

    def _new_message(self, chat: Json, sender: Json | None, **content: Any) -> Json:
        """Number messages per chat as Telegram does, and keep them so edits and presses find them.

        Stored messages are never mutated, only replaced, so recorded results stay as they were sent.
        """
        message_id = self._last_message_id.get(chat["id"], 0) + 1
        self._last_message_id[chat["id"]] = message_id
        message: Json = {"message_id": message_id, "date": int(time.time()), "chat": chat}
        message |= {"from": sender} if sender else {}
        message |= {key: value for key, value in content.items() if value is not None}
        self._messages[(chat["id"], message_id)] = message
        return message

    # ---- webhook side ----------------------------------------------------------------------

    async def post_update_to(self, url: str, update: int | Json, secret_token: str | None = None) -> int:
        """Play Telegram's webhook push: POST one update (queued id or dict) to a loopback listener.

        Returns the HTTP status; a 200 confirms a queued update, as a webhook delivery does.
        """
        if urlsplit(url).hostname not in _LOOPBACK:
            raise ValueError(f"refusing to post outside loopback: {url}")
        body = update if isinstance(update, dict) else self._queued(update)
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret_token} if secret_token else {}
        timeout = aiohttp.ClientTimeout(total=5)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.post(url, json=body, headers=headers) as resp,
        ):
            status = resp.status
        if status == 200:
            self._updates = [u for u in self._updates if u["update_id"] != body["update_id"]]
        return status

    async def deliver_to_webhook(self, update_id: int) -> int:
        """Push a queued update to the URL and secret the bot registered with setWebhook."""
        if not self.webhook.get("url"):
            raise AssertionError("the bot has not called setWebhook")
        return await self.post_update_to(self.webhook["url"], update_id, self.webhook.get("secret_token"))

    def _queued(self, update_id: int) -> Json:
        for update in self._updates:
            if update["update_id"] == update_id:
                return update
        raise KeyError(f"update {update_id} is not queued (already confirmed?)")

    # ---- Bot API methods -------------------------------------------------------------------

    async def _no_op(self, call: Call) -> bool:
        return True

    async def _get_me(self, call: Call) -> Json:
        return self.bot_user

    async def _get_updates(self, call: Call) -> list[Json]:
        """Long poll: confirm what lies below ``offset``, then wait up to ``timeout`` for the rest.

        Updates stay queued until a later offset confirms them, so a bot that dies between
        receiving and confirming gets them again on restart, as from the real server.
        """
        if self.webhook.get("url"):
            raise ApiError(409, _WEBHOOK_CONFLICT)
        self._poll_generation += 1
        generation = self._poll_generation
        self._updates_changed.fire()  # an older poll still waiting is now in conflict
        self._confirm(int(call.params.get("offset", 0)))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + float(call.params.get("timeout", 0))
        while not self._updates and not self._closing and (remaining := deadline - loop.time()) > 0:
            await self._updates_changed.wait(remaining)
            if generation != self._poll_generation:
                raise ApiError.for_status(409)
        batch = self._updates[: int(call.params.get("limit", 100))]
        if batch and self._duplicate_next:
            self._duplicate_next = False
            batch = [batch[0], *batch]
        return batch

    def _confirm(self, offset: int) -> None:
        """A positive offset forgets earlier updates; a negative one keeps only the last -offset."""
        if offset < 0:
            self._updates = self._updates[offset:]
        elif offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]

    async def _send_message(self, call: Call) -> Json:
        chat = self._target_chat(call.params.get("chat_id"))
        text = _checked_text(call.params.get("text", ""), call.params.get("parse_mode"))
        return self._bot_message(chat, call.params, text=text)

    async def _send_photo(self, call: Call) -> Json:
        """Accept an upload (multipart part "photo") or a file_id this fake issued earlier."""
        chat = self._target_chat(call.params.get("chat_id"))
        data = call.files.get("photo")
        if data is None:
            file_id = call.params.get("photo")
            if file_id not in self._files:
                raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
            data = self._files[file_id]
        caption = _visible_text(call.params.get("caption", ""), call.params.get("parse_mode"))
        if len(caption) > _MAX_CAPTION:
            raise ApiError(400, "Bad Request: message caption is too long")
        return self._bot_message(chat, call.params, photo=self._photo_sizes(data), caption=caption or None)

    async def _edit_message_text(self, call: Call) -> Json | bool:
        """Without reply_markup the keyboard goes, as on Telegram; an identical edit is a 400."""
        text = _checked_text(call.params.get("text", ""), call.params.get("parse_mode"))
        if "inline_message_id" in call.params:
            return True
        key, old = self._editable(call.params)
        if "text" not in old:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        return self._replace(
            key, old, text=text, reply_markup=_inline_markup(call.params.get("reply_markup"))
        )

    async def _edit_message_reply_markup(self, call: Call) -> Json | bool:
        if "inline_message_id" in call.params:
            return True
        key, old = self._editable(call.params)
        return self._replace(key, old, reply_markup=_inline_markup(call.params.get("reply_markup")))

    async def _answer_callback_query(self, call: Call) -> bool:
        """A toast, or with ``show_alert`` an alert the user must dismiss; at most 200 characters."""
        self._close_query(call.params["callback_query_id"])
        if len(str(call.params.get("text", ""))) > _MAX_CALLBACK_ANSWER:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        return True

    async def _answer_inline_query(self, call: Call) -> bool:
        self._close_query(call.params["inline_query_id"])
        if len(call.params.get("results", [])) > _MAX_INLINE_RESULTS:
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        return True

    async def _send_chat_action(self, call: Call) -> bool:
        self._target_chat(call.params.get("chat_id"))
        return True

    async def _set_my_commands(self, call: Call) -> bool:
        for command in call.params["commands"]:
            if not _COMMAND_NAME.fullmatch(command["command"]) or not 1 <= len(command["description"]) <= 256:
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
        self._commands[_commands_key(call.params.get("scope"), call.params.get("language_code", ""))] = list(
            call.params["commands"]
        )
        return True

    async def _set_my_description(self, call: Call) -> bool:
        return self._describe("description", call.params, limit=512)

    async def _set_my_short_description(self, call: Call) -> bool:
        return self._describe("short_description", call.params, limit=120)

    def _describe(self, kind: str, params: Json, limit: int) -> bool:
        text = str(params.get(kind, ""))
        if len(text) > limit:
            raise ApiError(400, f"Bad Request: {kind.upper()}_TOO_LONG")
        self.descriptions[(kind, str(params.get("language_code", "")))] = text
        return True

    async def _get_my_commands(self, call: Call) -> list[Json]:
        return self.commands(call.params.get("language_code", ""), call.params.get("scope"))

    async def _delete_my_commands(self, call: Call) -> bool:
        self._commands.pop(
            _commands_key(call.params.get("scope"), call.params.get("language_code", "")), None
        )
        return True

    async def _set_webhook(self, call: Call) -> bool:
        secret = call.params.get("secret_token")
        if secret is not None and not _SECRET_TOKEN.fullmatch(secret):
            raise ApiError(400, "Bad Request: secret token contains unallowed characters")
        self.webhook = dict(call.params) if call.params.get("url") else {}
        self._drop_pending(call.params)
        return True

    async def _delete_webhook(self, call: Call) -> bool:
        self.webhook = {}
        self._drop_pending(call.params)
        return True

    async def _get_webhook_info(self, call: Call) -> Json:
        url = self.webhook.get("url", "")
        return {"url": url, "has_custom_certificate": False, "pending_update_count": len(self._updates)}

    # ---- helpers for the methods -----------------------------------------------------------

    def _drop_pending(self, params: Json) -> None:
        if params.get("drop_pending_updates"):
            self._updates.clear()

    def _target_chat(self, chat_id: Any) -> Json:
        """Refuse a chat_id the way Telegram does: migrated, unknown, or the bot is blocked there."""
        chat_id = int(chat_id) if isinstance(chat_id, str) and chat_id.lstrip("-").isdigit() else chat_id
        if chat_id in self._migrated:
            parameters = {"migrate_to_chat_id": self._migrated[chat_id]}
            raise ApiError(400, "Bad Request: group chat was upgraded to a supergroup chat", parameters)
        if chat_id in self._not_started:
            raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        chat = self._chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        if chat["id"] in self._blocked:
            reason = (
                "bot was blocked by the user"
                if chat["type"] == "private"
                else "bot was kicked from the group chat"
            )
            raise ApiError(403, f"Forbidden: {reason}")
        return chat

    def _bot_message(self, chat: Json, params: Json, **content: Any) -> Json:
        markup = _inline_markup(params.get("reply_markup"))
        quoted = self._replied_message(chat["id"], params)
        return self._new_message(chat, self.bot_user, reply_markup=markup, reply_to_message=quoted, **content)

    def _replied_message(self, chat_id: int, params: Json) -> Json | None:
        """Resolve reply_parameters (or the legacy reply_to_message_id) into reply_to_message."""
        ref = params.get("reply_parameters")
        if ref is None and "reply_to_message_id" in params:
            ref = {"message_id": params["reply_to_message_id"]}
        if ref is None:
            return None
        quoted = self._messages.get((int(ref.get("chat_id", chat_id)), int(ref["message_id"])))
        if quoted is not None:
            return _without_reply(quoted)
        if ref.get("allow_sending_without_reply") or params.get("allow_sending_without_reply"):
            return None
        raise ApiError(400, "Bad Request: message to be replied not found")

    def _editable(self, params: Json) -> tuple[tuple[int, int], Json]:
        chat = self._target_chat(params.get("chat_id"))
        key = (chat["id"], int(params["message_id"]))
        if key not in self._messages:
            raise ApiError(400, "Bad Request: message to edit not found")
        if self._messages[key].get("from", {}).get("id") != self.bot_user["id"]:
            raise ApiError(400, "Bad Request: message can't be edited")
        return key, self._messages[key]

    def _replace(self, key: tuple[int, int], old: Json, **changes: Any) -> Json:
        new = {k: v for k, v in (old | changes).items() if v is not None and k != "edit_date"}
        if new == {k: v for k, v in old.items() if k != "edit_date"}:
            raise ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply markup "
                "are exactly the same as a current content and reply markup of the message",
            )
        self._messages[key] = new | {"edit_date": int(time.time())}
        return self._messages[key]

    def _close_query(self, query_id: str) -> None:
        """A query can be answered once; a second answer, or a made-up id, is refused."""
        if query_id not in self._open_queries:
            raise ApiError(
                400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        self._open_queries.discard(query_id)

    def _photo_sizes(self, data: bytes) -> list[Json]:
        """A thumbnail and the full size, as Telegram returns; real dimensions when it is a PNG."""
        width, height = _png_size(data)
        file_id = f"photo{len(self._files) + 1}"
        self._files[file_id] = data
        scale = min(1.0, 90 / max(width, height, 1))
        thumb: Json = {"file_id": f"{file_id}-thumb", "file_unique_id": f"{file_id}t"}
        thumb |= {"width": max(1, round(width * scale)), "height": max(1, round(height * scale))}
        full: Json = {"file_id": file_id, "file_unique_id": file_id, "width": width, "height": height}
        return [thumb, full | {"file_size": len(data)}]


# ---- request decoding and content rules ------------------------------------------------------


async def _read_params(request: web.Request) -> tuple[Json, dict[str, bytes]]:
    """PTB posts form fields (multipart when a file is attached), JSON-encoding every non-string value;
    our bot posts calls without files as one JSON object, which the Bot API also accepts."""
    params: Json = {name: _decode(name, value) for name, value in request.query.items()}
    files: dict[str, bytes] = {}
    if request.content_type == "application/json":
        return params | await request.json(), files
    for name, value in (await request.post()).items():
        if isinstance(value, web.FileField):
            files[name] = value.file.read()
        else:
            params[name] = _decode(name, value if isinstance(value, str) else bytes(value).decode())
    return params, files


def _decode(name: str, value: str) -> Any:
    if name in _STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value  # a plain string such as "@channel" or a file_id


def _checked_text(source: str, parse_mode: str | None) -> str:
    text = _visible_text(source, parse_mode)
    if not text.strip():
        raise ApiError(400, "Bad Request: message text is empty")
    if len(text) > _MAX_TEXT:
        raise ApiError(400, "Bad Request: message is too long")
    return text


def _visible_text(source: str, parse_mode: str | None) -> str:
    """What the user sees; for HTML, fail like Telegram on unknown, unbalanced or unescaped tags.

    An unescaped ``<`` from a dynamic value is the classic bug: Telegram answers 400 and the
    user gets nothing. Markdown modes are passed through unchecked.
    """
    if (parse_mode or "").upper() != "HTML":
        return source
    open_tags: list[str] = []
    for match in _TAG.finditer(source):
        closing, name = match.group(1) == "/", match.group(2).lower()
        if name not in _HTML_TAGS:
            raise _parse_error(f'Unsupported start tag "{name}"', source, match.start())
        if not closing:
            open_tags.append(name)
        elif not open_tags or open_tags.pop() != name:
            raise _parse_error(f'Unmatched end tag "{name}"', source, match.start())
    if open_tags:
        raise _parse_error(
            f'Can\'t find end tag corresponding to start tag "{open_tags[-1]}"', source, len(source)
        )
    text = _TAG.sub("", source)
    if "<" in text:
        raise _parse_error("Unexpected <", source, source.index("<"))
    return html.unescape(text)


def _parse_error(what: str, source: str, index: int) -> ApiError:
    offset = len(source[:index].encode())
    return ApiError(400, f"Bad Request: can't parse entities: {what} at byte offset {offset}")


def _inline_markup(markup: Any) -> Json | None:
    """Telegram echoes only inline keyboards on the Message; reply keyboards are not returned."""
    if not isinstance(markup, dict) or "inline_keyboard" not in markup:
        return None
    for row in markup["inline_keyboard"]:
        for button in row:
            data = button.get("callback_data")
            if data is not None and not 1 <= len(data.encode()) <= _MAX_CALLBACK_DATA:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
    return markup


def _entities(text: str) -> list[Json]:
    """Entities for /commands and @mentions; offsets and lengths count UTF-16 code units."""
    found = [("bot_command", m) for m in _COMMAND.finditer(text)] + [
        ("mention", m) for m in _MENTION.finditer(text)
    ]
    entities = [
        {"type": kind, "offset": _utf16_len(text[: m.start()]), "length": _utf16_len(m.group())}
        for kind, m in found
    ]
    return sorted(entities, key=lambda entity: int(entity["offset"]))


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _without_reply(message: Json) -> Json:
    """Telegram nests reply_to_message one level deep only."""
    return {key: value for key, value in message.items() if key != "reply_to_message"}


def _commands_key(scope: Json | None, language_code: str) -> tuple[str, str]:
    return json.dumps(scope or {"type": "default"}, sort_keys=True), language_code


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the PNG IHDR chunk (bytes 16-24); 1x1 for anything else."""
    if data.startswith(_PNG_SIGNATURE) and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return 1, 1
