"""A button's label typed by hand means what pressing the button means.

"几十人（≈16）", "几十人" or "Dozens" typed while that question is on screen answers it as
the button does — never a different number read from the same words.
"""

from __future__ import annotations

import unicodedata

from gpu_advisor import locales
from gpu_advisor.bot.dialog.questions import QUESTIONS
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.reading.dialog_words import ASIDE as _ASIDE
from gpu_advisor.reading.dialog_words import NOT_LABEL as _NOT_LABEL


def typed_choice(state: ConversationState, text: str) -> str | None:
    """The payload of the pending question's button whose label the user typed by hand.

    The whole label or the label without its aside counts, in either language.
    """
    question = QUESTIONS.get(state.pending or "")
    if question is None or len(text) > 60:
        return None
    typed = _label_key(text)
    for index, choice in enumerate(question.choices):
        for lang in ("zh", "en"):
            label = locales.t(lang, choice.label_key)
            if typed in {_label_key(label), _label_key(_ASIDE.sub("", label))}:
                return f"q:{question.id}:{index}"
    return None


def _label_key(text: str) -> str:
    return _NOT_LABEL.sub("", unicodedata.normalize("NFKC", text)).lower()
