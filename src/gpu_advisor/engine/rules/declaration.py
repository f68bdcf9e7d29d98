"""The declaration of one rule, and the scenarios that prove each of its branches.

Declarations validate themselves when built (as pint's ``GroupDefinition`` does in
``__post_init__``): a rule whose scenarios miss a branch, or expect an id the rule does
not emit, fails at import, before any test runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

Check = TypeVar("Check")
Side = Literal["training", "inference"]
_ID = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """An input that makes a rule take ``branch`` and emit ``expect``.

    ``workload`` is a ``Workload`` for plan rules; ``said`` is what a user types (a myth's
    claim); ``sheet`` is a pasted configuration sheet.
    """

    branch: str = "fires"
    expect: str = ""
    workload: Mapping[str, Any] = field(default_factory=dict)
    said: str = ""
    sheet: str = ""
    severity: str | None = None


@dataclass(frozen=True, kw_only=True)
class Rule(Generic[Check]):
    """One finding rule: its id, its check, the ids it emits and a scenario per branch.

    How a myth is heard in the user's words is ``reading.claim_words``. ``side`` and
    ``weight`` say which kind of box a sheet signal points to and how strongly. ``twin``
    names the same rule on the other surface. ``rank`` places a plan rule in the plan's
    list of pitfalls (lower first); the order is read from the declarations, never listed
    elsewhere.
    """

    id: str
    check: Check
    scenarios: tuple[Scenario, ...]
    emits: tuple[str, ...] = ()
    branches: tuple[str, ...] = ("fires",)
    side: Side | None = None
    weight: int = 0
    twin: str | None = None
    rank: int = 0  # a plan's pitfalls are listed by rank: the costliest mistakes first

    def __post_init__(self) -> None:
        if not _ID.fullmatch(self.id):
            raise ValueError(f"rule id {self.id!r} is not snake_case")
        if not self.emits:
            object.__setattr__(self, "emits", (self.id,))
        covered = {s.branch for s in self.scenarios}
        if missing := set(self.branches) - covered:
            raise ValueError(f"{self.id}: no scenario for branch {sorted(missing)}")
        if unknown := covered - set(self.branches):
            raise ValueError(f"{self.id}: scenarios name undeclared branches {sorted(unknown)}")
        for s in self.scenarios:
            if s.expect and s.expect not in self.emits:
                raise ValueError(f"{self.id}: a scenario expects {s.expect!r}, not an id it emits")
        if (self.side is None) != (self.weight == 0):
            raise ValueError(f"{self.id}: a signal has both a side and a weight, other rules neither")

    def expected(self, scenario: Scenario) -> str:
        """The id a scenario must produce: its own ``expect``, else the rule's id."""
        return scenario.expect or self.id


@dataclass(frozen=True)
class Family:
    """A module of rules and where their sentences live."""

    name: str
    locale_file: str
    key_prefix: str
    rules: tuple[Rule[Any], ...]
