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
from gpu_advisor.text.lazy import lazy

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
        "TRUTH",
        "ABOUT_ME",
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
        "QUOTE_VALUE",
        "CHOICE",
        "ABSOLUTE",
        "SPEED_COMPLAINT",
        "QUOTE_HELD",
        "OFFER",
        "BARE_AMOUNT",
        "PRICE_JUDGED",
        "CHEAPEST",
    )
}
_BILLING = {mode: lx.pattern(*words) for mode, words in lx.BILLING.items()}
_AMOUNT = lx.PRICE_NUMBER[0]
_PRICED_PERIOD = {
    period: lx.pattern(
        rf"(?:{_AMOUNT})(?:[^,，;；。]|,(?=\d)){{0,16}}?(?:{'|'.join(words)})",
        rf"(?:{'|'.join(words)})[^,，;；。]{{0,6}}?(?:{_AMOUNT})",
    )
    for period, words in lx.PERIODS.items()
}
"""A period with an amount beside it ("每小时 180 元", "¥6,000 a month") is a way of being
billed, though the period word alone ("每天用 4 小时") is only use."""
_NAMES = lx.pattern(*lx.NAMES)
_CARD = lx.CARD_NAME
_TWO_CARDS = lx.pattern(rf"(?:{_CARD})\s*+(?:{lx.JOINERS})\s*+(?:an?\s+)?(?:{_CARD})")
"""Two card names joined by "or", "vs", 还是, 跟 ("L4 or A10G"): two cards set side by side,
even where the catalog's vocabulary knows only one of them."""
_SIDE_BY_SIDE = lx.pattern(lx.COMPARISON[0], lx.word(r"vs\.?|versus|compare[sd]?|comparison|difference"))
"""The comparison words without "or"/"better", for two names the slot readers do not know
("Kolors 跟 SDXL 比", not "is it the card or my settings")."""
_ASKS_BACK = lazy(r"^(?:what|how|which|why|when|where|who|can|could|will|would|does|do|is|are|should)\b")
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

    @property
    def billings(self) -> int:
        """How many ways of being billed the message names (按量, 包月, hourly, yearly...)."""
        modes = {mode for mode, p in _BILLING.items() if p.search(self.low)}
        modes |= {period for period, p in _PRICED_PERIOD.items() if p.search(self.low)}
        return len(modes)

    @property
    def names(self) -> int:
        """How many distinct products (cards, models) the message names."""
        return len({re.sub(r"\W|rtx", "", m.group()) for m in _NAMES.finditer(self.low)})


def _start_over(r: Reading) -> bool:
    return _START_OVER.fullmatch(r.low.strip()) is not None


def _sheet(r: Reading) -> bool:
    return (r.cards >= 1 or "gpu" in r.ext.slots) and describes_a_server(r.low)


def _quote(r: Reading) -> bool:
    """A price someone holds, weighed: an offered number judged or set against use, or
    two ways of billing with a choice between them ("按天还是按小时划算", "hourly or monthly?")."""
    if r.has("BUY"):  # a purchase weighed against renting is buy_vs_rent
        return (r.has("PRICE_NUMBER") and r.has("QUOTE_VERDICT")) or r.has("BILLING_CHOICE")
    weighed = r.has("QUOTE_VERDICT") or r.has("QUOTE_VALUE")
    offered = r.has("PRICE_NUMBER") and (weighed or (r.billings >= 2 and r.has("CHOICE")))
    applied = r.has("PRICE_NUMBER") and r.billings >= 1 and r.has("MONEY") and _RATE.search(r.low) is not None
    two_ways = r.billings >= 2 and (weighed or (r.has("CHOICE") and not r.has("MONEY")))
    one_way_judged = r.billings >= 1 and r.has("QUOTE_VERDICT")
    held = r.has("QUOTE_HELD") and (r.has("PRICE_NUMBER") or weighed)
    return (
        offered
        or _offer_judged(r, weighed)
        or applied
        or two_ways
        or one_way_judged
        or held
        or r.has("BILLING_CHOICE")
        or (r.has("QUOTE_VERDICT") and "报价" in r.low)
    )


def _offer_judged(r: Reading, weighed: bool) -> bool:
    """An offer word, an amount and a judging word ("供应商开价 H100 一个月 18 万，划算吗",
    "a supplier quoted 1200 a month for a T4, is that expensive?"): a price put to the writer and
    weighed, though the amount carries no currency sign."""
    amount = r.has("PRICE_NUMBER") or r.has("BARE_AMOUNT")
    return r.has("OFFER") and amount and (weighed or r.has("PRICE_JUDGED"))


def _cheapest(r: Reading) -> bool:
    """ "你们最便宜的是什么", "what's your cheapest GPU": the catalog's cheapest offer looked up.
    With a job named ("最便宜能跑 70B 的卡") it is a pick to size, not a lookup."""
    return r.has("CHEAPEST") and r.job == "none" and r.models == 0


_RATE = lazy(r"\d[\d.]*\s*(?:元|块|美元)?\s*/\s*(?:分钟|小时|卡时|h|hr|min)")


def _rent_vs_api(r: Reading) -> bool:
    return r.has("API") and _RENT.search(r.low) is not None


def _myth(r: Reading) -> bool:
    stated = r.has("MYTH") and (
        r.has("CLAIM_SOURCE") or not r.has("FIT") or r.has("CONCEPT") or r.has("TRUTH") or "一定" in r.low
    )
    return stated or r.has("CLAIM_SOURCE") or _claim_asked(r)


def _claim_asked(r: Reading) -> bool:
    """A sweeping statement with a question mark ("GeForce cards are useless for X?")."""
    text = r.low.strip()
    return r.has("ABSOLUTE") and text.endswith(("?", "？")) and _ASKS_BACK.match(text) is None


def _compare(r: Reading) -> bool:
    named = r.names >= 2 and _SIDE_BY_SIDE.search(r.low) is not None
    joined = _TWO_CARDS.search(r.low) is not None
    return r.has("COMPARISON") and (r.cards >= 2 or r.models >= 2 or named or joined)


def _which_of_two(r: Reading) -> bool:
    """ "paraformer vs whisper, which is cheaper": a comparison, not a request for cheaper."""
    return _compare(r) and r.has("CHOICE")


def _two_cards_to_buy(r: Reading) -> bool:
    """ "3090 二手和 4070 Ti Super 选哪张": which of two cards to buy, with no renting set
    against it, is a comparison of the cards."""
    return _which_of_two(r) and _RENT.search(r.low) is None


def _sizing_asked(r: Reading) -> bool:
    """ "What GPU, and how long?": a job named and a pick asked, whatever else is asked beside."""
    return r.job != "none" and r.has("SIZING") and not r.has("COMPARISON") and not r.has("FIT")


def _sizing(r: Reading) -> bool:
    return r.job != "none" or r.has("SIZING") or bool(r.ext.slots)


Rule = tuple[Intent, Callable[[Reading], bool]]

TABLE: tuple[Rule, ...] = (
    ("start_over", _start_over),
    ("sheet", _sheet),
    ("order", lambda r: r.has("ORDER")),
    ("why", lambda r: r.has("WHY")),
    ("correction", lambda r: r.has("CORRECTION")),
    ("small_talk", lambda r: r.has("ABOUT_ME")),
    ("quote", _quote),
    ("rent_vs_api", _rent_vs_api),
    ("buy_vs_rent", lambda r: r.has("BUY") and not _two_cards_to_buy(r)),
    ("cheaper", lambda r: r.has("CHEAPER") and not _which_of_two(r)),
    ("myth", _myth),
    ("compare", _compare),
    ("faster", lambda r: r.has("FASTER")),
    ("speed", lambda r: r.has("SPEED_COMPLAINT")),
    ("price", _cheapest),
    ("concept", lambda r: r.has("CONCEPT_FIRST") and not r.has("MONEY") and not r.has("CAPACITY")),
    ("sizing", _sizing_asked),
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
            return intent, _corrected_job(reading) if intent == "correction" else job
    return "small_talk", job


def _corrected_job(r: Reading) -> Job:
    """A correction of a language model's load or length ("并发是50不是5", "上下文要32k，刚才写错了")
    names no job: those words are slots of whatever job is held, though heard alone they point
    to a language model. A model or a size named ("不是13B，是70B") does name one, and so do a
    job's own units ("每天 5 万张图", "10-second clips")."""
    if r.job not in ("llm_serve", "llm_train"):
        return r.job
    named = r.models or "model" in r.ext.slots or "params_b" in r.ext.slots or _NAMES.search(r.low)
    return r.job if named else "none"


def intent_of(low: str) -> Intent:
    """The intent of a normalised text read without its slots (no card count, no model):
    for callers that hold only text, such as ``/quote`` and the money functions."""
    return decide(low, Extraction(lang="zh", normalized=low))[0]
