"""A model the user named is said back as the user wrote it: "Llama-3.1-8B", not "Llama 3.1 8B".

The readers resolve every spelling of a name to one id ("Mistral-7B", "mistral 7b" and
"mistral_7b" are all ``mistral-7b-v0.1``; "SDXL" is ``sdxl``), and the JSON, the contracts
and the commands keep that id. A reply in chat that answers "can Mistral-7B …" with
"Mistral 7B v0.1", or "SDXL 每天 5000 张" with "Stable Diffusion XL 1.0", reads as if it had
answered about another model, so the chat text names it back in the user's own spelling.

This is the one place that knows that spelling, for a language model and a job's model
alike. A reader hands over (display name, the span it matched in the normalised message);
``heard`` finds each span again in the message as typed (``locales.names.spelled``: case,
dashes, suffixes) and keeps display name → spelling on the conversation
(``ConversationState.spelled``), so a later turn, a button press or a ``/why`` says the
name the user's way too. The parts of a reply say the display name; ``as_written`` swaps
it for the spelling in every line people read, through the walker the Traditional script
uses (``script.rewritten``), so code sections stay verbatim.
"""

from __future__ import annotations

from collections.abc import Iterable

from gpu_advisor.bot.dialog.reply import Reply
from gpu_advisor.bot.dialog.script import rewritten
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.locales.names import respelled, spelled
from gpu_advisor.reading.requirements import Vocabulary
from gpu_advisor.text.normalize import normalize

__all__ = ["as_written", "heard", "llm_spans", "llm_spellings", "respelled", "typed"]

Span = tuple[str, str]
"""(the catalog's display name, the normalised span a reader matched for it)."""


def llm_spans(low: str, vocab: Vocabulary, kb: Knowledge) -> list[Span]:
    """The language models the normalised message ``low`` names, each with the span matched."""
    return [
        (kb.models[hit.id].name, low[hit.start : hit.end])
        for hit in vocab.models.find(low)
        if hit.id in kb.models
    ]


def llm_spellings(raw: str, vocab: Vocabulary, kb: Knowledge) -> dict[str, str]:
    """The language models ``raw`` names: catalog display name → the user's spelling."""
    return spelled(raw, llm_spans(normalize(raw), vocab, kb))


def heard(state: ConversationState, raw: str, spans: Iterable[Span]) -> ConversationState:
    """``state`` remembering how ``raw`` (the message as typed) spells each model in ``spans``.

    The latest spelling of a name wins: someone who wrote "llama-3.1-8b" and later "Llama 3.1 8B"
    reads the catalog's name from then on. A span the typed message does not hold letter for
    letter (a name written with Chinese words) leaves the display name.
    """
    said = spelled(raw, spans)
    if not said or all(state.spelled.get(name) == spelling for name, spelling in said.items()):
        return state
    return state.model_copy(update={"spelled": {**state.spelled, **said}})


def typed(raw: str, span: str) -> str:
    """The span as ``raw`` writes it ("SAM" for "sam"), else the span: a name with no display name."""
    return spelled(raw, [(span, span)]).get(span, span)


def as_written(reply: Reply, state: ConversationState) -> Reply:
    """``reply`` with each model the conversation named said in the user's spelling."""
    if not any(said != name for name, said in state.spelled.items()):
        return reply
    return rewritten(reply, lambda line: respelled(line, state.spelled))
