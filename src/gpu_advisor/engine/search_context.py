"""What the rules see: the request, the knowledge, the resolved model and every candidate."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.memory import TrainSetup
from gpu_advisor.engine.offer_search import Searches
from gpu_advisor.engine.specs import Knowledge, ModelArch
from gpu_advisor.engine.workload import Workload


@dataclass(slots=True)
class Context:
    workload: Workload
    kb: Knowledge
    arch: ModelArch
    task: str
    candidates: list[Candidate]
    assumed: list[Finding]
    serve: ServeSetup | None = None
    train: TrainSetup | None = None
    fixed: tuple[bool, bool] = (False, False)
    searches: Searches | None = None
