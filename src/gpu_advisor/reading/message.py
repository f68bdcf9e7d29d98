"""One message, read once: everything the dialog's answerers need to decide who answers.

The dialog used to normalise a plain requirement message six or seven times and extract
its slots twice (once to see whether it was a yes/no question about a card, once for the
requirement flow). Here the message is normalised once (inside ``extract``, which keeps
the normalised text as ``Extraction.normalized``) and every later question — is it a
yes/no question, a price or speed question, a comparison, a myth, a concept — is asked
of that one normalised text. Like Rasa's NLU result (an intent plus entities) read by
slot mappings, or python-telegram-bot's ``check_update`` result handed to
``handle_update``, the answerers receive this reading and never read the text again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading import concepts
from gpu_advisor.reading.claims import claims_in, mentions_free_platform
from gpu_advisor.reading.followup import plan_question
from gpu_advisor.reading.intent import Intent, decide
from gpu_advisor.reading.jobs import Job
from gpu_advisor.reading.question_form import QuestionForm, question_form
from gpu_advisor.reading.quote import MoneyReading, read_normalized
from gpu_advisor.reading.requirements import Extraction, Vocabulary, extract
from gpu_advisor.text.normalize import Lang


@dataclass(frozen=True)
class Message:
    """A message as read: its text, its normalised text, its slots and its question form."""

    text: str
    ext: Extraction
    form: QuestionForm
    claims: tuple[str, ...]
    free_platform: bool
    asks: bool  # any question marker (吗, 为什么, how, which, ?) — a concept may be asked
    intent: Intent = "sizing"  # what the message asks, decided once (``reading.intent``)
    job: Job = "none"  # what GPU job it is about (``reading.jobs``)
    follow: str | None = None  # the question about a plan already given (``reading.followup``)
    concept: str | None = None  # the concept question asked, by id (``reading.concepts``)
    cut: bool = False  # the surface cut the message at its cap (the reply says so)
    _money: dict[int, MoneyReading] = field(default_factory=dict, compare=False, repr=False)

    @property
    def low(self) -> str:
        """The normalised text every reader saw."""
        return self.ext.normalized

    @property
    def lang(self) -> Lang:
        return self.ext.lang

    @property
    def slots(self) -> dict[str, object]:
        return self.ext.slots

    def money(self, kb: Knowledge) -> MoneyReading:
        """The money reading (a quote's prices, ownership prices), read once per message for
        whichever answerer asks first (it needs the catalog, so it is read on demand)."""
        reading = self._money.get(id(kb))
        if reading is None:
            reading = self._money[id(kb)] = read_normalized(self.low, kb)
        return reading

    @property
    def job_slots(self) -> dict[str, object]:
        """The job's own numbers by role (images per day, frames, audio hours, codec …)."""
        return self.ext.job_slots

    @property
    def unplaced(self) -> tuple[str, ...]:
        """Numbers the reading could not place, as written: said back, never used."""
        return tuple(str(i.values.get("value", "")) for i in self.ext.issues if i.id == "number_unused")


def read_message(
    text: str,
    vocab: Vocabulary,
    *,
    expecting: str | None = None,
    current_lang: Lang | None = None,
    today: date | None = None,
) -> Message:
    """Read ``text`` once: slots (answering ``expecting`` when it is a bare answer), form, claims."""
    ext = extract(text, vocab, expecting=expecting, current_lang=current_lang, today=today)
    low = ext.normalized
    intent, job = decide(low, ext)
    form = question_form(low, ext)
    return Message(
        text=text,
        ext=ext,
        form=form,
        claims=tuple(claims_in(low)),
        free_platform=mentions_free_platform(low),
        asks=concepts.asks(low),
        concept=concepts.find(low),
        intent=intent,
        job=job,
        follow=plan_question(low, intent, names_card=bool(ext.slots.get("gpu")), asks_price=form.price),
    )
