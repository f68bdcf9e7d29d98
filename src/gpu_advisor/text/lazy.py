"""Regular expressions compiled on first use, once: the one place patterns are compiled.

Compiling the readers' ~390 module-level patterns cost 0.4–0.8 s of every start-up
(issue 41: most of ``gpu-advisor ask``'s time over a bare interpreter), though one
message reaches only a part of them. A :class:`LazyPattern` keeps the source and flags
and compiles on the first search; after that it is an attribute read and a call, as fast
as the compiled pattern itself. Module tables write ``lazy(r"...")`` where they wrote
``re.compile(r"...")``; nothing else changes.

One message still reaches ~200 of the patterns (every slot reader runs), so compiling on
first use alone saves little of ``ask``. What costs is CPython's pattern *parser and code
generator*, written in Python; the matcher (``_sre``) builds a pattern from the generated
code in microseconds. So, as the interpreter keeps a module's bytecode in ``__pycache__``,
:func:`compiled` keeps each pattern's generated code there too, keyed by the interpreter's
cache tag and ``_sre.MAGIC``; a later process builds the pattern from it without parsing.
Any doubt (another interpreter, an unreadable or unwritable cache, an unexpected entry)
falls back to ``re.compile``: the cache only ever saves time.
"""

from __future__ import annotations

import atexit
import marshal
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

try:  # CPython's matcher and compiler internals: the cache is used only where they exist
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another interpreter: plain re.compile
    _sre = None

Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_TAG = f"{sys.implementation.cache_tag}.{getattr(_sre, 'MAGIC', 0)}"
_CACHE_FILE = Path(__file__).parent / "__pycache__" / f"patterns.{_TAG}.marshal"
_cache: dict[tuple[str, int], Entry] = {}
_added: dict[tuple[str, int], Entry] = {}
_used: set[tuple[str, int]] = set()
_loaded: list[bool] = []  # one element once the kept patterns are read
MAX_KEPT = 4_000
"""Past this many kept patterns (about 15 MB), a process keeps only the ones it used: the
cache stays bounded even if some reader ever builds its pattern from varying text."""


def _load() -> dict[tuple[str, int], Entry]:
    try:
        loaded = marshal.loads(_CACHE_FILE.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _save() -> None:
    """Write the patterns this process compiled first, beside the ones already kept."""
    if not _added:
        return
    try:
        kept = {**_load(), **_added}
        if len(kept) > MAX_KEPT:
            kept = {key: kept[key] for key in _used if key in kept}
        _CACHE_FILE.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=_CACHE_FILE.parent, prefix=".patterns-")
        with os.fdopen(fd, "wb") as out:
            out.write(marshal.dumps(kept))
        os.chmod(tmp, 0o644)  # readable by every user of the install, like a .pyc
        os.replace(tmp, _CACHE_FILE)
    except OSError:  # a read-only install: compile again next time
        pass


def _generate(source: str, flags: int) -> Entry:
    """What ``re._compiler.compile`` hands ``_sre.compile``: flags, code, groups, names."""
    parsed = _parser.parse(source, flags)
    code = _compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    final = int(flags | parsed.state.flags)
    return (final, [int(op) for op in code], parsed.state.groups - 1, groupindex, tuple(indexgroup))


def compiled(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, from the generated code kept by an earlier process if any."""
    if _sre is None or flags & re.DEBUG:
        return re.compile(source, flags)
    if not _loaded:
        _loaded.append(True)
        _cache.update(_load())
        atexit.register(_save)
    key = (source, int(flags))
    _used.add(key)
    try:
        entry = _cache.get(key)
        if entry is None:
            entry = _generate(source, int(flags))
            _cache[key] = _added[key] = entry
        made: re.Pattern[str] = _sre.compile(source, *entry)
        return made
    except Exception:  # any surprise in the internals: the documented way
        _cache.pop(key, None)
        _added.pop(key, None)
        return re.compile(source, flags)


class LazyPattern:
    """A pattern compiled when first used; the ``re.Pattern`` methods the readers call."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            made = self._compiled = compiled(self._source, self._flags)
            # From now on a call goes straight to the compiled pattern's C method: these
            # instance attributes shadow the forwarding methods below.
            for name in ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"):
                setattr(self, name, getattr(made, name))
        return self._compiled

    @property
    def pattern(self) -> str:
        return self._source

    @property
    def flags(self) -> int:
        return self.compiled.flags

    @property
    def groups(self) -> int:
        return self.compiled.groups

    @property
    def groupindex(self) -> Any:
        return self.compiled.groupindex

    def search(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = 2**63 - 1) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)

    def subn(
        self, repl: str | Callable[[re.Match[str]], str], string: str, count: int = 0
    ) -> tuple[str, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def __getattr__(self, name: str) -> Any:
        """Anything else ``re.Pattern`` offers, from the compiled pattern."""
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self._source!r})"


def lazy(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, deferred to the first search.

    Typed as the ``re.Pattern`` it stands for: a :class:`LazyPattern` answers every method
    and attribute of one (the rest through ``__getattr__``), so callers keep their types.
    """
    return cast("re.Pattern[str]", LazyPattern(source, flags))


def any_of(*alternatives: str, flags: int = 0) -> re.Pattern[str]:
    """One lazy pattern matching any of ``alternatives`` (regex fragments, tried in order)."""
    return lazy("|".join(f"(?:{a})" for a in alternatives), flags)
