"""The engine contract's requests as calls (``bot.execution``): they run where the turns run.

``/api/estimate``, ``/api/recommend`` and ``/api/analyze`` are pure CPU work over the
active knowledge (a sheet parse or a search over every offer). Sent to the same workers
as the chat turns, they get the same deadline: a pathological input costs its caller a
polite 503, not every other request its share of the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.estimate import estimate
from engine.recommend import recommend
from engine.results import Estimate as EstimateResult
from engine.results import Plan
from engine.sheet import SheetAnalysis, analyze
from engine.workload import Workload

if TYPE_CHECKING:
    from bot.turn import Conversations


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
