"""How a name is said to a person: a card without the vendor's marketing words, a model
the user named in the user's own spelling.

"NVIDIA GeForce RTX 3090" is "RTX 3090" on a phone screen, in a chart label and in a
sentence alike; the engine and the JSON keep the catalogue's full name. A card is named one
way in one conversation (issue 47): ``card_name`` names it in the plan's pick, the findings,
the price line and the comparison's rows alike, a rebuilt board with its qualifier in the
user's language ("RTX 4090 48GB（魔改）", never the catalogue's English "(rebuilt)").

A model the user wrote as "Llama-3.1-8B" is "Llama-3.1-8B" in the reply, not the catalog's
"Llama 3.1 8B": the reader resolves every spelling to one id (which the JSON keeps), and
``spelled`` finds the span it matched again in the message as typed; ``respelled`` says a
line with the user's spelling in place of the display name (``bot.dialog.spelling``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from gpu_advisor import locales

_TOKENS = re.compile(r"[a-z]+|\d+(?:\.\d+)*")
_JOIN = r"[-_:\s./]*"
_ALNUM = r"[A-Za-z0-9]"

_VENDOR_WORDS = ("NVIDIA ", "GeForce ", "Tesla ", "Huawei ")
_REBUILT = " (rebuilt)"
"""How the catalogue marks a rebuilt board (``knowledge/gpus.yaml``: "RTX 4090 48GB (rebuilt)")."""


def short_gpu(name: str) -> str:
    """'NVIDIA GeForce RTX 3090' → 'RTX 3090'."""
    for word in _VENDOR_WORDS:
        name = name.replace(word, "")
    return name.strip()


def card_name(lang: str, name: str) -> str:
    """The card as every reply names it: short, a rebuilt board said so in the user's language.

    "NVIDIA GeForce RTX 3090" → "RTX 3090"; "RTX 4090 48GB (rebuilt)" → "RTX 4090 48GB（魔改）"
    in Chinese, "RTX 4090 48GB (modified board)" in English (``words.modified``).
    """
    short = short_gpu(name)
    if short.endswith(_REBUILT):
        return locales.t(lang, "words.modified", gpu=short.removesuffix(_REBUILT))
    return short


def runtime_name(lang: str, name: str) -> str:
    """A runtime's display name as the reply's language says it (issue 47).

    The engine's findings carry ``knowledge/runtimes.yaml``'s display name, or a job runtime's
    id (``knowledge/speech.yaml``: "cosyvoice-trtllm"); a name made of English words ("Hugging
    Face transformers (generate, eager)") or an id has its wording in ``runtime_name`` of each
    language ("Hugging Face transformers（逐条生成，PyTorch 即时执行）", "Triton + TensorRT-LLM"),
    a product's own name (vLLM, faster-whisper) is said as it is.
    """
    key = f"runtime_name.{name}"
    return locales.t(lang, key) if locales.has(lang, key) else name


def spelled(raw: str, spans: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Display name → the user's spelling, for each (display name, normalised span) matched.

    The normalised span ("qwen2.5-7b-instruct") is found again in the raw message by its
    letter and digit tokens, joined by any separator, ignoring case, and taken as typed
    without the separators around it; a span the raw text does not hold that way (a name
    written with Chinese words, "蒸馏版") keeps the display name.
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


def respelled(line: str, spellings: Mapping[str, str]) -> str:
    """``line`` with each display name in ``spellings`` in the user's spelling.

    A display name inside a longer word or name ("Llama 3.1 8B" in "Llama 3.1 8B Instruct")
    is left alone: only the name on its own is the user's.
    """
    wanted = {name: said for name, said in spellings.items() if said and said != name}
    if not wanted:
        return line
    names = sorted(wanted, key=len, reverse=True)  # "Qwen2.5 72B Instruct" before "Qwen2.5 72B"
    pattern = re.compile(
        rf"(?<!{_ALNUM})(?:{'|'.join(re.escape(n) for n in names)})"
        rf"(?![A-Za-z0-9]|\.\d|\s+(?:Instruct|Chat|Base)\b)"
    )
    return pattern.sub(lambda m: wanted[m.group()], line)
