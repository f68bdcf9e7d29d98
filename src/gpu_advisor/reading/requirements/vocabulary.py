"""Known model and GPU names, compiled once into longest-alias-first matchers.

The caller builds a :class:`Vocabulary` from the knowledge files and hands us plain data,
so this package never reads YAML. People write one name many ways ("Llama-3.1-70B",
"llama 3.1 70b", "llama3.1_70b", "A100 80GB", "a100-80g"), so every alias is split into
letter and digit tokens that may be joined by "-", "_", ":", spaces or nothing (Ollama
writes "qwen2.5:7b"), and a matched
span is resolved by ``text.names`` (the one resolver the JSON API and the sheet reader
use too), so chat and the API agree on what every spelling means.
Alternatives are tried longest first, so "a100 80g" beats "a100" and
"llama-3.1-70b-instruct" beats "llama-3.1-70b".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from gpu_advisor.text.lazy import compiled, lazy
from gpu_advisor.text.names import NameIndex, key
from gpu_advisor.text.normalize import normalize

_TOKENS = lazy(r"[a-z]+|\d+(?:\.\d+)*|[^\sa-z\d_:-]+")
_JOIN = r"[-_:\s]*"
# Something written like a card: a vendor letter prefix and a model number ("h300",
# "b300", "rtx 5080", "mi355x", "昇腾910c"), a suffix letter other than "b" (a3b is an
# active-parameter count). Known cards are claimed before this runs.
GPU_LIKE = lazy(
    r"(?<![a-z0-9])(?:(?:rtx|gtx|geforce) ?\d{4}(?: ?ti)?|(?:mi ?|[hablvt])\d{2,3}[xdsge]?"
    r"|(?:昇腾|ascend|华为|huawei) ?9\d0[a-z]?)(?![a-z0-9])"
)
# Words of a model name people write in Chinese: "deepseek r1 蒸馏 32b" is the distill.
_SYNONYMS = {"distill": "(?:distill|蒸馏版?)"}
_SYNONYM_WORDS = lazy("蒸馏版?")
_MIN_FAMILY = 3  # "yi" or "phi" as a family word would flag too much ordinary text


def canonical(name: str) -> str:
    """The lookup key of a name: normalized (Traditional, width), then ``text.names.key``."""
    return key(normalize(name))


def _alias_pattern(alias: str) -> str:
    """A regex for one alias whose tokens may be joined by any separator or none."""
    tokens = _TOKENS.findall(normalize(alias))
    parts: list[str] = []
    for index, token in enumerate(tokens):
        after_digits = index > 0 and tokens[index - 1][0].isdigit()
        if token in {"g", "gb"} and after_digits:
            parts.append("gb?")
        else:
            parts.append(_SYNONYMS.get(token, re.escape(token)))
    return _JOIN.join(parts)


@dataclass(frozen=True)
class Hit:
    """One name found in a message: the id it stands for and where it was written."""

    id: str
    start: int
    end: int


class AliasIndex:
    """All aliases of one kind of thing (models or GPUs) as one compiled alternation."""

    def __init__(self, names: Mapping[str, Sequence[str]], plural: bool = False) -> None:
        self.names = NameIndex({i: [normalize(a) for a in spelled] for i, spelled in names.items()})
        patterns: dict[str, str] = {}
        for name_id, aliases in names.items():
            for alias in (name_id, *aliases):
                patterns.setdefault(canonical(alias), _alias_pattern(alias))
        patterns.pop("", None)
        ordered = sorted(patterns.values(), key=len, reverse=True)
        body = "|".join(ordered) if ordered else "(?!)"
        # A count may be glued on either side of a GPU name: 8xh100, a100x8.
        before = r"(?:(?<![a-z0-9])|(?<=\dx))" if plural else r"(?<![a-z0-9])"
        after = r"s?(?=x\d|[^a-z0-9]|$)" if plural else r"(?![a-z0-9])"
        self._pattern = compiled(rf"{before}(?:{body}){after}")  # a thousand aliases: kept compiled

    def find(self, text: str) -> Iterator[Hit]:
        """Every alias occurrence in (normalized) text, left to right, longest at each place."""
        for match in self._pattern.finditer(text):
            name = _SYNONYM_WORDS.sub("distill", match.group())  # the text is normalised already
            name_id = self.names.get(name) or self.names.get(name.removesuffix("s"))
            if name_id is not None:
                yield Hit(name_id, match.start(), match.end())


class Vocabulary:
    """The model and GPU names the knowledge base knows, with their aliases (lower-case)."""

    def __init__(
        self,
        models: Mapping[str, Sequence[str]],
        gpus: Mapping[str, Sequence[str]],
        variants: Mapping[tuple[str, str], str] | None = None,
    ) -> None:
        self.models = AliasIndex(models)
        # (card id, form word) → the sibling card: "A100 PCIe" is the PCIe part, not the SXM one
        self.variants = dict(variants or {})
        self.gpus = AliasIndex(gpus, plural=True)
        self.model_ids = list(models)
        # Family words ("llama", "qwen", "mixtral") glued to a version let us notice a model
        # name we do not know ("qwen3-32b") and say so instead of silently reading its size.
        families = {re.split(r"[^a-z]", normalize(model_id), maxsplit=1)[0] for model_id in models}
        known = sorted((re.escape(f) for f in families if len(f) >= _MIN_FAMILY), key=lambda f: (-len(f), f))
        self.near_miss = compiled(
            rf"(?<![a-z0-9])(?:{'|'.join(known)})[-_:]?v?\d[a-z0-9._-]*" if known else "(?!)"
        )
        self.gpu_near_miss = GPU_LIKE

    def closest_model(self, name: str) -> str:
        """The known model most like ``name``, for "I don't know X; closest known: Y"."""
        return self.models.names.closest(name) or "-"

    def closest_gpu(self, name: str) -> str:
        """The known card most like ``name`` ("h300" → an H100/H200 id)."""
        return self.gpus.names.closest(name) or "-"
