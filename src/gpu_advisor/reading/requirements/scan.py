"""The state of one message while the slot readers work through it.

Readers run in a fixed order (see ``extract.py``) and each *claims* the characters it
understood: claimed text is overwritten with :data:`FILLER`, which no pattern matches,
so "Mixtral 8x7B" read as a model cannot later be read as 8 GPUs or a 7B size, and
"预算8k" read as money cannot later be read as an 8k context.

Numeric slots are checked against the bounds of ``engine.workload.Workload`` itself, so
the limits live in one place: an absurd number becomes an :class:`Issue`, never a slot.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, get_args, get_origin

from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.requirements.result import Constraints, Edit, Extraction, Issue
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.normalize import Lang

FILLER = "\x00"


@cache
def _upper_bound(name: str) -> float | None:
    """The ``le`` limit the Workload declares for a field, if any."""
    for rule in Workload.model_fields[name].metadata:
        limit = getattr(rule, "le", None)
        if limit is not None:
            return float(limit)
    return None


@cache
def _is_integer(name: str) -> bool:
    """Whether the Workload field holds an int (PositiveInt) rather than a float."""

    def base_types(annotation: Any) -> set[Any]:
        if get_origin(annotation) is Annotated:
            return base_types(get_args(annotation)[0])
        args = get_args(annotation)
        return set().union(*(base_types(arg) for arg in args)) if args else {annotation}

    return int in base_types(Workload.model_fields[name].annotation)


def plain(value: float) -> float | int:
    """An integral float as an int, so issue values render as 10000000, not 10000000.0."""
    if isinstance(value, int):  # a Chinese large number ("三百亿") is read as an int already
        return value
    return int(value) if value.is_integer() else value


_LEFT_NUMBER = lazy(r"(?<![a-z\d.])\d++(?:\.\d++)?(?![\d.a-z])")


@dataclass
class Scan:
    """One message being read: the masked text, what was found, what was wrong."""

    source: str
    lang: Lang
    text: str = ""
    slots: dict[str, Any] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    gpu_owned: bool = False
    skip: bool = False
    spans: list[tuple[int, int]] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    replace: list[str] = field(default_factory=list)
    constraints: Constraints = field(default_factory=Constraints)
    budget_per_gpu: bool = False
    implied: list[str] = field(default_factory=list)
    gpus: list[str] = field(default_factory=list)  # every card named, in order: a comparison names two
    models: list[str] = field(default_factory=list)  # every known model named, in order
    gpu_mentions: list[tuple[str, float | None]] = field(default_factory=list)  # (card, count) as written
    memory_class_gb: float | None = None  # "16G 显存的卡", "an 80GB GPU": a card named by its memory
    mig_profile: str | None = None  # "3g.40gb 切片", or "half" for "半张 A100"
    job_slots: dict[str, Any] = field(default_factory=dict)  # a non-LLM job's numbers (``job_units``)

    def __post_init__(self) -> None:
        self.text = self.source

    def matches(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Matches of ``pattern`` whose characters no earlier reader has claimed."""
        for match in pattern.finditer(self.text):
            if self.is_free(match.start(), match.end()):
                yield match

    def is_free(self, start: int, end: int) -> bool:
        return FILLER not in self.text[start:end]

    def claim(self, start: int, end: int, understood: bool = True) -> None:
        """Mask a span so later readers skip it; remember it if it produced something."""
        self.text = self.text[:start] + FILLER * (end - start) + self.text[end:]
        if understood:
            self.note(start, end)

    def note(self, start: int, end: int) -> None:
        """Remember a span as understood without masking it (keywords hold no numbers)."""
        self.spans.append((start, end))

    def report(self, issue_id: str, field_name: str | None, **values: str | float | int) -> None:
        self.issues.append(Issue(id=issue_id, field=field_name, values=values))

    def has_issue(self, issue_id: str) -> bool:
        """Whether ``issue_id`` was already reported (unknown names are said once a message)."""
        return any(issue.id == issue_id for issue in self.issues)

    def put(self, name: str, value: Any) -> None:
        """Set a slot; a second, different value for it is reported, the first one kept."""
        if name not in self.slots:
            self.slots[name] = value
        elif self.slots[name] != value:
            self.report("conflicting_values", name, **_conflict(self.slots[name], value))

    def put_number(self, name: str, value: float | None, span: tuple[int, int]) -> None:
        """Range-check a number against the Workload field, then set it or report why not."""
        self.claim(*span, understood=False)
        if value is None:
            return
        limit = _upper_bound(name)
        if value < 0:
            self.report("negative_number", name, value=plain(value))
        elif value == 0 or (_is_integer(name) and round(value) == 0):
            self.report("number_not_positive", name, value=plain(value))
        elif not math.isfinite(value) or (limit is not None and value > limit):
            issue_id = "params_out_of_range" if name == "params_b" else "number_too_large"
            self.report(issue_id, name, value=plain(value), max=plain(limit or math.inf))
        else:
            self.put(name, round(value) if _is_integer(name) else float(value))
            self.note(*span)

    def result(self) -> Extraction:
        matched = [self.source[start:end].strip() for start, end in _merged(self.spans)]
        unused = [m.group() for m in _LEFT_NUMBER.finditer(self.text)][:3]
        if unused:  # a number no reader took is said back, never dropped silently
            self.report(
                "number_unused", None, value="、".join(unused) if self.lang == "zh" else ", ".join(unused)
            )
        return Extraction(
            lang=self.lang,
            normalized=self.source,
            slots=self.slots,
            gpu_owned=self.gpu_owned,
            skip=self.skip,
            issues=self.issues,
            matched=[span for span in matched if span],
            edits=self.edits,
            replace=self.replace,
            constraints=self.constraints,
            budget_per_gpu=self.budget_per_gpu,
            implied=self.implied,
            gpus=self.gpus,
            models=self.models,
            gpu_mentions=self.gpu_mentions,
            memory_class_gb=self.memory_class_gb,
            mig_profile=self.mig_profile,
            job_slots=self.job_slots,
        )


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Understood spans in message order, overlapping ones ("lora" in "lora rank 16") joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _conflict(kept: Any, ignored: Any) -> dict[str, str | float | int]:
    """The two values of a conflict as issue values: money keeps its amount, currency and period
    (``kept_amount``, ``kept_currency``, ``kept_per`` …) so it is said as money, never as a dict."""
    values: dict[str, str | float | int] = {}
    for side, value in (("kept", kept), ("ignored", ignored)):
        if isinstance(value, dict):
            values.update({f"{side}_{k}": v for k, v in value.items() if isinstance(v, str | float | int)})
            values[side] = str(value.get("amount", ""))
        else:
            values[side] = value if isinstance(value, str | float | int) else str(value)
    return values
