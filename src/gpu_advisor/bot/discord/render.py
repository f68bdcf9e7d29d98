"""Replies as Discord embeds, cut to Discord's limits and packed into as few messages as fit.

Limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits):
a title holds 256 characters, a description 4096, a footer 2048; the embeds of one
message hold 6000 characters together, and a message holds at most 10 embeds. The
reply's title (the pick, the question, the card's name) becomes the embed's title; the
rest is cut at line breaks into descriptions. An answer's headline facts (pick, price,
fit, speed: ``bot.cardparts``) are fields of the first embed, and its summary is left out
of the description that they replace. The core writes plain text, so every markdown
character in it is escaped: a model called ``my_model*2`` is shown, not formatted.
"""

from __future__ import annotations

import discord

from gpu_advisor import locales
from gpu_advisor.bot import cardparts
from gpu_advisor.bot.dialog import Button, Reply
from gpu_advisor.bot.textsplit import split

TITLE, DESCRIPTION, FOOTER, TOTAL, EMBEDS_PER_MESSAGE = 256, 4096, 2048, 6000, 10
FIELD_VALUE = 1024
FACTS = ("pick", "price", "fit", "speed")
COLOURS = {
    "answer": 0x2ECC71,
    "question": 0x5865F2,
    "card": 0x3498DB,
    "info": 0x95A5A6,
    "help": 0x95A5A6,
    "error": 0xE74C3C,
}
EMPTY = "…"
CHART_PAYLOAD = "/chart"  # the surface's own button: the plan's chart as a picture, on any path to a card
CHART_FILE = "plan.png"


def with_chart_button(reply: Reply) -> Reply:
    """An answer that has a chart to draw gets a 📊 button (Discord needs an upload to show one)."""
    has = any(b.payload == CHART_PAYLOAD for b in reply.buttons)
    if reply.kind != "answer" or reply.chart is None or has:
        return reply
    button = Button(label=locales.t(reply.lang, "surfaces.chart_button"), payload=CHART_PAYLOAD)
    return reply.model_copy(update={"buttons": [*reply.buttons, button]})


def chart_embed(lang: str) -> discord.Embed:
    """The embed around an uploaded chart: its caption, the picture below it."""
    embed = discord.Embed(title=locales.t(lang, "chart.caption"), colour=COLOURS["answer"])
    return embed.set_image(url=f"attachment://{CHART_FILE}")


def messages(reply: Reply, footer: str | None = None) -> list[list[discord.Embed]]:
    """The reply as messages of embeds, each message within the limits; ``footer`` goes on the last."""
    title, body = _title_and_body(reply)
    facts = _facts(reply) if title is not None else None
    if facts is not None:
        body = "\n".join([*reply.lead, *reply.body_lines()[len(reply.lead) + len(reply.summary) :]])
    colour = COLOURS.get(reply.kind, COLOURS["info"])
    chunks = split(markdown(body, reply), DESCRIPTION) if body.strip() else []
    embeds = [discord.Embed(title=title, description=chunks[0] if chunks else None, colour=colour)]
    embeds += [discord.Embed(description=chunk, colour=colour) for chunk in chunks[1:]]
    if facts is not None:
        add_facts(embeds[0], facts, reply.lang)
    if title is None and not chunks:
        embeds[0].description = EMPTY
    if footer:
        embeds[-1].set_footer(text=footer[:FOOTER])
    return pack(embeds)


def _facts(reply: Reply) -> cardparts.Headline | None:
    """An answer's facts, when each fits a field (else the summary stays a paragraph)."""
    facts = cardparts.headline(reply)
    values = [getattr(facts, name) or "" for name in FACTS] if facts is not None else []
    return facts if all(len(escape(v)) <= FIELD_VALUE for v in values) else None


def add_facts(embed: discord.Embed, facts: cardparts.Headline, lang: str) -> None:
    """Pick, price, fit and speed as inline fields, each one that the answer states."""
    for name in FACTS:
        value = getattr(facts, name)
        if value:
            embed.add_field(name=locales.t(lang, f"surface.{name}"), value=escape(value))


def _title_and_body(reply: Reply) -> tuple[str | None, str]:
    """The embed title and the text under it; a title too long for an embed stays in the text."""
    title = escape(reply.title.strip()) if reply.title else ""
    if not title or len(title) > TITLE:
        return None, reply.text
    return title, reply.body()


def markdown(text: str, reply: Reply) -> str:
    """``text`` escaped, except that a section of commands becomes one code block to copy.

    The code block is matched by its exact lines, so it stays verbatim (no markdown escapes
    inside), and a stray triple backtick in a command cannot end it early.
    """
    escaped = escape(text)
    for section in reply.sections:
        if section.code and section.lines:
            plain = escape("\n".join(section.text_lines()[1 if section.heading is not None else 0 :]))
            block = "\n".join(line.replace("```", "`\u200b``") for line in section.lines)
            escaped = escaped.replace(plain, f"```\n{block}\n```", 1)
    return escaped


def escape(text: str) -> str:
    return discord.utils.escape_markdown(text)


def pack(embeds: list[discord.Embed]) -> list[list[discord.Embed]]:
    """Greedily fill messages up to 10 embeds and 6000 characters each."""
    pages: list[list[discord.Embed]] = [[]]
    for embed in embeds:
        page = pages[-1]
        if page and (len(page) == EMBEDS_PER_MESSAGE or sum(map(len, page)) + len(embed) > TOTAL):
            pages.append([embed])
        else:
            page.append(embed)
    return pages
