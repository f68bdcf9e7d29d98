"""Our own plan expectations (issue 28), with a held-out part: a plan is one a rental desk would offer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

ROWS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "plans.yaml").read_text(encoding="utf-8")
)


def holds(plan: Plan, key: str, want: Any) -> bool:
    pick = plan.recommendation
    if key.startswith("pick."):
        if pick is None:
            return False
        name = key.removeprefix("pick.")
        if name == "monthly_le":
            return pick.monthly_cost.amount <= want
        if name == "count_le":
            return pick.count * pick.machines <= want
        value = getattr(pick, name)
        return value in want if isinstance(want, list) else value == want
    return getattr(plan, key) == want


def test_plans_meet_what_a_rental_desk_expects(kb: Knowledge) -> None:
    tally: dict[str, list[int]] = {"tune": [0, 0], "holdout": [0, 0]}
    misses = []
    for row in ROWS:
        plan = recommend(Workload.model_validate(row["workload"]), kb)
        for key, want in row["expect"].items():
            ok = holds(plan, key, want)
            tally[row["split"]][0] += int(ok)
            tally[row["split"]][1] += 1
            if not ok:
                misses.append((row["workload"], key, want))
    print("\nplan expectations (split: right/total)", {k: f"{r}/{t}" for k, (r, t) in tally.items()})
    for miss in misses:
        print("  miss:", miss)
    right, total = tally["holdout"]
    assert right / total >= 0.9
