"""A rule id is written in its declaration (and its check), its locale entries and its tests —
nowhere else in the code (issue 25: the NVLink id used to be listed by hand in three more files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_advisor.engine.rules import families
from gpu_advisor.engine.rules.myth_claims import CLAIMS

SRC = Path(__file__).resolve().parents[2] / "src" / "gpu_advisor"
CODE = {
    path: path.read_text(encoding="utf-8")
    for path in SRC.rglob("*.py")
    if "engine/rules" not in path.as_posix() and "locales" not in path.parts
}
IDS = sorted({emitted for family in families() for rule in family.rules for emitted in rule.emits})
# A claim a request may rest on is named by its myth's id without ``myth_`` (engine.rules.myth_claims);
# one of them equals a rule id, and the reader that hears the claim keys its words by that name.
CLAIM_READER = "reading/claim_words.py"


@pytest.mark.parametrize("rule_id", IDS)
def test_a_rule_id_is_written_only_where_the_rule_is_declared(rule_id: str) -> None:
    quoted = (f'"{rule_id}"', f"'{rule_id}'")
    elsewhere = [str(p.relative_to(SRC)) for p, text in CODE.items() if any(q in text for q in quoted)]
    elsewhere = [path for path in elsewhere if not (rule_id in CLAIMS and path == CLAIM_READER)]
    assert not elsewhere


def test_a_plans_pitfalls_follow_the_ranks_their_declarations_give() -> None:
    from gpu_advisor.engine.pitfalls import RULES

    assert [r.rank for r in RULES] == sorted(r.rank for r in RULES) and RULES[
        0
    ].id == "own_hardware_is_enough"
