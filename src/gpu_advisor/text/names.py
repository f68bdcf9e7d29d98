"""One resolver from a name people type to a knowledge id, for chat, the JSON API and sheets.

People write one card or model many ways: "H100 SXM", "h100-sxm", "h100sxm", "H100_SXM";
"Qwen2.5-7B", "qwen2.5 7b", Ollama's "qwen2.5:7b"; "A100 80GB", "a100-80g". A name is
reduced to its *key*: NFKC-folded (full-width ＡＢＣ１２３ become ASCII), lower-cased,
separators ("-", "_", ":", whitespace) removed and a "gb" after digits spelled "g". Two
spellings resolve to the same id exactly when their keys are equal, so every caller
that resolves through :class:`NameIndex` agrees on what a name means.

When a name resolves to nothing, :meth:`NameIndex.closest` gives the known name most
like it (difflib's Ratcliff/Obershelp ratio over keys), so a reply can say "I don't
know X; closest known: Y" instead of dropping the name.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from gpu_advisor.text.lazy import lazy

_SEPARATORS = lazy(r"[-_:\s]++")
_GIGABYTES = lazy(r"(?<=\d)gb")
_LONGEST_NAME = 64


def key(name: str) -> str:
    """The lookup key of a name: width-folded, lower-case, no separators, "80gb" → "80g"."""
    folded = unicodedata.normalize("NFKC", name).lower()
    return _GIGABYTES.sub("g", _SEPARATORS.sub("", folded))


class NameIndex:
    """Every id and alias of one kind of thing (GPUs or models), keyed for lookup."""

    def __init__(self, names: Mapping[str, Sequence[str]]) -> None:
        self._ids: dict[str, str] = {}
        for name_id, aliases in names.items():
            for alias in (name_id, *aliases):
                alias_key = key(alias)
                if alias_key and alias_key not in self._ids:
                    self._ids[alias_key] = name_id

    def get(self, name: str) -> str | None:
        """The id ``name`` stands for, or None when no id or alias has its key."""
        return self._ids.get(key(name))

    def closest(self, name: str) -> str | None:
        """The id whose name or alias is most like ``name`` (None only for an empty index)."""
        # Capped: difflib is quadratic in the lengths it compares, and no name is longer.
        found = difflib.get_close_matches(key(name)[:_LONGEST_NAME], list(self._ids), n=1, cutoff=0.0)
        return self._ids[found[0]] if found else None


class Named(Protocol):
    """A knowledge record that can be found by name: GpuSpec, ModelArch."""

    @property
    def id(self) -> str: ...

    @property
    def aliases(self) -> list[str]: ...


T = TypeVar("T", bound=Named)


def index_of(records: Iterable[Named]) -> NameIndex:
    """The name index over knowledge records (their ids and aliases)."""
    return NameIndex({record.id: list(record.aliases) for record in records})


def resolve(name: str, records: Mapping[str, T]) -> T | None:
    """The record ``name`` stands for: by exact id first, then by key over ids and aliases."""
    exact = records.get(name.strip().lower())
    if exact is not None:
        return exact
    found = index_of(records.values()).get(name)
    return None if found is None else records[found]
