"""One conversation, the same words on the web, in Telegram and in Discord (issue 47).

Each surface draws the dialog's one ``Reply`` its own way: the web's JSON (``ChatResponse``:
lead, title, summary, sections, footer, which the widget lays out), Telegram's HTML
(``bot.telegram.render.to_html``: bold title and headings) and Discord's embeds
(``bot.discord.render.messages``: the title as the embed's title, an answer's facts as
fields, markdown escaped). Stripped of their markup, each surface says every phrase the web
says and nothing the web does not, for every turn of a conversation in Chinese, in
Traditional Chinese and in English; Telegram's buttons carry the web's labels.
"""

from __future__ import annotations

import html
import re

import pytest

from gpu_advisor.bot.dialog import ConversationState, Dialog, Reply
from gpu_advisor.bot.discord import render as discord_render
from gpu_advisor.bot.discord.views import quick_replies
from gpu_advisor.bot.telegram import render as telegram_render
from gpu_advisor.bot.terminal import reply_json
from gpu_advisor.bot.web.schemas import ChatResponse

CONVERSATIONS = {
    "zh": ("部署 13B 聊天机器人，并发 8，7×24", "!/why", "其实是 70B", "!/cost", "16 张 A100 多少钱"),
    "zh-TW": ("部署 13B 聊天機器人，並發 8，7×24", "!/why", "其實是 70B"),
    "en": ("deploy llama 3 8b for 20 users 24/7", "!/why", "ok, and what about 2 machines?", "!/alt"),
}
DOT = " · "
_TAG = re.compile(r"</?(?:b|pre)>")
_MD_ESCAPE = re.compile(r"\\([\\*_`~|>#\-\[\]()])")


def turns(dialog: Dialog, messages: tuple[str, ...]) -> list[Reply]:
    state, out = ConversationState(), []
    for m in messages:
        reply, state = dialog.press(state, m[1:]) if m.startswith("!") else dialog.handle(state, m)
        out.append(reply)
    return out


def web_response(reply: Reply) -> ChatResponse:
    """The web's JSON for ``reply``, as ``POST /api/chat`` answers it."""
    return ChatResponse.model_validate({**reply_json(reply), "session_id": "s" * 16, "kind": reply.kind})


def web_lines(reply: Reply) -> list[str]:
    """What the web's JSON says, line by line, as the widget shows it (bullets before section lines)."""
    r = web_response(reply)
    if r.title is None:
        return [line for line in r.text.splitlines() if line.strip()]
    lines = [*r.lead, r.title, *r.summary]
    for s in r.sections:
        lines += [s.heading] if s.heading else []
        lines += [f"{s.bullet} {line}" if s.bullet else line for line in s.lines]
    return [line for line in [*lines, *r.footer] if line.strip()]


def telegram_lines(reply: Reply) -> list[str]:
    shown = telegram_render.to_html(telegram_render.with_chart_button(reply))
    return [line for line in html.unescape(_TAG.sub("", shown)).splitlines() if line.strip()]


def discord_text(reply: Reply) -> list[str]:
    """Every line of every embed (title, description, field values), markdown unescaped."""
    out: list[str] = []
    for message in discord_render.messages(discord_render.with_chart_button(reply)):
        for embed in message:
            parts = [embed.title or "", embed.description or "", *(f.value or "" for f in embed.fields)]
            out += [line for part in parts for line in part.replace("```", "").splitlines() if line.strip()]
    return [_MD_ESCAPE.sub(r"\1", line) for line in out if line != discord_render.EMPTY]


def phrases(lines: list[str]) -> set[str]:
    return {p.strip() for line in lines for p in line.split(DOT) if p.strip()}


@pytest.mark.parametrize("lang", CONVERSATIONS)
def test_telegram_says_the_webs_lines(dialog: Dialog, lang: str) -> None:
    """Line for line; an answer's price, which the web gives in its own field, under its title."""
    for reply in turns(dialog, CONVERSATIONS[lang]):
        web = web_lines(reply)
        if reply.title is not None and (price := web_response(reply).price) and price not in reply.title:
            at = web.index(reply.title) + 1
            web = [*web[:at], price, *web[at:]]
        assert telegram_lines(reply) == web


@pytest.mark.parametrize("lang", CONVERSATIONS)
def test_discord_says_the_webs_phrases_and_no_others(dialog: Dialog, lang: str) -> None:
    for reply in turns(dialog, CONVERSATIONS[lang]):
        web, shown = phrases(web_lines(reply)), phrases(discord_text(reply))
        extra = {reply.pick, reply.price} - {None}  # an answer's facts, as fields
        assert web <= shown, web - shown
        assert shown <= web | extra, shown - web


@pytest.mark.parametrize("lang", CONVERSATIONS)
def test_the_buttons_carry_the_webs_labels_plus_the_chart_button(dialog: Dialog, lang: str) -> None:
    for reply in turns(dialog, CONVERSATIONS[lang]):
        web = [b.label for b in web_response(reply).buttons]
        telegram_markup = telegram_render.keyboard(telegram_render.with_chart_button(reply).buttons)
        telegram = [k.text for row in telegram_markup.inline_keyboard for k in row] if telegram_markup else []
        discord_view = quick_replies(discord_render.with_chart_button(reply).buttons, reply.lang)
        children = discord_view.children if discord_view else []
        on_discord = [getattr(getattr(item, "item", item), "label", None) for item in children]
        chart = [telegram[-1]] if reply.kind == "answer" and reply.chart is not None else []
        assert telegram == [*web, *chart]
        assert on_discord[: len(web)] == web
