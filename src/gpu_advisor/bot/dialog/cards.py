"""GPU spec cards and side-by-side comparisons (/gpu, /compare).

A card shows the datasheet figures that decide a rental (memory, bandwidth, dense
TFLOPS per precision, NVLink, TDP, MIG), the catalog price, and what the card is for.
A comparison adds, when the user names a workload ("for 13B int4 inference"), whether
it fits each card, tokens/s, and cost per million generated tokens at the monthly price.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.named_cards import caveat_lines
from gpu_advisor.bot.dialog.reply import Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Tools
from gpu_advisor.bot.dialog.workload import to_workload
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.results import Estimate
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer, Precision
from gpu_advisor.engine.usable import usable_gib
from gpu_advisor.locales.names import card_name
from gpu_advisor.reading.requirements import extract, normalize

PRECISIONS: tuple[Precision, ...] = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4")
SECONDS_PER_MONTH = 720 * 3600


def find_gpu(dialog: Tools, text: str) -> GpuSpec | None:
    hits = list(dialog.vocab.gpus.find(normalize(text)))
    return dialog.kb.gpus[hits[0].id] if hits else None


def role(gpu: GpuSpec) -> str:
    if gpu.china_variant:
        return "china"
    if gpu.segment == "consumer":
        return "consumer"
    return gpu.role  # training / inference / general, from knowledge/gpus.yaml


def offers_for(kb: Knowledge, gpu: GpuSpec) -> list[Offer]:
    return [o for o in kb.catalog.offers if o.gpu == gpu.id]


def spec_card(kb: Knowledge, lang: str, gpu: GpuSpec) -> Content:
    rates = [
        locales.t(lang, "card.rate", precision=p.upper(), value=gpu.dense_tflops[p])
        for p in PRECISIONS
        if gpu.dense_tflops.get(p)
    ]
    lines = [
        locales.t(
            lang,
            "card.memory_jobs",
            memory_gb=gpu.memory_gb,
            memory_type=gpu.memory_type,
            serve_gib=usable_gib(gpu, kb.runtimes.get("vllm")),
            train_gib=usable_gib(gpu),
            bandwidth_gbs=gpu.bandwidth_gbs,
        ),
        locales.t(lang, "card.compute", rates=rates),
        locales.t(
            lang,
            "card.link",
            nvlink_gbs=gpu.nvlink_gbs,
            pcie_gen=gpu.pcie_gen,
            lanes=gpu.pcie_lanes,
            tdp_w=gpu.tdp_w,
            form=gpu.form_factor.upper(),
        ),
    ]
    if gpu.mig_profiles:
        lines.append(locales.t(lang, "card.mig", profiles=gpu.mig_profiles))
    prices = [
        locales.t(
            lang,
            "card.offer",
            offer=o.id,
            count=o.count,
            price=locales.money(lang, o.price_month or 0, o.currency),
        )
        for o in offers_for(kb, gpu)
    ]
    lines.append(
        locales.t(lang, "card.prices", offers=prices) if prices else locales.t(lang, "card.no_price")
    )
    lines.append(locales.t(lang, f"card.role.{role(gpu)}"))
    lines += caveat_lines(kb, lang, gpu.id)  # a China-market card's caveat wherever it is named
    return Content(title=locales.t(lang, "card.title", name=card_name(lang, gpu.name)), summary=lines)


def compare(dialog: Tools, state: ConversationState, arg: str) -> Content:
    """/compare A100 T4 [for 13B int4 inference]."""
    head, _, workload_text = arg.partition(" for ")
    if not workload_text:
        head, _, workload_text = arg.partition("跑")
    hits = list(dict.fromkeys(h.id for h in dialog.vocab.gpus.find(normalize(head or arg))))
    if len(hits) < 2:
        return Content(summary=[locales.t(state.lang, "compare.usage")])
    return compare_cards(dialog, state.lang, hits, _workload_slots(dialog, state, workload_text))


def compare_cards(dialog: Tools, lang: str, gpu_ids: list[str], slots: dict[str, object]) -> Content:
    """Two or three cards side by side; with a model in ``slots``, whether it fits each and how fast.

    Each card is named as the plan and the price answer name it (``locales.names.card_name``):
    "RTX 3090", "RTX 4090 48GB（魔改）", never the catalogue's "NVIDIA GeForce RTX 3090" or "(rebuilt)".
    """
    gpus = [dialog.kb.gpus[h] for h in gpu_ids[:3]]
    lines: list[str] = []
    for g in gpus:
        lines.append(
            locales.t(
                lang,
                "compare.row",
                name=card_name(lang, g.name),
                memory_gb=g.memory_gb,
                bandwidth_gbs=g.bandwidth_gbs,
                fp16=g.tflops("fp16"),
                int8=g.tflops("int8"),
                nvlink_gbs=g.nvlink_gbs,
                tdp_w=g.tdp_w,
            )
        )
    if slots:
        lines += [_fit_line(dialog, lang, g, slots) for g in gpus]
    names = [card_name(lang, g.name) for g in gpus]
    return Content(title=locales.t(lang, "compare.title", names=names), summary=lines)


def _workload_slots(dialog: Tools, state: ConversationState, text: str) -> dict[str, object]:
    if text.strip():
        slots = dict(extract(text, dialog.vocab).slots)
        slots.pop("gpu", None)
        slots.pop("gpu_count", None)
        return slots if ("model" in slots or "params_b" in slots) else {}
    has_model = "model" in state.slots or "params_b" in state.slots
    return dict(state.slots) if has_model else {}


# Serving formats tried, in order, when the question names none and the native one does not
# fit one card: a 70B on one H200 is an FP8 question, not "needs 2 cards" (as verdicts do).
_SMALLER_FORMATS = ("fp8", "int8", "awq")


def _fit_on_one(dialog: Tools, gpu: GpuSpec, slots: dict[str, object]) -> tuple[Estimate, str | None]:
    """The estimate on one ``gpu``, in the first smaller serving format that fits it when the
    native one does not and none was stated; the format (None: as stated or native)."""
    est = estimate(to_workload(slots), dialog.kb)
    if "weight_dtype" in slots or slots.get("task") != "infer" or _fits_one(est, gpu):
        return est, None
    runtime = dialog.kb.runtimes.get("vllm")
    for fmt in _SMALLER_FORMATS:
        if runtime is not None and gpu.compute_capability < runtime.min_compute_capability.get(fmt, 0.0):
            continue  # FP8 needs Ada or Hopper: an A100 serves it only weight-only, which we do not plan
        try:
            smaller = estimate(to_workload({**slots, "weight_dtype": fmt}), dialog.kb)
        except (EngineError, ValueError):
            continue
        if _fits_one(smaller, gpu):
            return smaller, fmt
    return est, None


def _fits_one(est: Estimate, gpu: GpuSpec) -> bool:
    fits = next((r for r in est.fits if r.gpu == gpu.id), None)
    return fits is not None and fits.fits and fits.count == 1


def _fit_line(dialog: Tools, lang: str, gpu: GpuSpec, slots: dict[str, object]) -> str:
    name = card_name(lang, gpu.name)
    slots = {**slots, "gpu": gpu.id, "gpu_count": 1}
    slots.setdefault("task", "infer")
    slots.setdefault("concurrency", 1)  # "does it run on this card" means one stream, unless told otherwise
    try:
        est, fmt = _fit_on_one(dialog, gpu, slots)
    except (EngineError, ValueError):
        return locales.t(lang, "compare.no_workload", name=name)
    if fmt is not None:
        name = f"{name} · {fmt.upper()}"
    fits = next((r for r in est.fits if r.gpu == gpu.id), None)
    if fits is None or not fits.fits or fits.count > 1:
        key = "compare.does_not_fit" if fits is not None and fits.fits else "compare.does_not_fit_any"
        return locales.t(
            lang,
            key,
            name=name,
            total_gib=est.memory_gib["total"],
            capacity_gib=fits.capacity_gib if fits else usable_gib(gpu, dialog.kb.runtimes.get("vllm")),
            count=fits.count if fits else None,
        )
    if est.task != "infer" or not est.decode_tokens_per_s:
        return locales.t(
            lang,
            "compare.fits",
            name=name,
            total_gib=est.memory_gib["total"],
            capacity_gib=fits.capacity_gib,
        )
    offers = [o for o in offers_for(dialog.kb, gpu) if not o.is_slice]  # a whole card runs the model
    if not offers:  # no price to quote: say so instead of printing "?"
        return locales.t(
            lang,
            "compare.speed_unpriced",
            name=name,
            tokens_per_s=est.decode_tokens_per_s,
            ttft_ms=est.ttft_ms,
        )
    cheapest = min(offers, key=lambda o: (o.price_month or 0) / o.count)
    monthly = (cheapest.price_month or 0) / cheapest.count
    per_million = monthly / (est.decode_tokens_per_s * SECONDS_PER_MONTH) * 1e6
    return locales.t(
        lang,
        "compare.speed",
        name=name,
        tokens_per_s=est.decode_tokens_per_s,
        ttft_ms=est.ttft_ms,
        monthly=monthly,
        per_million=per_million,
        currency=cheapest.currency,
    )
