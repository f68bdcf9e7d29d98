"""The package floors hold: a package imports only from the floors below it (issue 25).

text < engine < knowledge < reading < locales < bot (the knowledge loader does the I/O
and validates into the engine's pure record types). Read from the source with ``ast``
(every ``import``/``from … import`` at any depth, ``TYPE_CHECKING`` blocks included), so
a lazy import inside a function counts as an arrow too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gpu_advisor"
FLOORS = ("text", "engine", "knowledge", "reading", "locales", "bot")


def imported_packages(path: Path) -> set[str]:
    """The ``gpu_advisor`` packages a module imports (``gpu_advisor.engine.x`` → ``engine``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "gpu_advisor" and len(parts) > 1 and parts[1] in FLOORS:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("floor", FLOORS)
def test_a_floor_imports_nothing_from_the_floors_above_it(floor: str) -> None:
    above = set(FLOORS[FLOORS.index(floor) + 1 :])
    upward = {
        f"{path.relative_to(SRC)} → {sorted(imported_packages(path) & above)}"
        for path in (SRC / floor).rglob("*.py")
        if imported_packages(path) & above
    }
    assert not upward


def test_no_dialog_step_imports_the_dialog_core() -> None:
    dialog = SRC / "bot" / "dialog"
    importers = {
        path.name
        for path in dialog.glob("*.py")
        if path.name not in ("__init__.py", "core.py") and "gpu_advisor.bot.dialog.core" in path.read_text()
    }
    assert not importers


def test_a_client_language_is_mapped_to_ours_in_one_place() -> None:
    mappers = {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if 'startswith("zh")' in (text := path.read_text(encoding="utf-8")) or 'startswith("en")' in text
    }
    assert mappers == {"text/normalize.py"}


@pytest.mark.parametrize(
    "module",
    sorted(
        f"gpu_advisor.engine.rules.{p.stem}"
        for p in (SRC / "engine" / "rules").glob("*.py")
        if p.stem != "__init__"
    ),
)
def test_every_rule_family_imports_first_in_a_fresh_interpreter(module: str) -> None:
    """No import circle hides behind the order other tests happen to import things in."""
    import subprocess
    import sys

    command = [sys.executable, "-c", f"import {module}"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
