"""Every module or attribute a docstring, a comment or the README names exists (issue 42).

A reference like ``engine.rules.myths.CLAIMS``, ``reading.claims`` or
``gpu_advisor.text.normalize.language_of`` sends a reader to code; when the code moves
and the sentence stays, it sends them nowhere (19 such references once named modules
that had moved from ``reading/`` to ``text/``, or out of ``engine/`` into ``engine/rules/``).
A dotted name counts as a reference when it starts with one of the package's own
top-level names; it resolves when the longest importable prefix imports and the rest
are attributes (a pydantic or dataclass field counts).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import io
import re
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "gpu_advisor"
TOP = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
REFERENCE = re.compile(rf"(?<![\w./-])((?:gpu_advisor\.)?(?:{'|'.join(TOP)})(?:\.[A-Za-z_]\w*)+)")
# Dotted words that start like our packages but name something else.
NOT_OURS = {
    "bot.add_dynamic_items": "discord.py's Bot method, in bot/discord/views.py",
    "bot.start": "discord.py's Bot.start, in the README's Discord section",
}


def _texts(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each docstring and comment of a Python file."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield (node.body[0].lineno, doc)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield (token.start[0], token.string)


def references() -> list[tuple[str, str]]:
    """(where, dotted name) for every reference in src/ and README.md."""
    found: list[tuple[str, str]] = []
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    sources = [(p, list(_texts(p))) for p in sorted(PACKAGE.rglob("*.py"))]
    sources.append((ROOT / "README.md", list(enumerate(readme, start=1))))
    for path, texts in sources:
        for line, text in texts:
            for m in REFERENCE.finditer(text):
                name = m.group(1)
                if not name.endswith(".py") and name not in NOT_OURS:  # a file name is not a module path
                    found.append((f"{path.relative_to(ROOT)}:{line}", name))
    return found


def _module(parts: list[str]) -> tuple[object, list[str]] | None:
    """The longest importable prefix of ``parts`` and the names after it."""
    for i in range(len(parts), 0, -1):
        try:
            return importlib.import_module(".".join(parts[:i])), parts[i:]
        except ModuleNotFoundError as exc:
            if exc.name is None or not ".".join(parts[:i]).startswith(exc.name):
                raise  # the module exists but imports something missing: not ours to judge here
    return None


def _has(obj: object, name: str) -> object | None:
    """``obj.name``; a pydantic or dataclass field (no class attribute) gives ``obj`` itself."""
    if hasattr(obj, name):
        found: object = getattr(obj, name)
        return found
    fields = getattr(obj, "model_fields", None)
    if isinstance(fields, dict) and name in fields:
        return obj
    if (
        isinstance(obj, type)
        and dataclasses.is_dataclass(obj)
        and name in {f.name for f in dataclasses.fields(obj)}
    ):
        return obj
    return None


@cache
def resolves(name: str) -> bool:
    parts = name.split(".")
    found = _module(parts if parts[0] == "gpu_advisor" else ["gpu_advisor", *parts])
    if found is None:
        return False
    obj, rest = found
    for attr in rest:
        nxt = _has(obj, attr)
        if nxt is None:
            return False
        obj = nxt
    return True


def test_references_are_found_in_docstrings_comments_and_the_readme() -> None:
    """The net is not empty: it sees references of each kind it is meant to check."""
    names = {name for _, name in references()}
    assert {"engine.queueing", "reading.claims"} <= names
    assert any(n.startswith("gpu_advisor.") for n in names)


def test_a_moved_module_does_not_resolve() -> None:
    assert not resolves("reading.hanzi") and not resolves("engine.myths.CLAIMS")
    assert resolves("text.hanzi.CONTROL") and resolves("engine.workload.Workload.claims")


def test_every_reference_names_code_that_exists() -> None:
    stale = [f"{where}: {name}" for where, name in references() if not resolves(name)]
    assert not stale
