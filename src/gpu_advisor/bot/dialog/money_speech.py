"""A hosted speech API's per-minute price against renting a card for the same audio, in chat (issue 44).

The message names the speech job (``Message.job`` is ``speech``), a hosted API and its price per
minute or second, and the audio hours (``Message.job_slots``); the answer is
``engine.speech_api.speech_api_vs_rent`` on the named card (or the plan's pick), with the
verdict, rendered through ``locales/*/money.yaml`` (``money.speech``). None otherwise.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_lines import gpu_name
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.speech_api import SpeechApiVsRent, speech_api_vs_rent
from gpu_advisor.knowledge.job_speeds import load_jobs
from gpu_advisor.locales.numbers import currency_symbol, number
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.quote import read_normalized
from gpu_advisor.reading.rate_words import short_rate
from gpu_advisor.reading.use_words import mentions_api


def speech_api_money(kb: Knowledge, msg: Message, lang: str) -> Content | None:
    """The API against the rental for the stated audio hours, or None when something is not said."""
    hours = msg.job_slots.get("audio_hours")
    if msg.job != "speech" or not mentions_api(msg.low) or not isinstance(hours, int | float):
        return None
    rate = short_rate(msg.low)
    if rate is None:
        return None
    per_minute = (
        rate[0] if rate[1] == "minute" else rate[0].model_copy(update={"amount": rate[0].amount * 60})
    )
    card = read_normalized(msg.low, kb).gpu
    c = speech_api_vs_rent(per_minute, float(hours), kb, load_jobs(), card)
    if c is None:
        return None
    lines = _lines(lang, c, kb)
    if card is not None and card != c.gpu:  # the named card is not rented: the plan's nearest is priced
        lines.insert(
            1,
            locales.t(
                lang, "money.speech.other_card", asked=gpu_name(lang, kb, card), gpu=gpu_name(lang, kb, c.gpu)
            ),
        )
    return Content(title=_title(lang, c), summary=lines)


def _title(lang: str, c: SpeechApiVsRent) -> str:
    return locales.t(
        lang,
        f"money.speech.title_{c.cheaper}",
        saving=c.saving.amount,
        hours=c.audio_hours,
        currency=c.saving.currency,
    )


def _lines(lang: str, c: SpeechApiVsRent, kb: Knowledge) -> list[str]:
    rate = currency_symbol(lang, c.per_minute.currency) + number(lang, c.per_minute.amount, "#,##0.######")
    converted = ""
    if c.rent_own.currency != c.rent.currency:
        converted = locales.t(lang, "money.beside.converted", amount=c.rent.amount, currency=c.rent.currency)
    lines = [
        locales.t(
            lang,
            "money.speech.api",
            hours=c.audio_hours,
            rate=rate,
            api=c.api.amount,
            currency=c.api.currency,
        ),
        locales.t(
            lang,
            "money.speech.rent",
            gpus=c.gpus,
            gpu=gpu_name(lang, kb, c.gpu),
            model=c.model,
            hours=c.audio_hours,
            gpu_hours=c.gpu_hours,
            own=c.rent_own.amount,
            currency=c.rent_own.currency,
            converted=converted,
        ),
    ]
    if c.fx_date is not None:
        lines.append(locales.t(lang, "money.beside.fx", date=c.fx_date.isoformat()))
    return lines
