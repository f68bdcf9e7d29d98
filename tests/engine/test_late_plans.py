"""A plan that misses the user's deadline says so where a program reads it (issue 47).

Llama 3 8B fully fine-tuned on 50B tokens within 24 hours: about 6·N·D = 2.4e21 FLOPs, which
the catalog's fastest layout (4 machines of 8 × H100) finishes in about 60 h. The pick is that
fastest layout, its status is ``late`` (it used to be "ok") and the ``deadline_missed`` finding
carries the hours. A what-if that offers fewer machines (8-bit AdamW on one 8-card machine)
says its hours past the deadline instead of reading as a cheaper way to the same goal. With a
deadline that a layout meets, the plan is "ok" and its training what-ifs keep to the deadline.
"""

from __future__ import annotations

import pytest

from gpu_advisor import locales
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

LATE = {"task": "train", "params_b": 8, "method": "full", "train_tokens": 50e9, "deadline_hours": 24}


@pytest.fixture(scope="module")
def late_plan(kb: Knowledge) -> Plan:
    return recommend(Workload(**LATE), kb)


def test_a_plan_that_misses_the_deadline_has_status_late(late_plan: Plan) -> None:
    pick = late_plan.recommendation
    assert pick is not None and (pick.training_hours or 0) > 24
    assert late_plan.status == "late"


def test_a_late_plan_carries_the_deadline_missed_finding_with_its_hours(late_plan: Plan) -> None:
    missed = next(f for f in late_plan.pitfalls if f.id == "deadline_missed")
    assert missed.values["deadline_hours"] == 24 and float(missed.values["hours"]) > 24


def test_a_one_machine_what_if_says_it_misses_the_deadline(late_plan: Plan) -> None:
    eight_bit = next(f for f in late_plan.what_ifs if f.id.startswith("what_if_8bit_optimizer"))
    assert eight_bit.id == "what_if_8bit_optimizer_late"
    assert eight_bit.values["gpus"] == 8 and float(eight_bit.values["hours"]) > 24  # one 8-card machine
    for lang, words in (("zh", "超出 24.0 小时的期限"), ("en", "past the 24.0 h deadline")):
        assert words in locales.render_finding(lang, eight_bit.id, eight_bit.values)


def test_a_plan_that_meets_its_deadline_is_ok_and_its_what_ifs_keep_to_it(kb: Knowledge) -> None:
    plan = recommend(Workload(**{**LATE, "train_tokens": 5e9, "deadline_hours": 72}), kb)
    pick = plan.recommendation
    assert plan.status == "ok" and pick is not None and (pick.training_hours or 0) <= 72
    assert not any(f.id.endswith("_late") for f in plan.what_ifs)
