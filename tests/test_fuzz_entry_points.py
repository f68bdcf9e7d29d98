"""Issue 24: generated input at every entry point, and never a 5xx.

Hypothesis draws chat bodies (any text, lone surrogates included, any button, any extra
key), engine workloads (every Workload field with any JSON value), raw bodies, hostile
headers (Origin, X-Forwarded-For, Authorization, Accept-Language, X-Request-Id,
Content-Type) and Telegram webhook deliveries with the right secret. Each goes to a real
server on loopback (``http.client``, so headers go out as given); the bar is no status
of 500 or more. The budget is small here (``FUZZ_EXAMPLES``, default 25 a test) and
large under ``make fuzz``; schemathesis runs the app's own OpenAPI document in
``tests/test_web_api.py`` on the same budget.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_advisor.bot.web import WebConfig
from gpu_advisor.engine.workload import Workload
from tests.test_web_api import TOKEN, ThreadedServer

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
ANY_CHAR = st.characters(codec=None, exclude_categories=())  # lone surrogates too
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(ANY_CHAR, max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
HEADER_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"), max_size=80
)
HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "Origin": HEADER_TEXT | st.sampled_from(["https://evil.example", "null", "http://127.0.0.1"]),
        "X-Forwarded-For": HEADER_TEXT | st.just("1.2.3.4, 10.0.0.1"),
        "Authorization": HEADER_TEXT | st.just(f"Bearer {TOKEN}"),
        "Accept-Language": HEADER_TEXT,
        "X-Request-Id": HEADER_TEXT,
        "Content-Type": HEADER_TEXT | st.just("application/json"),
    },
)
CHAT = st.fixed_dictionaries(
    {},
    optional={
        "text": st.text(ANY_CHAR, max_size=400) | JSON,
        "button": st.text(ANY_CHAR, max_size=80) | JSON,
        "session_id": st.from_regex(r"\A[A-Za-z0-9_-]{16,64}\Z") | JSON,
        "lang": st.sampled_from(["zh", "en", "fr"]) | JSON,
        "extra": JSON,
    },
)
WORKLOAD = st.fixed_dictionaries(
    {"task": st.sampled_from(["train", "infer", "both"]) | JSON},
    optional={
        name: JSON | st.integers(-(10**20), 10**20) for name in Workload.model_fields if name != "task"
    },
)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    config = WebConfig(
        db_path=str(tmp_path_factory.mktemp("fuzz") / "web.db"),
        admin_token=TOKEN,
        trusted_proxies=("10.0.0.0/8",),
        ip_per_minute=1_000_000,
        session_per_minute=1_000_000,
        sessions_per_ip_per_hour=1_000_000,
    )
    with ThreadedServer(config) as url:
        parts = urlsplit(url)
        yield str(parts.hostname), int(parts.port or 80)


def send(live: tuple[str, int], method: str, path: str, body: bytes, headers: dict[str, str]) -> int:
    connection = http.client.HTTPConnection(*live, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def as_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode()  # lone surrogates travel as \\udXXX escapes


@FUZZ
@given(body=CHAT, headers=HEADERS)
def test_generated_chat_bodies_and_headers_never_get_a_5xx(
    live: tuple[str, int], body: dict[str, Any], headers: dict[str, str]
) -> None:
    assert send(live, "POST", "/api/chat", as_json(body), headers) < 500


@FUZZ
@given(path=st.sampled_from(["/api/estimate", "/api/recommend"]), body=WORKLOAD)
def test_generated_workloads_never_get_a_5xx(live: tuple[str, int], path: str, body: dict[str, Any]) -> None:
    assert send(live, "POST", path, as_json(body), {"Content-Type": "application/json"}) < 500


@FUZZ
@given(
    route=st.sampled_from(
        [("POST", "/api/chat"), ("POST", "/api/analyze"), ("PUT", "/api/admin/catalog"), ("GET", "/metrics")]
    ),
    body=st.binary(max_size=2000),
    headers=HEADERS,
)
def test_raw_bodies_on_every_route_never_get_a_5xx(
    live: tuple[str, int], route: tuple[str, str], body: bytes, headers: dict[str, str]
) -> None:
    assert send(live, *route, body, headers) < 500


# --- the Telegram webhook ---------------------------------------------------------------
class ThreadedWebhook:
    """The Telegram bot in webhook mode, against the loopback Bot API, on its own loop in a thread."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.loop = tmp, asyncio.new_event_loop()
        self.ready, self.stop = threading.Event(), asyncio.Event()
        self.url, self.secret = "", ""
        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(self._run()), daemon=True)

    async def _run(self) -> None:
        from tests.fakes import FakeTelegram
        from tests.test_telegram_webhook import webhook_bot

        self.stop = asyncio.Event()
        async with FakeTelegram() as tg, webhook_bot(tg, self.tmp):
            self.url, self.secret = tg.webhook["url"], tg.webhook["secret_token"]
            self.ready.set()
            await self.stop.wait()

    def __enter__(self) -> ThreadedWebhook:
        self.thread.start()
        assert self.ready.wait(60), "the webhook did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


@pytest.fixture(scope="module")
def webhook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedWebhook]:
    pytest.importorskip("telegram")
    os.environ.pop("TELEGRAM_WEBHOOK_SECRET", None)
    with ThreadedWebhook(tmp_path_factory.mktemp("webhook")) as running:
        yield running


@FUZZ
@given(body=st.binary(max_size=2000) | JSON.map(as_json))
def test_webhook_deliveries_with_the_right_secret_never_get_a_5xx(
    webhook: ThreadedWebhook, body: bytes
) -> None:
    parts = urlsplit(webhook.url)
    headers = {"X-Telegram-Bot-Api-Secret-Token": webhook.secret, "Content-Type": "application/json"}
    status = send((str(parts.hostname), int(parts.port or 80)), "POST", parts.path, body, headers)
    assert status < 500
