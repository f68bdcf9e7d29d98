"""The widget resends without asking twice, and waits when the server says to (issue 47).

In Debian's Chromium (Playwright), on the chat page at ``/``:

- a page reload while a message is in flight (the server answered; the reload cut the
  response) resends it under the same key, and the server answers the repeat with the first
  reply: one bubble, one card, one turn taken by the dialog for that message;
- a 429 or 503 with Retry-After keeps the message queued and marked "waiting" (never an error
  line, never "unsent"), and sends it again by itself after the seconds asked.
Skipped only when Chromium or Playwright is absent (the module it borrows from says so).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.context import CONTEXT
from tests.test_web_e2e import BUSY_GONE, DESKTOP, QUESTION, SHADOW, chromium, new_page
from tests.test_web_e2e import pytestmark as browser_needed

pytestmark = browser_needed


@asynccontextmanager
async def advisor(tmp_path: Path) -> AsyncIterator[tuple[str, list[str]]]:
    """The advisor's chat page, and the messages its dialog took a turn for, in order."""
    app = build_app(WebConfig(db_path=str(tmp_path / "web.db")))
    taken: list[str] = []
    async with TestServer(app, host="127.0.0.1") as server:
        turn = app[CONTEXT].turn
        take = turn.take

        async def counted(chat: Any, text: str | None = None, button: str | None = None, **kw: Any) -> Any:
            taken.append(text or button or "")
            return await take(chat, text, button, **kw)

        turn.take = counted  # type: ignore[method-assign]
        yield str(server.make_url("/")), taken


def sent_text(route: Any) -> str | None:
    body = json.loads(route.request.post_data or "{}")
    text = body.get("text")
    return text if isinstance(text, str) else None


async def test_a_reload_while_a_message_is_in_flight_never_asks_or_shows_it_twice(tmp_path: Path) -> None:
    keys: list[str] = []
    answered = asyncio.Event()

    async def cut_after_the_server_answers(route: Any) -> None:
        if sent_text(route) != QUESTION:
            await route.continue_()
            return
        keys.append(json.loads(route.request.post_data)["message_id"])
        if len(keys) > 1:
            await route.continue_()  # the resend after the reload goes through
            return
        await route.fetch()  # the server ran the turn; its response never reaches the page
        answered.set()

    async with advisor(tmp_path) as (url, taken), chromium() as browser:
        page = await new_page(browser, DESKTOP)
        await page.goto(url)
        await page.locator("[data-role=quick] button").first.wait_for()
        await page.route("**/api/chat", cut_after_the_server_answers)
        await page.fill("[data-role=input]", QUESTION)
        await page.press("[data-role=input]", "Enter")
        await answered.wait()
        await page.reload()
        await page.locator("[data-role=card] [data-role=price]").wait_for()
        await page.wait_for_function(BUSY_GONE)
        bubbles = await page.locator("[data-role=user]", has_text=QUESTION).count()
        cards = await page.locator("[data-role=card]").count()
        unsent = await page.locator("[data-role=unsent]").count()
    assert len(keys) == 2 and keys[0] == keys[1]  # resent under the key it was first sent with
    assert taken.count(QUESTION) == 1  # the repeat got the first reply: no second turn
    assert bubbles == 1 and cards == 1 and unsent == 0


@pytest.mark.parametrize("status", [429, 503])
async def test_a_busy_server_keeps_the_message_waiting_and_sends_it_after_retry_after(
    tmp_path: Path, status: int
) -> None:
    refused: list[float] = []

    async def busy_once(route: Any) -> None:
        if sent_text(route) != QUESTION or refused:
            await route.continue_()
            return
        refused.append(asyncio.get_running_loop().time())
        body = {"error": {"code": "overloaded", "message": "busy", "retry_after": 2}}
        await route.fulfill(status=status, headers={"Retry-After": "2"}, json=body)

    waiting = f"""() => {{
      const root = {SHADOW}, question = {json.dumps(QUESTION)};
      const note = root.querySelector('[data-role=waiting]');
      const bubble = [...root.querySelectorAll('[data-role=user]')].find((b) => b.textContent === question);
      return note && bubble && bubble.classList.contains('waiting') && !bubble.classList.contains('unsent')
        ? [note.textContent, root.querySelectorAll('[data-role=error], [data-role=unsent]').length] : null;
    }}"""
    async with advisor(tmp_path) as (url, taken), chromium() as browser:
        page = await new_page(browser, DESKTOP)
        await page.goto(url)
        await page.locator("[data-role=quick] button").first.wait_for()
        await page.route("**/api/chat", busy_once)
        await page.fill("[data-role=input]", QUESTION)
        await page.press("[data-role=input]", "Enter")
        shown = await (await page.wait_for_function(waiting)).json_value()
        await page.locator("[data-role=card] [data-role=price]").wait_for()
        resent_after = asyncio.get_running_loop().time() - refused[0]
        left = await page.locator("[data-role=waiting]").count()
    note, errors = shown
    assert "等待中" in note and "2 秒" in note and errors == 0  # waiting, not an error
    assert resent_after >= 2.0  # after the Retry-After, by itself
    assert taken.count(QUESTION) == 1 and left == 0


async def test_a_message_written_while_one_waits_queues_behind_it_and_retry_after_holds(
    tmp_path: Path,
) -> None:
    sent: list[tuple[str | None, float]] = []
    second = "其实是 70B"

    async def busy_once(route: Any) -> None:
        now = asyncio.get_running_loop().time()
        sent.append((sent_text(route), now))
        if sent_text(route) == QUESTION and len([t for t, _ in sent if t == QUESTION]) == 1:
            body = {"error": {"code": "overloaded", "message": "busy", "retry_after": 2}}
            await route.fulfill(status=503, headers={"Retry-After": "2"}, json=body)
            return
        await route.continue_()

    async with advisor(tmp_path) as (url, taken), chromium() as browser:
        page = await new_page(browser, DESKTOP)
        await page.goto(url)
        await page.locator("[data-role=quick] button").first.wait_for()
        await page.route("**/api/chat", busy_once)
        await page.fill("[data-role=input]", QUESTION)
        await page.press("[data-role=input]", "Enter")
        await page.locator("[data-role=waiting]").wait_for()
        await page.fill("[data-role=input]", second)  # written while the first waits
        await page.press("[data-role=input]", "Enter")
        await page.locator("[data-role=price]").nth(1).wait_for()  # both answered, as cards
        await page.wait_for_function(BUSY_GONE)
    questions = [at for text, at in sent if text == QUESTION]
    assert questions[1] - questions[0] >= 2.0  # the second message did not push the first out early
    assert [t for t in taken if t in (QUESTION, second)] == [QUESTION, second]  # in the order written
