"""A model the user named is said back as the user wrote it: "Llama-3.1-8B", not "Llama 3.1 8B".

The reader resolves every spelling of a name to one catalog id ("Mistral-7B", "mistral 7b"
and "mistral_7b" are all ``mistral-7b-v0.1``), and the JSON and the contracts keep that
id. A reply in chat that answers "can Mistral-7B …" with "Mistral 7B v0.1" reads as if
it had answered about another model, so the chat text names it back in the user's own
spelling: the span of the message the reader matched, as typed (case, dashes, suffixes),
without the spaces around it. The catalog's display name is what the reply's parts say;
``as_written`` swaps it for the spelling in every line people read, through the same
walker as the Traditional script (``script.rewritten``), so commands stay verbatim.

This is the one place that knows the user's spelling of a named model: the language-model
names come from ``llm_spellings``; any other reader that resolves a name (a job's model)
hands its matched spans to ``spelled`` the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from gpu_advisor.bot.dialog.reply import Reply
from gpu_advisor.bot.dialog.script import rewritten
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.requirements import Vocabulary
from gpu_advisor.text.normalize import normalize

_TOKENS = re.compile(r"[a-z]+|\d+(?:\.\d+)*")
_JOIN = r"[-_:\s./]*"
_ALNUM = r"[A-Za-z0-9]"


def spelled(raw: str, spans: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Display name → the user's spelling, for each (display name, normalised span) the reader matched.

    The normalised span ("qwen2.5-7b-instruct") is found again in the raw message by its
    letter and digit tokens, joined by any separator, ignoring case; a span the raw text
    does not hold that way (a name written in Chinese words, "蒸馏") keeps the display name.
    """
    text = unicodedata.normalize("NFKC", raw)  # full-width letters are the same letters
    out: dict[str, str] = {}
    for display, span in spans:
        tokens = _TOKENS.findall(span.lower())
        if not tokens or display in out:
            continue
        body = _JOIN.join(re.escape(t) for t in tokens)
        found = re.search(rf"(?<!{_ALNUM}){body}(?!{_ALNUM})", text, re.IGNORECASE)
        if found is not None:
            out[display] = found.group().strip(" -_:./")
    return out


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
    if not _wanted(spellings):
        return reply
    return rewritten(reply, lambda line: respelled(line, spellings))


def respelled(line: str, spellings: Mapping[str, str]) -> str:
    """One line with each display name in ``spellings`` in the user's spelling.

    A display name inside a longer word or name ("Llama 3.1 8B" in "Llama 3.1 8B Instruct")
    is left alone: only the name on its own is the user's.
    """
    wanted = _wanted(spellings)
    if not wanted:
        return line
    names = sorted(wanted, key=len, reverse=True)  # "Qwen2.5 72B Instruct" before "Qwen2.5 72B"
    pattern = re.compile(
        rf"(?<!{_ALNUM})(?:{'|'.join(re.escape(n) for n in names)})"
        rf"(?![A-Za-z0-9.]|\s+(?:Instruct|Chat|Base)\b)"
    )
    return pattern.sub(lambda m: wanted[m.group()], line)


def _wanted(spellings: Mapping[str, str]) -> dict[str, str]:
    return {name: said for name, said in spellings.items() if said and said != name}
