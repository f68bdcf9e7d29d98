"""A model the user named is said back as the user wrote it: "Llama-3.1-8B", not "Llama 3.1 8B".

The reader resolves every spelling of a name to one catalog id ("Mistral-7B", "mistral 7b"
and "mistral_7b" are all ``mistral-7b-v0.1``), and the JSON and the contracts keep that
id. A reply in chat that answers "can Mistral-7B …" with "Mistral 7B v0.1" reads as if
it had answered about another model, so the chat text names it back in the user's own
spelling: the span of the message the reader matched, as typed (case, dashes, suffixes),
without the spaces around it (``locales.names.spelled``). The catalog's display name is
what the reply's parts say; ``as_written`` swaps it for the spelling in every line people
read, through the same walker as the Traditional script (``script.rewritten``), so
commands stay verbatim.

This is the one place that knows the user's spelling of a named model: the language-model
names come from ``llm_spellings``; any other reader that resolves a name (a job's model)
hands its (display name, matched span) pairs to ``locales.names.spelled`` the same way
and its reply to ``as_written``.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpu_advisor.bot.dialog.reply import Reply
from gpu_advisor.bot.dialog.script import rewritten
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.locales.names import respelled, spelled
from gpu_advisor.reading.requirements import Vocabulary
from gpu_advisor.text.normalize import normalize

__all__ = ["as_written", "llm_spellings", "respelled", "spelled"]


def llm_spellings(raw: str, vocab: Vocabulary, kb: Knowledge, low: str | None = None) -> dict[str, str]:
    """The language models named in a message: catalog display name → the user's spelling.

    ``low`` is the message as the reader normalised it, when the caller has it (a message
    is normalised once); without it the message is normalised here.
    """
    low = normalize(raw) if low is None else low
    spans = [
        (kb.models[hit.id].name, low[hit.start : hit.end])
        for hit in vocab.models.find(low)
        if hit.id in kb.models
    ]
    return spelled(raw, spans)


def as_written(reply: Reply, spellings: Mapping[str, str]) -> Reply:
    """``reply`` with each display name in ``spellings`` said in the user's spelling instead."""
    if not any(said and said != name for name, said in spellings.items()):
        return reply
    return rewritten(reply, lambda line: respelled(line, spellings))
