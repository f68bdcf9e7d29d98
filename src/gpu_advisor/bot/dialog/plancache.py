"""Recent plans by workload, each with the texts already rendered from it.

A plan is a pure function of the workload and the catalog, and a rendered view of a
plan (the short answer, /why, /cost) is a pure function of the plan and the language.
Many conversations ask the same questions ("serve a 7B model", "LoRA on 13B"), and one
conversation asks /why and /cost of the plan it was just given, so both are kept for
the most recent workloads. A catalog reload clears everything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from gpu_advisor.engine.results import Plan

T = TypeVar("T")
View = Callable[[str, Plan], T]


@dataclass
class _Entry:
    plan: Plan
    views: dict[tuple[str, Callable[[str, Plan], Any]], Any] = field(default_factory=dict)


class PlanCache:
    """A least-recently-stored cache, safe to share between worker threads (Discord runs turns in threads)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._by_plan: dict[int, _Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> Plan | None:
        with self._lock:
            entry = self._entries.get(key)
            return entry.plan if entry else None

    def put(self, key: str, plan: Plan) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._by_plan.pop(id(old.plan), None)
            entry = _Entry(plan)
            self._entries[key] = entry
            self._by_plan[id(plan)] = entry
            while len(self._entries) > self.size:
                _, evicted = self._entries.popitem(last=False)
                self._by_plan.pop(id(evicted.plan), None)

    def view(self, plan: Plan, lang: str, render: View[T]) -> T:
        """``render(lang, plan)``, computed once per cached plan; a plan not in the cache is rendered afresh.

        Entries are found by the plan object's identity, which is unique while the entry
        holds the plan; an evicted plan drops its entry from that index at once.
        """
        with self._lock:
            entry = self._by_plan.get(id(plan))
            text = entry.views.get((lang, render)) if entry and entry.plan is plan else None
        if text is not None:
            return cast(T, text)
        text = render(lang, plan)
        if entry is not None and entry.plan is plan:
            with self._lock:
                entry.views[(lang, render)] = text
        return text

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._by_plan.clear()
