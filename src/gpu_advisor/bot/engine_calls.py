"""The engine contract's requests as calls (``bot.execution``): they run where the turns run.

``/api/estimate``, ``/api/recommend`` and ``/api/analyze`` are pure CPU work over the
active knowledge (a sheet parse or a search over every offer). Sent to the same workers
as the chat turns, they get the same deadline: a pathological input costs its caller a
polite 503, not every other request its share of the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Estimate as EstimateResult
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.sheet import SheetAnalysis
from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.sheet import analyze

if TYPE_CHECKING:
    from gpu_advisor.bot.turn import Conversations


@dataclass(frozen=True)
class Estimate:
    workload: Workload

    def run(self, host: Conversations) -> EstimateResult:
        return estimate(self.workload, host.dialog.kb)


@dataclass(frozen=True)
class Recommend:
    workload: Workload

    def run(self, host: Conversations) -> Plan:
        return recommend(self.workload, host.dialog.kb)


@dataclass(frozen=True)
class Analyze:
    text: str

    def run(self, host: Conversations) -> SheetAnalysis:
        return analyze(self.text, host.dialog.kb)
