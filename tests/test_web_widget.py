"""The widget under a stranger's hands (issue 47), in one real Chromium for the whole module.

Offline messages sent once each, in the order written, whichever retry is pressed and
across a reload; the chart's price comparison on the card at once (nothing moves later,
no picture drawn until asked for), saying "click" to a mouse and "tap" to a finger; the
hand-over carrying the requirements, the pick and the questions, never a reply's lead; the
chrome in Traditional for a Traditional writer; Tab kept inside the panel and the chips'
focus ring whole. Each test opens its own browser context (its own storage) on one
browser and one pair of servers (tests/test_web_e2e.py has the helpers and the axe runs).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests import test_web_e2e as e2e
from tests.test_web_e2e import (
    BUSY_GONE,
    DESKTOP,
    HUMAN_URL,
    PHONE,
    QUESTION,
    SHADOW,
    Sites,
    ask_on_the_rental_site,
    chromium,
    new_page,
    open_on_the_rental_site,
    sites,
)

pytestmark = [*e2e.pytestmark, pytest.mark.asyncio(loop_scope="module")]

ACTIVE = f"{SHADOW}.activeElement"
SECOND = "其实是 70B"
INPUT = "[data-role=input]"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser() -> AsyncIterator[Any]:
    async with chromium() as b:
        yield b


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def site(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Sites]:
    async with sites(tmp_path_factory.mktemp("widget"), human_url=HUMAN_URL) as s:
        yield s


@pytest_asyncio.fixture(loop_scope="module")
async def desktop(browser: Any) -> AsyncIterator[Any]:
    page = await new_page(browser, DESKTOP)
    yield page
    await page.context.close()


@pytest_asyncio.fixture(loop_scope="module")
async def phone(browser: Any) -> AsyncIterator[Any]:
    page = await new_page(browser, PHONE)
    yield page
    await page.context.close()


class Network:
    """Up or down for ``/api/chat``; the texts that got through, in the order the server saw them."""

    def __init__(self) -> None:
        self.up = False
        self.sent: list[str] = []

    async def route(self, route: Any) -> None:
        if not self.up:
            await route.abort("internetdisconnected")
            return
        body = route.request.post_data_json or {}
        if body.get("text"):
            self.sent.append(body["text"])
        await route.continue_()


async def write_offline(page: Any, site: Sites, net: Network) -> None:
    """Open the widget, lose the network, write two messages: both wait, marked unsent."""
    await open_on_the_rental_site(page, site)
    await page.route("**/api/chat", net.route)
    for text in (QUESTION, SECOND):
        await page.fill(INPUT, text)
        await page.press(INPUT, "Enter")
        await page.wait_for_function(BUSY_GONE)
    await page.wait_for_function(f"() => {SHADOW}.querySelectorAll('[data-role=unsent]').length === 2")


async def test_two_messages_written_offline_are_sent_in_order_when_the_second_ones_retry_is_pressed(
    desktop: Any, site: Sites
) -> None:
    net = Network()
    await write_offline(desktop, site, net)
    notes = await desktop.locator("[data-role=unsent] span").all_text_contents()
    net.up = True
    await desktop.locator("[data-role=retry]").nth(1).click()  # the later one's retry
    await desktop.locator("[data-role=card]").nth(1).wait_for()
    await desktop.wait_for_function(BUSY_GONE)
    left = await desktop.locator("[data-role=unsent]").count()
    bubbles = await desktop.locator("[data-role=user]").count()
    assert notes[0].startswith("未发送") and notes[1].startswith("排队中")  # the second waits its turn
    assert net.sent == [QUESTION, SECOND]  # each once, the first first
    assert left == 0 and bubbles == 2


async def test_a_reload_while_messages_wait_sends_each_once_in_order_and_never_again(
    desktop: Any, site: Sites
) -> None:
    net = Network()
    await write_offline(desktop, site, net)
    await desktop.reload()
    await desktop.wait_for_function(f"() => {SHADOW}.querySelectorAll('[data-role=unsent]').length === 2")
    net.up = True  # the widget's own retries get through now
    await desktop.locator("[data-role=card]").nth(1).wait_for(timeout=30_000)
    await desktop.wait_for_function(BUSY_GONE)
    await desktop.reload()
    await desktop.locator("[data-role=card]").nth(1).wait_for()
    await desktop.wait_for_timeout(2_500)  # longer than the first retry's wait
    cards = await desktop.locator("[data-role=card]").count()
    assert net.sent == [QUESTION, SECOND]
    assert cards == 2  # no duplicate card


async def test_the_card_holds_its_price_comparison_at_once_and_draws_the_picture_only_when_asked(
    desktop: Any, site: Sites
) -> None:
    charts: list[str] = []
    desktop.on("request", lambda r: charts.append(r.url) if r.url.endswith("/api/chat/chart") else None)
    card = await ask_on_the_rental_site(desktop, site)
    thumb = card.locator("[data-role=chart-open]")
    first = await card.bounding_box()
    await desktop.wait_for_timeout(2_500)  # when the picture used to arrive and push the text down
    later = await card.bounding_box()
    price = await card.locator("[data-role=price]").text_content() or "?"
    rows = await thumb.locator(".bar-row").count()
    label_px = await thumb.locator(".bar-label").first.evaluate(
        "(n) => parseFloat(getComputedStyle(n).fontSize)"
    )
    hint = await thumb.locator(".thumb-hint").text_content() or ""
    drawn_before = len(charts)
    await thumb.click()
    await desktop.locator("[data-role=chart-full] img").wait_for()
    await desktop.keyboard.press("Escape")
    await thumb.click()  # opened again: the kept picture
    await desktop.locator("[data-role=chart-full] img").wait_for()
    assert first == later  # nothing moved
    assert rows >= 2 and price in (await thumb.text_content() or "")  # the comparison, the pick's price in it
    assert label_px >= 12  # readable at its size
    assert "点击" in hint
    assert drawn_before == 0 and len(charts) == 1


async def test_on_a_touch_screen_the_thumbnail_says_tap(phone: Any, site: Sites) -> None:
    card = await ask_on_the_rental_site(phone, site)
    hint = await card.locator("[data-role=chart-open] .thumb-hint").text_content() or ""
    assert "轻触" in hint and "点击" not in hint


async def test_the_hand_over_carries_the_requirements_the_pick_and_the_questions_after_a_price_question(
    desktop: Any, site: Sites
) -> None:
    await open_on_the_rental_site(desktop, site)
    before = await desktop.locator("[data-role=handover]").count()
    await desktop.fill(INPUT, QUESTION)
    await desktop.press(INPUT, "Enter")
    card = desktop.locator("[data-role=card]").last
    await card.wait_for()
    await desktop.wait_for_function(BUSY_GONE)
    pick = await card.locator("[data-role=pick]").text_content() or "?"
    await desktop.fill(INPUT, "RTX 3090 多少钱")
    await desktop.press(INPUT, "Enter")
    await desktop.locator("[data-role=user]", has_text="多少钱").wait_for()
    await desktop.wait_for_function(BUSY_GONE)
    await desktop.locator("[data-role=handover]").click()
    handed = await desktop.locator("[data-role=handover-text] textarea").last.input_value()
    lines = handed.split("\n")
    settled = next(line for line in lines if line.startswith("已确认的需求"))
    assert before == 0  # no hand-over before anything was said
    assert settled.startswith("已确认的需求：") and "8 路并发" in settled and "¥" not in settled
    assert any(line.startswith("推荐：") and pick.strip() in line for line in lines)
    assert any(line.startswith("我问的：") and QUESTION in line and "多少钱" in line for line in lines)
    assert ": " not in handed  # Chinese punctuation throughout


async def test_a_traditional_writer_gets_the_widget_chrome_in_traditional_and_back(
    desktop: Any, site: Sites
) -> None:
    await open_on_the_rental_site(desktop, site)
    await desktop.fill(INPUT, "部署 13B 聊天機器人，並發 8，7×24")
    await desktop.press(INPUT, "Enter")
    card = desktop.locator("[data-role=card]").last
    await card.wait_for()
    await desktop.wait_for_function(BUSY_GONE)
    chrome = await desktop.evaluate(
        f"""() => {{ const r = {SHADOW};
        return [r.querySelector('.root').lang, r.querySelector('.title').textContent,
                r.querySelector('[data-role=send]').textContent,
                r.querySelector('.thumb-title').textContent]; }}"""
    )
    await desktop.fill(INPUT, SECOND)  # Simplified again
    await desktop.press(INPUT, "Enter")
    await desktop.locator("[data-role=send]", has_text="发送").wait_for()
    assert chrome == ["zh-TW", "算力選型助手", "發送", "月租對比"]


async def test_tab_from_send_goes_round_to_the_header_and_shift_tab_back(desktop: Any, site: Sites) -> None:
    await open_on_the_rental_site(desktop, site)
    await desktop.wait_for_function(BUSY_GONE)
    await desktop.focus("[data-role=send]")
    await desktop.keyboard.press("Tab")
    ahead = await desktop.evaluate(f"() => !!{ACTIVE} && !!{ACTIVE}.closest('.head')")
    await desktop.keyboard.press("Shift+Tab")
    back = await desktop.evaluate(f"() => {ACTIVE} && {ACTIVE}.dataset.role")
    assert ahead  # still in the widget: its header
    assert back == "send"


async def test_a_focused_chip_shows_its_whole_focus_ring(desktop: Any, site: Sites) -> None:
    await desktop.goto(site.advisor + "/")
    chip = desktop.locator("[data-role=quick] button").first
    await chip.wait_for()
    await desktop.focus("[data-role=log]")
    await desktop.keyboard.press("Tab")  # by keyboard: the ring shows
    room = await desktop.evaluate(
        f"""() => {{ const chip = {ACTIVE}, style = getComputedStyle(chip);
        const ring = parseFloat(style.outlineWidth) + parseFloat(style.outlineOffset);
        const c = chip.getBoundingClientRect(), q = chip.closest('[data-role=quick]').getBoundingClientRect();
        return [ring, c.top - ring - q.top, q.bottom - (c.bottom + ring)]; }}"""
    )
    ring, above, below = room
    assert ring >= 3
    assert above >= 0 and below >= 0  # inside the chips' own box: the form below cannot cover it
