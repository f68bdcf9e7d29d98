"""What an option is called in a reply: the card's name and count, its price, how it fits.

Ids (``a100-40g-8x``, ``rtx3090``, ``ZeRO-0``) belong to the JSON; people read the GPU's
name ("1 张 RTX 3090", "2 machines × 2× A100 40GB SXM4"), a price with its unit and
counts with the right plural ("1 replica", "2 GPUs"), chosen by Babel's CLDR rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_advisor import locales
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.results import Cost, Option
from gpu_advisor.locales.names import card_name
from gpu_advisor.locales.numbers import plural_form
from gpu_advisor.reading.dialog_words import OFFER_ID as _OFFER_ID

_OFFER_KEYS = frozenset({"offer", "largest_offer", "requested_offer", "pick_offer"})
LONG_PROMPT = 8192  # tokens: from here a speed is said with the prompt it was measured for
SLOW_TTFT_MS = 1000.0  # a first token slower than a second is always said


@dataclass(frozen=True)
class Facts:
    """What a plan was sized for, that its one-line summary must say: the prompt, the TTFT limit."""

    prompt_tokens: int | None = None
    ttft_limit_ms: float | None = None
    pretraining: bool = False


def counted(lang: str, key: str, count: float, **values: Any) -> str:
    """The template ``key.one`` / ``key.other`` that fits ``count`` in ``lang``."""
    form = f"{key}.{plural_form(lang, count)}"
    return locales.t(lang, form if locales.has(lang, form) else f"{key}.other", count=count, **values)


def pick_words(lang: str, o: Option) -> str:
    """'1 张 RTX 3090' / '2 machines × 2× A100 40GB SXM4'."""
    gpus = counted(lang, "words.gpus", o.count, gpu=card_name(lang, o.gpu_name))
    if o.machines > 1:
        return counted(lang, "words.machines", o.machines, gpus=gpus)
    return gpus


def amount_text(lang: str, cost: Cost) -> str:
    amount = locales.money(lang, cost.amount, cost.currency)
    if cost.amount_max:
        amount = f"{amount}–{locales.money(lang, cost.amount_max, cost.currency)}"
    return amount


def price_words(lang: str, cost: Cost) -> str:
    """The price with its unit, short: ¥1,750/月 · ¥3/小时 · ¥24,510 整个任务."""
    amount = amount_text(lang, cost)
    if cost.per in ("month", "hour"):
        return locales.t(lang, f"answer.per_{cost.per}", amount=amount)
    return locales.t(lang, "words.per_job", amount=amount)


def option_price(lang: str, o: Option) -> str:
    """The option's price, or that the catalog does not price it (a card the user named)."""
    return price_words(lang, o.cost) if o.priced else locales.t(lang, "words.not_in_catalog")


def cost_text(lang: str, cost: Cost) -> str:
    """The price and, for a one-off job, how it is billed: ¥24,510（整个任务，按 1 个月计费）."""
    if cost.per in ("month", "hour"):
        return price_words(lang, cost)
    billed = billing_words(lang, cost)
    return locales.t(lang, "answer.per_job", amount=amount_text(lang, cost), billed=billed)


def billing_words(lang: str, cost: Cost) -> str:
    """'1 个月' / '3 hours': the billed units of a job."""
    units = cost.billed_units or 1
    return counted(lang, f"words.unit_{cost.unit or 'month'}", units)


def zero_words(lang: str, stage: int | None) -> str:
    """ZeRO stage 0 is no sharding at all; say so instead of 'ZeRO-0'."""
    return locales.t(lang, "words.no_zero") if not stage else locales.t(lang, "words.zero", stage=stage)


def fit_line(lang: str, o: Option, facts: Facts | None = None) -> str:
    """One line on fit and speed: 显存 32/40 GiB · 每路 35 token/s · 每个副本 8 路，4 个副本合计 32 路."""
    facts = facts or Facts()
    memory = locales.t(lang, "words.memory", used=o.memory_gib.get("total", 0.0), capacity=o.capacity_gib)
    if o.task == "infer":
        return " · ".join([memory, *_serving_words(lang, o, facts)])
    method = method_words(lang, o.method, facts.pretraining)
    parts = [method, memory]
    if o.training_hours is not None:
        parts.append(locales.t(lang, "words.hours", hours=o.training_hours))
    return " · ".join(parts)


def method_words(lang: str, method: str | None, pretraining: bool = False) -> str:
    """全参微调 / LoRA / QLoRA — or 从头预训练: pretraining is never called fine-tuning."""
    return locales.t(lang, "value.pretrain") if pretraining else locales.t(lang, f"value.method.{method}")


def _serving_words(lang: str, o: Option, facts: Facts) -> list[str]:
    """Speed (with its prompt when long), streams per replica and in all, TTFT when slow or limited."""
    long = facts.prompt_tokens is not None and facts.prompt_tokens >= LONG_PROMPT
    key = "words.speed_at_prompt" if long else "words.speed"
    speed = locales.t(lang, key, tokens_per_s=o.decode_tokens_per_s, prompt=facts.prompt_tokens)
    replicas, batch = o.replicas or 1, o.batch or 1
    streams = (
        locales.t(lang, "words.streams_split", batch=batch, replicas=replicas, total=replicas * batch)
        if replicas > 1
        else counted(lang, "words.streams", batch)
    )
    band = how_sure(lang, o)
    out = [speed, *([band] if band else []), streams]
    ttft = o.ttft_ms_p50 or o.ttft_ms
    if ttft is not None and (ttft > SLOW_TTFT_MS or facts.ttft_limit_ms is not None):
        key = "words.ttft_limit" if facts.ttft_limit_ms is not None else "words.ttft"
        limit = (facts.ttft_limit_ms or 0.0) / 1000
        out.append(locales.t(lang, key, seconds=ttft / 1000, limit=limit))
    return out


def how_sure(lang: str, o: Option) -> str | None:
    """How wide a figure under load may be, said beside the figure (issue 47: it sat under the
    card, away from the speed it qualifies): an uncalibrated card, or a MoE model's fewer
    published runs (issue 29); nothing for a calibrated card."""
    if o.uncertainty_pct is None or (o.calibrated_card and not o.uncertainty_moe):
        return None
    key = "words.band_moe" if o.uncertainty_moe else "words.band"
    return locales.t(lang, key, pct=o.uncertainty_pct)


def offer_words(offer_id: str) -> str:
    """An offer id no option names ('h100-sxm-8x') as a person would say it: '8× H100-SXM'."""
    match = _OFFER_ID.fullmatch(offer_id)
    if match is None:
        return offer_id
    return f"{match['count']}× {match['name'].upper()}"


def _is_gpu_key(key: str) -> bool:
    """``gpu``, ``pick_gpu``, ``other_gpu``, ``next_gpu``, ``gpus`` (a list of cards): the values
    that carry a card's full name."""
    return key in ("gpu", "gpus") or key.endswith("_gpu")


def _said_cards(lang: str, value: Any) -> Any:
    """A card's name, or each card's name in a list, as every reply says it; anything else as is."""
    if isinstance(value, str):
        return card_name(lang, value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [card_name(lang, v) for v in value]
    return value


def finding_values(lang: str, f: Finding) -> dict[str, Any]:
    """A finding's values as the card shows them: 'RTX 3090', not 'NVIDIA GeForce RTX 3090'.

    The engine carries the catalog's full name (it is data, and the JSON keeps it); the
    sentence beside the card must name the card the way the card does.
    """
    return {k: _said_cards(lang, v) if _is_gpu_key(k) else v for k, v in f.values.items()}


def finding_text(lang: str, f: Finding, names: Mapping[str, str] | None = None) -> str:
    """A finding's sentence, with any offer id it carries replaced by the option's name."""
    values = finding_values(lang, f)
    for key in _OFFER_KEYS & values.keys():
        offer = values[key]
        if isinstance(offer, str):
            values[key] = (names or {}).get(offer) or offer_words(offer)
    return locales.render_finding(lang, f.id, values)


def caveat(lang: str, f: Finding) -> str:
    """A pitfall cut to one short line: its ``caveat.<id>`` form, else its first clause."""
    key = f"caveat.{f.id}"
    complete = all(v is not None for v in f.values.values())
    if not complete and locales.has(lang, f"{key}_none"):
        key, complete = f"{key}_none", True  # its wording for the values it lacks
    if locales.has(lang, key) and complete:
        return locales.t(lang, key, **finding_values(lang, f))
    text = finding_text(lang, f)
    for stop in ("。", "；", ". ", "; "):
        text = text.split(stop, 1)[0]
    return text if len(text) <= 90 else text[:89] + "…"
