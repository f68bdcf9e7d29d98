"""What the rules see: the request, the knowledge, the resolved model and every candidate."""

from __future__ import annotations

from dataclasses import dataclass

from engine.candidates import Candidate
from engine.defaults import ServeSetup
from engine.findings import Finding
from engine.memory import TrainSetup
from engine.offer_search import Searches
from engine.specs import Knowledge, ModelArch
from engine.workload import Workload


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
