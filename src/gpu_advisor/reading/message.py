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

from dataclasses import dataclass
from datetime import date

from gpu_advisor.engine import concepts
from gpu_advisor.reading.claims import claims_in, mentions_free_platform
from gpu_advisor.reading.question_form import QuestionForm, question_form
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
    cut: bool = False  # the surface cut the message at its cap (the reply says so)

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
    return Message(
        text=text,
        ext=ext,
        form=question_form(low, ext),
        claims=tuple(claims_in(low)),
        free_platform=mentions_free_platform(low),
        asks=concepts.asks(low),
    )
