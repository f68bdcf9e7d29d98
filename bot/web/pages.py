"""The chat page at ``/`` and the embeddable ``/widget.js``, shipped as package data.

The widget's own words (title, placeholder, button labels) come from
``locales/*/web.yaml`` and are written into the script where it reads ``/*UI*/ {}``,
as JSON with every ``<`` escaped; everything the server says is set with
``textContent`` by the script, never parsed as HTML.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from aiohttp import web

import locales
from bot.web.context import CONTEXT

UI_MARKER = "/*UI*/ {}"
UI_PREFIX = "web.widget."


def _static(name: str) -> str:
    return resources.files("bot.web").joinpath("static", name).read_text(encoding="utf-8")


def ui_strings() -> dict[str, dict[str, str]]:
    return {
        lang: {
            k.removeprefix(UI_PREFIX): v for k, v in locales.messages(lang).items() if k.startswith(UI_PREFIX)
        }
        for lang in locales.LANGS
    }


@lru_cache(maxsize=1)
def widget_source() -> str:
    js = _static("widget.js")
    if UI_MARKER not in js:
        raise RuntimeError("widget.js lost its /*UI*/ marker")
    strings = json.dumps(ui_strings(), ensure_ascii=True).replace("<", "\\u003c")
    return js.replace(UI_MARKER, strings, 1)


async def widget(request: web.Request) -> web.Response:
    return web.Response(
        text=widget_source(),
        content_type="text/javascript",
        headers={"Cache-Control": "public, max-age=300", "Cross-Origin-Resource-Policy": "cross-origin"},
    )


async def index(request: web.Request) -> web.Response:
    """The chat page; sites listed for CORS may also frame it."""
    ancestors = " ".join(("'self'", *request.app[CONTEXT].config.cors_origins)).replace(" *", " https:")
    policy = (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
        f"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors {ancestors}"
    )
    return web.Response(
        text=_static("index.html"), content_type="text/html", headers={"Content-Security-Policy": policy}
    )
