"""The engine's imports run one way: no circle, and the Workload, its input, at the bottom.

Issue 42: two imports deferred into functions tied 17 engine files into one circle, so
``Workload`` (which checked claims against the myth rules, which read plans) stood near
the top of the engine. The graph below is read from the source with ``ast``; an import
inside a function counts like one at the top of the module (it ties the same files
together, only later), one under ``if TYPE_CHECKING:`` does not (it never runs).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from gpu_advisor.engine.rules import myths
from gpu_advisor.engine.rules.myth_claims import CLAIMS

SRC = Path(__file__).resolve().parents[2] / "src"
ENGINE = SRC / "gpu_advisor" / "engine"


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in ENGINE.rglob("*.py")}


def _type_only(tree: ast.Module) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:``."""
    return {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }


def _targets(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement loads: ``from pkg import mod`` loads ``pkg.mod``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


@cache
def imports() -> dict[str, frozenset[str]]:
    """Engine module -> the engine modules it imports, at any depth of its code."""
    out: dict[str, frozenset[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_only(tree)
        found = {
            target
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skip
            for target in _targets(node)
            if target in MODULES and target != name
        }
        out[name] = frozenset(found)
    return out


def reach(start: str) -> set[str]:
    """Every engine module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in imports()[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_the_graph_sees_imports_inside_functions() -> None:
    """The rule families are imported on demand, inside ``families()``: the graph still sees them."""
    assert "gpu_advisor.engine.rules.myths" in imports()["gpu_advisor.engine.rules"]


def test_no_engine_module_reaches_itself_through_its_imports() -> None:
    circles = sorted(m for m in MODULES if m in reach(m))
    assert not circles


def test_the_workload_stands_on_the_knowledge_models_and_nothing_above_them() -> None:
    """The engine's input reads units, the knowledge models and the claim names: nothing that plans."""
    specs = "gpu_advisor.engine.specs"
    extra = {"gpu_advisor.engine.rules.myth_claims", "gpu_advisor.engine.units", specs}
    assert reach("gpu_advisor.engine.workload") <= reach(specs) | extra


def test_the_claims_a_workload_accepts_are_the_myths_declared() -> None:
    assert frozenset(myths.claim_of(rule) for rule in myths.RULES) == CLAIMS
