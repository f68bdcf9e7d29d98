"""What a message asks, decided once, from one ordered table of patterns-as-data.

Before this module "is this a price question?" was answered in three places that split
on 7 of 11 ordinary phrases; the dialog's answerers and follow-ups each heard the text
again. Here, like Rasa's intent classifier feeding its policies, one decision is made
and written on the :class:`~gpu_advisor.reading.message.Message`; the answerers read
``msg.intent`` and ``msg.job`` and never the text.

The table (:data:`TABLE`) is read top to bottom; the first row whose test holds names
the intent. The order is the design: a restart or an order is a command in words; a
question about *the previous answer* ("为什么推荐这个", "不是13B，是70B") comes before
anything the same words could also ask; an offered price judged ("H100 25 块一卡时，
合理吗") before a bare price lookup; a stated claim ("听说…对吗") before a comparison;
a rate ("能扛多少并发") before a speed, a speed before a price ("一天能训多少 token" names
a period and 多少 but asks a speed), a price before a yes/no. A message that asks nothing
and names a job describes it (``sizing``); one that names nothing is small talk.

Measured on ``tests/corpus/phrasings.jsonl`` by ``tests/reading/test_corpus.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from gpu_advisor.reading import lexicon as lx
from gpu_advisor.reading.jobs import Job, job_of
from gpu_advisor.reading.requirements import Extraction
from gpu_advisor.reading.server_parts import describes_a_server

Intent = Literal[
    "price",
    "quote",
    "buy_vs_rent",
    "rent_vs_api",
    "fit",
    "speed",
    "capacity",
    "compare",
    "concept",
    "myth",
    "sizing",
    "sheet",
    "cheaper",
    "faster",
    "why",
    "correction",
    "start_over",
    "order",
    "small_talk",
]

INTENTS: tuple[Intent, ...] = Intent.__args__  # type: ignore[attr-defined]

_P: dict[str, re.Pattern[str]] = {
    name: lx.pattern(*getattr(lx, name))
    for name in (
        "MONEY",
        "PERIOD_HOW_MUCH",
        "SPEED",
        "CAPACITY",
        "FIT",
        "CONCEPT",
        "MYTH",
        "CLAIM_SOURCE",
        "QUOTE_VERDICT",
        "BILLING_CHOICE",
        "PRICE_NUMBER",
        "BUY",
        "API",
        "CHEAPER",
        "FASTER",
        "WHY",
        "CORRECTION",
        "ORDER",
        "SMALL_TALK",
        "SIZING",
        "CONCEPT_FIRST",
        "COMPARISON",
    )
}
_START_OVER = lx.pattern(*lx.START_OVER)
_RENT = lx.pattern(
    r"租|自建|自己部署|自己跑|本地部署|私有化|租卡|gpu",
    lx.word(r"rent(?:ing)?|self-?host(?:ing)?|gpus?|h100|a100"),
)


@dataclass(frozen=True)
class Reading:
    """The facts one decision looks at: the normalised text and what the slot readers found."""

    low: str
    ext: Extraction
    job: Job

    def has(self, name: str) -> bool:
        return _P[name].search(self.low) is not None

    @property
    def cards(self) -> int:
        return len(self.ext.gpus)

    @property
    def models(self) -> int:
        return len(self.ext.models)


def _start_over(r: Reading) -> bool:
    return _START_OVER.fullmatch(r.low.strip()) is not None


def _sheet(r: Reading) -> bool:
    return (r.cards >= 1 or "gpu" in r.ext.slots) and describes_a_server(r.low)


def _quote(r: Reading) -> bool:
    offered = r.has("PRICE_NUMBER") and r.has("QUOTE_VERDICT")
    return offered or r.has("BILLING_CHOICE") or (r.has("QUOTE_VERDICT") and "报价" in r.low)


def _rent_vs_api(r: Reading) -> bool:
    return r.has("API") and _RENT.search(r.low) is not None


def _myth(r: Reading) -> bool:
    return r.has("MYTH") and (
        r.has("CLAIM_SOURCE") or not r.has("FIT") or r.has("CONCEPT") or "一定" in r.low
    )


def _compare(r: Reading) -> bool:
    return r.has("COMPARISON") and (r.cards >= 2 or r.models >= 2)


def _sizing(r: Reading) -> bool:
    return r.job != "none" or r.has("SIZING") or bool(r.ext.slots)


Rule = tuple[Intent, Callable[[Reading], bool]]

TABLE: tuple[Rule, ...] = (
    ("start_over", _start_over),
    ("sheet", _sheet),
    ("order", lambda r: r.has("ORDER")),
    ("why", lambda r: r.has("WHY")),
    ("correction", lambda r: r.has("CORRECTION")),
    ("quote", _quote),
    ("rent_vs_api", _rent_vs_api),
    ("buy_vs_rent", lambda r: r.has("BUY")),
    ("cheaper", lambda r: r.has("CHEAPER")),
    ("myth", _myth),
    ("compare", _compare),
    ("faster", lambda r: r.has("FASTER")),
    ("concept", lambda r: r.has("CONCEPT_FIRST") and not r.has("MONEY") and not r.has("CAPACITY")),
    ("capacity", lambda r: r.has("CAPACITY")),
    ("speed", lambda r: r.has("SPEED")),
    ("price", lambda r: r.has("MONEY") or r.has("PERIOD_HOW_MUCH")),
    ("fit", lambda r: r.has("FIT")),
    ("concept", lambda r: r.has("CONCEPT")),
    ("small_talk", lambda r: r.has("SMALL_TALK")),
    ("sizing", _sizing),
)
"""The one ordered table: (intent, test). The first test that holds decides."""


def decide(low: str, ext: Extraction) -> tuple[Intent, Job]:
    """The intent and the job of the normalised message ``low`` whose slots are ``ext``."""
    job = job_of(low, named_model="model" in ext.slots or bool(ext.models), task=ext.slots.get("task"))
    reading = Reading(low=low, ext=ext, job=job)
    for intent, holds in TABLE:
        if holds(reading):
            return intent, job
    return "small_talk", job


def intent_of(low: str) -> Intent:
    """The intent of a normalised text read without its slots (no card count, no model):
    for callers that hold only text, such as ``/quote`` and the money functions."""
    return decide(low, Extraction(lang="zh", normalized=low))[0]
