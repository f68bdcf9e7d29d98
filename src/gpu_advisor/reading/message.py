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
from gpu_advisor.reading import concepts, dialog_words
from gpu_advisor.reading.claims import claims_in, mentions_free_platform
from gpu_advisor.reading.compare_words import compare_asks_money
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
    asked: frozenset[Intent] = frozenset()  # every question the message asks, ``intent`` first among them
    heard: frozenset[str] = frozenset()  # the small word classes the answerers test (:data:`HEARD`)
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


HEARD = ("cheapest", "slice", "swap", "also", "claim_asked", "compare_money", "train")
"""Small decisions the dialog used to make from the text itself, made here once:

- ``cheapest``: the catalog's cheapest asked for ("最便宜能租到什么", "cheapest thing you rent");
- ``slice``: a MIG slice named ("切片", "MIG", "3g.40gb");
- ``swap``: another card swapped in for the one priced ("换成 L40S", "switch to an A10G");
- ``also``: a second job added to the first ("也要微调", "serve it as well");
- ``claim_asked``: a claim put as a question, a request to confirm or hearsay that is not part
  of a job description ("T4 是 65T 对吧", "听说 4090 不能训练");
- ``compare_money``: a comparison that names money ("价差多少", "compare … prices");
- ``train``: a training word (训, 微调, LoRA, fine-tune), which makes a verdict's workload a training one."""
_JOB_SLOTS = ("concurrency", "qps", "budget", "always_on")
"""What a user says about their own job (a claim's own numbers do not count)."""


def asked_of(intent: Intent, form: QuestionForm) -> frozenset[Intent]:
    """Every question a message asks: its intent and the forms read beside it ("4090 能跑 14B 吗，
    多少钱" is a verdict and a price; "一天能训多少 token" a speed)."""
    forms: tuple[tuple[bool, Intent], ...] = (
        (form.yes_no, "fit"),
        (form.speed, "speed"),
        (form.price, "price"),
        (form.capacity, "capacity"),
        (form.compare, "compare"),
    )
    return frozenset({intent, *(name for holds, name in forms if holds)})


def heard_in(low: str, ext: Extraction, asks: bool) -> frozenset[str]:
    """The names of :data:`HEARD` that hold for the normalised text ``low``."""
    confirm = asks or dialog_words.CONFIRM.search(low) is not None
    hearsay = dialog_words.HEARSAY.search(low) is not None and not any(k in ext.slots for k in _JOB_SLOTS)
    tests = {
        "cheapest": dialog_words.CHEAPEST.search(low) is not None,
        "slice": dialog_words.SLICE.search(low) is not None,
        "swap": dialog_words.SWAP.search(low) is not None,
        "also": dialog_words.ALSO.search(low) is not None,
        "claim_asked": confirm or hearsay,
        "compare_money": compare_asks_money(low),
        "train": dialog_words.TRAIN.search(low) is not None,
    }
    return frozenset(name for name, holds in tests.items() if holds)


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
    asks = concepts.asks(low)
    return Message(
        text=text,
        ext=ext,
        form=form,
        claims=tuple(claims_in(low)),
        free_platform=mentions_free_platform(low),
        asks=asks,
        concept=concepts.find(low),
        intent=intent,
        job=job,
        asked=asked_of(intent, form),
        heard=heard_in(low, ext, asks),
        follow=plan_question(low, intent, names_card=bool(ext.slots.get("gpu")), asks_price=form.price),
    )
