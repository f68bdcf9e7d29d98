"""The table in ``engine/rules/__init__.py``'s docstring is the registry as it stands.

Issue 42: it named three files that no longer existed (the myths and the sheet rules
had moved into ``engine/rules/``). Each row names a family ``families()`` returns, its
module (a file that exists and defines that family's ``RULES``), its locale file and key.
"""

from __future__ import annotations

from pathlib import Path

from gpu_advisor.engine import rules
from gpu_advisor.engine.rules import families

PACKAGE = Path(rules.__file__).resolve().parents[2]


def _rows() -> list[list[str]]:
    """The cells of the rows between the table's second and third rule lines."""
    lines = (rules.__doc__ or "").splitlines()
    bars = [i for i, line in enumerate(lines) if line.startswith("=====")]
    assert len(bars) == 3, "the docstring holds one table: rule, header, rule, rows, rule"
    return [line.split() for line in lines[bars[1] + 1 : bars[2]]]


def test_the_table_has_a_row_for_each_family_with_its_locale_file_and_key() -> None:
    rows = {r[0]: (r[2], r[3]) for r in _rows()}
    assert rows == {f.name: (f"{f.locale_file}.yaml", f"{f.key_prefix}<id>") for f in families()}


def test_every_module_the_table_names_exists_and_declares_the_family_rules() -> None:
    for name, module, *_ in _rows():
        path = PACKAGE / module
        assert path.is_file(), f"{name}: {module} does not exist"
        assert "RULES" in path.read_text(encoding="utf-8"), f"{name}: {module} declares no RULES"
