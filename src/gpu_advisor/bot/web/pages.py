"""The chat page at ``/`` and the embeddable ``/widget.js``, shipped as package data.

The widget's own words (title, placeholder, button labels) come from
``locales/*/web.yaml`` and are written into the script where it reads ``/*UI*/ {}``,
as JSON with every ``<`` escaped; everything the server says is set with
``textContent`` by the script, never parsed as HTML. The operator's settings the widget
needs (``human_url``, the "talk to a human" link) are written where it reads
``/*CONFIG*/ {}`` the same way, and its style sheet (``static/widget.css``) at ``/*CSS*/ ""``.
A reader who writes Traditional characters gets the chrome in Traditional: ``zh-TW`` is the
zh words converted with the readers' table (``bot.charts.script``), and the characters
only one script has travel with them (``script``), so the widget decides from the user's
last typed message as the dialog does. ``ack_prefix`` is the dialog's confirmation line's
opening ("收到：" / "Got it: "): the hand-over takes the requirements from that line only.
Its card drawing (``static/widget_card.js``) is a fragment written at ``/*PARTS*/``, inside
the script's closure, so one file is served and nothing leaks into the host page's scope.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from aiohttp import web

from gpu_advisor import locales
from gpu_advisor.bot.charts.script import ONLY_SIMPLIFIED, ONLY_TRADITIONAL, to_traditional
from gpu_advisor.bot.web.context import CONTEXT

UI_MARKER = "/*UI*/ {}"
CONFIG_MARKER = "/*CONFIG*/ {}"
CSS_MARKER = '/*CSS*/ ""'
PARTS_MARKER = "/*PARTS*/"
PARTS = ("widget_card.js",)
UI_PREFIX = "web.widget."


def _static(name: str) -> str:
    return resources.files("gpu_advisor.bot.web").joinpath("static", name).read_text(encoding="utf-8")


def ui_strings() -> dict[str, dict[str, str]]:
    """The widget's words per language ("zh", "en", and "zh-TW" for Traditional writers)."""
    out = {
        lang: {
            k.removeprefix(UI_PREFIX): v for k, v in locales.messages(lang).items() if k.startswith(UI_PREFIX)
        }
        | {"ack_prefix": locales.t(lang, "ack.line", items="")}
        for lang in locales.LANGS
    }
    out["zh-TW"] = {k: to_traditional(v) for k, v in out["zh"].items()}
    out["script"] = {"hant": ONLY_TRADITIONAL, "hans": ONLY_SIMPLIFIED}
    return out


def _as_js(value: object) -> str:
    return json.dumps(value, ensure_ascii=True).replace("<", "\\u003c")


@lru_cache(maxsize=4)
def widget_source(human_url: str | None = None) -> str:
    js = _static("widget.js")
    for marker in (UI_MARKER, CONFIG_MARKER, CSS_MARKER, PARTS_MARKER):
        if marker not in js:
            raise RuntimeError(f"widget.js lost its {marker} marker")
    js = js.replace(PARTS_MARKER, "\n".join(_static(name) for name in PARTS), 1)
    js = js.replace(CSS_MARKER, _as_js(_static("widget.css")), 1)
    js = js.replace(UI_MARKER, _as_js(ui_strings()), 1)
    return js.replace(CONFIG_MARKER, _as_js({"human_url": human_url} if human_url else {}), 1)


async def widget(request: web.Request) -> web.Response:
    return web.Response(
        text=widget_source(request.app[CONTEXT].config.human_url),
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
