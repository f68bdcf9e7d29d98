"""Every finding id the engine emits is declared, and every declared id reads in both languages.

Declared means a rule family's ``emits`` or a group of ``engine/rules/statements.py``
(``engine.rules.declared()``). Two nets catch an id emitted without a declaration: a
static scan of every ``finding(...)`` and ``Finding(id=...)`` call in the source, which
resolves the id each call can build (a literal, either side of a conditional, a module
constant, a parameter filled by literals at its call sites, an f-string matched against
the declared ids), and a run over plans and estimates of the workloads the rule scenarios
and a few shapes beside them describe, reading every finding they carry.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.rules import declared, families
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

SRC = Path(__file__).resolve().parents[2] / "src" / "gpu_advisor"
LOCALES = SRC / "locales"
LANGS = ("en", "zh-CN")
DECLARED = declared()
HELPER = SRC / "engine" / "findings.py"  # ``finding()`` itself passes its parameter on


def _calls(tree: ast.Module) -> Iterator[tuple[ast.Call, ast.expr]]:
    """Each ``finding(<id>, ...)`` / ``Finding(id=<id>)`` call with its id expression."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name == "finding" and node.args:
            yield node, node.args[0]
        elif name == "Finding":
            yield from ((node, k.value) for k in node.keywords if k.arg == "id")


def _enclosing(tree: ast.Module, call: ast.Call) -> ast.FunctionDef | None:
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and any(n is call for n in ast.walk(fn)):
            return fn
    return None


def _literals_passed(tree: ast.Module, fn: ast.FunctionDef, param: str) -> list[ast.expr]:
    """What the module's calls of ``fn`` pass as ``param`` (positionally or by name)."""
    index = [a.arg for a in fn.args.args].index(param)
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fn.name:
            out += node.args[index : index + 1] + [k.value for k in node.keywords if k.arg == param]
    return out


def _module_constant(tree: ast.Module, name: str) -> ast.expr | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
    return None


def _ids(tree: ast.Module, call: ast.Call, expr: ast.expr) -> list[str]:
    """The ids ``expr`` can be; an f-string gives the declared ids its pattern matches."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, ast.IfExp):
        return _ids(tree, call, expr.body) + _ids(tree, call, expr.orelse)
    if isinstance(expr, ast.JoinedStr):
        parts = [
            re.escape(str(v.value)) if isinstance(v, ast.Constant) else "[a-z0-9_]+" for v in expr.values
        ]
        pattern = re.compile("".join(parts))
        return sorted(i for i in DECLARED if pattern.fullmatch(i)) or [
            f"<nothing declared matches {ast.unparse(expr)}>"
        ]
    if isinstance(expr, ast.Name):
        if (value := _module_constant(tree, expr.id)) is not None:
            return _ids(tree, call, value)
        fn = _enclosing(tree, call)
        if fn is not None and expr.id in [a.arg for a in fn.args.args]:
            passed = _literals_passed(tree, fn, expr.id)
            return [i for p in passed for i in _ids(tree, call, p)] or [f"<{fn.name} is never called here>"]
    return [f"<cannot tell the id of {ast.unparse(expr)}>"]


@cache
def emitted_in_source() -> dict[str, list[str]]:
    """Every id a ``finding`` call in the source can emit -> where (file:line)."""
    out: dict[str, list[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        if path == HELPER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for call, expr in _calls(tree):
            for id_ in _ids(tree, call, expr):
                out.setdefault(id_, []).append(f"{path.relative_to(SRC)}:{call.lineno}")
    return out


def test_the_scan_finds_the_findings_of_every_kind() -> None:
    """The scan is no empty net: it sees a literal, a conditional, a parameter and an f-string."""
    found = emitted_in_source()
    assert {"model_shape", "multi_node_replica_network_short", "what_if_double_qps"} <= set(found)
    assert {"disaggregation_prefill_bound", "p99_ttft_unreachable", "assumed_seq_len"} <= set(found)


def test_every_finding_the_source_can_emit_is_declared() -> None:
    undeclared = {i: where for i, where in emitted_in_source().items() if i not in DECLARED}
    assert not undeclared


def test_every_declared_statement_is_emitted_by_the_module_that_declares_it() -> None:
    from gpu_advisor.engine.rules.statements import STATEMENTS

    found = emitted_in_source()
    for group in STATEMENTS:
        for id_ in group.ids:
            where = {w.split(":")[0] for w in found.get(id_, [])}
            assert where & set(group.modules), (id_, group.modules)


@cache
def _locale(lang: str, file: str) -> dict[str, Any]:
    data = yaml.safe_load((LOCALES / lang / f"{file}.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _sentence(lang: str, file: str, key: str) -> object:
    node: object = _locale(lang, file)
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("finding_id", sorted(DECLARED))
def test_every_declared_finding_has_a_sentence(lang: str, finding_id: str) -> None:
    file, key = DECLARED[finding_id]
    sentence = _sentence(lang, file, key)
    assert isinstance(sentence, str) and sentence.strip(), f"{lang}/{file}.yaml has no {key}"


# Shapes the rule scenarios leave out: a pasted config, a bare size, a disaggregated
# deployment, every limit, a reasoning model, always-on with a yearly price, nothing fits.
EXTRA: tuple[dict[str, Any], ...] = (
    {"task": "infer", "params_b": 13, "always_on": True},
    {"task": "infer", "model": "llama-3.1-8b", "qps": 20, "ttft_ms_p99": 500, "tpot_ms_p99": 40},
    {"task": "infer", "model": "llama-3.1-8b", "concurrency": 16, "ttft_ms_max": 300},
    {"task": "infer", "params_b": 70, "weight_dtype": "int4"},
    {"task": "train", "params_b": 13, "method": "full", "train_tokens": 2e8},
    {"task": "train", "params_b": 7, "method": "lora"},
    {"task": "both", "params_b": 13},
    {"task": "infer", "params_b": 5000},
    {"task": "train", "params_b": 5000, "method": "full"},
    {"task": "infer", "model": "llama-3.1-8b", "domestic_only": True},
    {"task": "infer", "model": "llama-3.1-8b", "exclude_segments": ["consumer", "datacenter"]},
    {"task": "infer", "model": "llama-3.1-8b", "output_tokens": 8192},
    {"task": "infer", "model": "llama-3.1-70b", "gpu": "h100-sxm", "gpu_count": 8, "prefill_gpus": 2},
    {
        "task": "infer",
        "model_config": {
            "num_hidden_layers": 32,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 14336,
            "vocab_size": 128256,
        },
    },
)


def _workloads() -> Iterator[Mapping[str, Any]]:
    for family in families():
        if family.name.startswith(("plan_", "myth")):
            yield from (sc.workload for rule in family.rules for sc in rule.scenarios if sc.workload)
    yield from EXTRA


def _from_plan(p: Plan) -> Iterator[str]:
    for found in (p.reasoning, p.pitfalls, p.what_ifs, p.assumptions):
        yield from (f.id for f in found)


def test_every_finding_in_the_plans_and_estimates_is_declared(kb: Knowledge) -> None:
    seen: dict[str, int] = {}
    for given in _workloads():
        w = Workload(**given)
        ids = [*_from_plan(recommend(w, kb))]
        if w.task == "infer" and (w.gpu or w.model):
            ids += [f.id for f in estimate(w, kb).findings]
        for id_ in ids:
            seen[id_] = seen.get(id_, 0) + 1
    assert len(seen) > 40  # the run sees most of what a plan can say, not a handful
    assert not sorted(set(seen) - set(DECLARED))
