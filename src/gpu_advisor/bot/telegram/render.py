"""Replies as Telegram messages: HTML with every dynamic value escaped, split under 4096.

The dialog core writes plain text in parts (``bot.dialog.reply``); we escape all of it
(so "<script>" or "a<b" in a model name can never break the markup) and only add our
own tags: the reply's title and its section headings are bold. A plain reply (no
parts) is escaped and nothing more.
Quick replies become an inline keyboard whose callback_data is the button payload
(ASCII, ≤ 64 bytes by construction in ``bot.dialog.reply``) bound to the asker
(``bot.links.bind``), so in a group nobody else's press acts on their card; a button with
a ``url`` (the offer's "Order" link) opens it instead. A reply with a chart goes out as
one photo whose caption is the card when it fits Telegram's 1,024 caption characters.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from gpu_advisor import locales
from gpu_advisor.bot import cardparts, links, textsplit
from gpu_advisor.bot.charts.script import ONLY_TRADITIONAL, to_traditional
from gpu_advisor.bot.dialog import Button, Reply
from gpu_advisor.bot.dialog.reply import Section

MAX_MESSAGE, MAX_CAPTION = 4096, 1024
MAX_INLINE_TITLE, MAX_INLINE_DESCRIPTION = 256, 512
BUTTONS_PER_ROW = 3
INLINE_FALLBACK_TITLE = "GPU Advisor"
_TAGS = re.compile(r"<[^<>]*>")
CHART_PAYLOAD = "/chart"  # the surface's own button: the plan's chart as a photo, on any path to a card


def with_chart_button(reply: Reply) -> Reply:
    """An answer that has a chart to draw gets a 📊 button, whichever way it was reached."""
    has = any(b.payload == CHART_PAYLOAD for b in reply.buttons)
    if reply.kind != "answer" or reply.chart is None or has:
        return reply
    label = locales.t(reply.lang, "surfaces.chart_button")
    if any(ch in ONLY_TRADITIONAL for ch in reply.text):  # the reply is in Traditional: its button too
        label = to_traditional(label)
    button = Button(label=label, payload=CHART_PAYLOAD)
    return reply.model_copy(update={"buttons": [*reply.buttons, button]})


def to_html(reply: Reply) -> str:
    """Escape everything; the title (the pick, the question, the card) and section headings in bold."""
    if not reply.structured:
        return html.escape(reply.text)
    lines = [html.escape(line) for line in reply.lead]
    if reply.title is not None:
        lines.append(_bold(reply.title))
    price = cardparts.price_line(reply)
    if price is not None:
        lines.append(_bold(price))
    lines += [html.escape(line) for line in reply.summary]
    for section in reply.sections:
        if section.lines:
            heading = [_bold(section.heading)] if section.heading is not None else []
            lines += [*heading, *_section_lines(section)]
    lines += [html.escape(line) for line in reply.footer]
    return "\n".join(lines)


def _section_lines(section: Section) -> list[str]:
    """Bulleted lines, or one ``<pre>`` block for commands to copy (a tap copies it in Telegram)."""
    if section.code:
        return [f"<pre>{html.escape(chr(10).join(section.lines))}</pre>"]
    return [html.escape(f"{section.bullet} {line}" if section.bullet else line) for line in section.lines]


def _bold(text: str) -> str:
    return f"<b>{html.escape(text)}</b>" if text else ""


def inline_title(reply: Reply) -> str:
    """An inline result's title: the reply's own title (the pick and its price)."""
    return (reply.title or INLINE_FALLBACK_TITLE)[:MAX_INLINE_TITLE]


def inline_description(reply: Reply) -> str:
    """Under the title: the short answer's first two lines (or what preceded a question)."""
    lines = (reply.summary or reply.lead) if reply.structured else [reply.text]
    return " · ".join(lines[:2])[:MAX_INLINE_DESCRIPTION]


def split(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Message-sized chunks; always at least one, so an empty reply still answers."""
    return textsplit.split(text, limit) or [text[:limit]]


def caption(reply: Reply) -> str | None:
    """The card as a photo's caption, or ``None`` when it is longer than a caption may be."""
    text = to_html(reply)
    return text if len(html.unescape(_TAGS.sub("", text))) <= MAX_CAPTION else None


def keyboard(buttons: list[Button], owner: int | None = None) -> InlineKeyboardMarkup | None:
    """The quick replies, each pressable by ``owner`` only (anyone's when ``owner`` is None)."""
    if not buttons:
        return None
    return _markup(tuple(_key(b, owner) for b in buttons))


def link_button(label: str, url: str) -> InlineKeyboardMarkup:
    """One button that opens ``url`` (a deep link, an order page) instead of a raw link in the text."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, url=url)]])


def _key(button: Button, owner: int | None) -> tuple[str, str, bool]:
    url: str | None = getattr(button, "url", None)  # the offer's order page, where the card has one
    if url:
        return button.label, url, True
    data = button.payload if owner is None else links.bind(button.payload, owner)
    return button.label, data, False


@lru_cache(maxsize=512)
def _markup(buttons: tuple[tuple[str, str, bool], ...]) -> InlineKeyboardMarkup:
    """Built once per distinct keyboard: PTB's objects are immutable, and building one costs
    more than rendering the reply's text (the dialog asks the same few questions)."""
    rows = [buttons[i : i + BUTTONS_PER_ROW] for i in range(0, len(buttons), BUTTONS_PER_ROW)]
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(label, url=target)
                if is_url
                else InlineKeyboardButton(label, callback_data=target)
                for label, target, is_url in row
            ]
            for row in rows
        ]
    )
