"""The widget in a real browser: Debian's Chromium driven by Playwright, everything on loopback.

A rental site's page (its own server, so its own origin) embeds the widget with one
script tag; a phone-sized browser opens the bubble, asks in Chinese and must see a
priced recommendation. Skipped only when Chromium or Playwright is genuinely absent.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.web import WebConfig, build_app

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
QUESTION = "部署 13B 聊天机器人，并发 8，7×24"
TIMEOUT_MS = 20_000
SHADOW = "document.querySelector('#gpu-advisor-widget').shadowRoot"
BUSY_GONE = f"() => !{SHADOW}.querySelector('.busy')"

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} missing (apt-get install chromium)"),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None, reason="playwright missing (pip install playwright)"
    ),
]

HOST_PAGE = """<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Example GPU Rental</title></head>
<body style="margin:0;font-family:sans-serif;background:#fafafa">
<h1 style="padding:16px">Example GPU Rental · 算力租赁</h1>
<p style="padding:0 16px">A100 / H100 / RTX 4090 按月出租。</p>
<script src="{advisor}/widget.js" data-lang="zh"></script>
</body></html>
"""


@dataclass
class Sites:
    advisor: str  # the GPU Advisor server (API, widget, chat page)
    rental: str  # the rental site embedding the widget, on another origin


@asynccontextmanager
async def sites(tmp_path: Path) -> AsyncIterator[Sites]:
    holder: dict[str, str] = {}

    async def host_page(request: web.Request) -> web.Response:
        return web.Response(text=HOST_PAGE.format(advisor=holder["advisor"]), content_type="text/html")

    rental_app = web.Application()
    rental_app.router.add_get("/", host_page)
    async with TestServer(rental_app, host="127.0.0.1") as rental:
        rental_origin = str(rental.make_url("/")).rstrip("/")
        config = WebConfig(db_path=str(tmp_path / "web.db"), cors_origins=(rental_origin,))
        async with TestServer(build_app(config), host="127.0.0.1") as advisor:
            holder["advisor"] = str(advisor.make_url("/")).rstrip("/")
            yield Sites(advisor=holder["advisor"], rental=rental_origin)


@asynccontextmanager
async def phone() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        try:
            context = await browser.new_context(
                viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True, locale="zh-CN"
            )
            page = await context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            yield page
        finally:
            await browser.close()


def not_blank(png: Path) -> bool:
    """More than a handful of colours, and real contrast: a page was drawn, not an empty canvas."""
    import matplotlib.image

    pixels = matplotlib.image.imread(str(png))[..., :3]
    colours = {tuple(p) for p in pixels.reshape(-1, 3)[::97].tolist()}
    sized = pixels.shape[:2] == (PHONE["height"], PHONE["width"])
    return bool(sized and len(colours) > 20 and pixels.std() > 0.05)


async def test_one_script_tag_gives_a_rental_site_a_bubble_that_answers_in_chinese_with_a_price(
    tmp_path: Path,
) -> None:
    async with sites(tmp_path) as s, phone() as page:
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(s.rental)
        await page.click("[data-role=bubble]")
        await page.locator("[data-role=bot]", has_text="训练").first.wait_for()  # the welcome question
        await page.fill("[data-role=input]", QUESTION)
        await page.press("[data-role=input]", "Enter")
        answer = page.locator("[data-role=bot]", has_text="¥")
        await answer.first.wait_for()
        text = await answer.first.text_content() or ""
        await page.locator("[data-role=quick] button").first.wait_for()
        shot = tmp_path / "widget-phone.png"
        await page.screenshot(path=str(shot))
    assert "推荐" in text and "/月" in text
    assert errors == []
    assert not_blank(shot)


async def test_the_chat_page_on_a_phone_reaches_an_answer_by_quick_reply_buttons(tmp_path: Path) -> None:
    async with sites(tmp_path) as s, phone() as page:
        await page.goto(s.advisor + "/")
        quick = page.locator("[data-role=quick] button")
        for _ in range(5):
            await quick.first.wait_for()
            if await page.locator("[data-role=bot]", has_text="¥").count():
                break
            await quick.nth(1 if await quick.count() > 1 else 0).click()  # "推理/部署", then defaults
            await page.wait_for_function(BUSY_GONE)
        priced = await page.locator("[data-role=bot]", has_text="¥").count()
        width = await page.evaluate("document.documentElement.scrollWidth")
        await page.screenshot(path=str(tmp_path / "page-phone.png"))
    assert priced >= 1
    assert width <= PHONE["width"]  # nothing overflows sideways on a phone
    assert not_blank(tmp_path / "page-phone.png")


async def test_server_and_user_text_is_shown_as_text_never_as_html(tmp_path: Path) -> None:
    probe = '<img src=x onerror="window.__pwned=1"><b>bold</b>'
    async with sites(tmp_path) as s, phone() as page:
        await page.goto(s.rental)
        await page.click("[data-role=bubble]")
        await page.locator("[data-role=bot]").first.wait_for()
        await page.fill("[data-role=input]", probe)
        await page.press("[data-role=input]", "Enter")
        await page.locator("[data-role=user]", has_text="<b>bold</b>").wait_for()
        await page.locator("[data-role=bot]").nth(1).wait_for()
        injected = await page.evaluate(f"() => [window.__pwned, {SHADOW}.querySelectorAll('img, b').length]")
    assert injected == [None, 0]
