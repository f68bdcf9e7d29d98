"""/cmd explains what every command it shows needs, not only the planned runtime's."""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.launch_view import commands
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload


def test_the_other_trainers_dataset_placeholders_are_explained(kb: Knowledge) -> None:
    plan = recommend(Workload(task="train", model="llama-3.1-8b", method="lora"), kb)
    assert {"ms_swift", "torchtune"} <= {s.runtime for s in plan.launch}
    summary = commands("en", plan).summary
    for need in ("dataset", "dataset_swift", "dataset_torchtune"):
        assert locales.t("en", f"launch.need.{need}") in summary


def test_each_need_is_said_once(kb: Knowledge) -> None:
    plan = recommend(Workload(task="train", model="llama-3.1-70b", method="full", gpu_count=16), kb)
    summary = commands("zh", plan).summary
    assert len(summary) == len(set(summary))
