"""Yes/no questions about named hardware get a verdict first, not a rental plan.

"一张 4090D 能训练 7B 吗", "can one A100 serve Llama 3 70B?", "8 卡 H100 一天能训 10T token 吗":
the user names the cards (and a count) and a model or a token count, and asks whether
it works. The answer is ``engine.verdict`` for exactly that hardware — per training
method (full / LoRA / QLoRA) or per weight format for serving — with the memory it
needs against what the card holds and the speed of the fastest way that fits, then an
offer to size a rental (``/plan``, the slots are kept). Whether a verdict is asked is the
reading's decision (``Message.asked``: a fit, speed or capacity question, as intent or
beside it), with a card and a model or token count the reader found; this module reads
no text.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog import prices
from gpu_advisor.bot.dialog.issues import issue_lines
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button, Content
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.words import finding_text
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.card_classes import (
    compute_slices,
    half_profile,
    memory_class_card,
    slice_card,
    slice_parent,
    with_card,
)
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.dtypes import QUALITY_RANK
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.price_lookup import lookup
from gpu_advisor.engine.queueing import UTILISATION_TARGET
from gpu_advisor.engine.results import Estimate
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.verdict import HardwareVerdict, MethodVerdict, verdict
from gpu_advisor.engine.workload import Workload
from gpu_advisor.locales.names import card_name
from gpu_advisor.reading.intent import Intent
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements import Extraction

_ANSWERED: frozenset[Intent] = frozenset({"fit", "speed", "capacity"})
"""A verdict answers whether the named hardware copes, how fast, or how much load it carries."""
SAID_BACK = frozenset({"train_tokens_from_samples", "train_tokens_epochs", "approximated"})
DEFAULT_MODEL = "llama-2-7b"  # the size a "tokens a day" question usually means (engine.rules.myths too)


def answer(dialog: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The verdict for a yes/no hardware question, or None when the message is not one."""
    if not msg.asked & _ANSWERED:  # every question the reading heard (``Message.asked``)
        return None
    if msg.claims and "claim_asked" in msg.heard and msg.intent != "fit":  # a claim asked: the myth answers
        return None
    ext = msg.ext
    card = card_for(dialog.kb, ext)
    if card is None:
        return None
    kb, gpu, judged_as = card
    workload = _workload(ext, "train" in msg.heard, gpu, speed="speed" in msg.asked)
    if workload is None:
        return None
    try:
        result = verdict(workload, kb)
    except (EngineError, ValueError):
        return None  # an unknown model or card: the ordinary flow says what was not understood
    result = asked_first(result, ext.slots.get("method" if workload.task == "train" else "weight_dtype"))
    new = remember(state, msg)
    new.slots["task"] = workload.task
    lang = new.lang
    lines = _lines(lang, result, kb, "model" not in ext.slots and "params_b" not in ext.slots)
    lines[-1:-1] = _takes(lang, result, workload) + _fix_lines(lang, result, workload, kb)
    lines[-1:-1] = [finding_text(lang, f) for f in result.caveats]  # as a plan on the card says them
    if "price" in msg.asked:  # the job's time priced, else a month of the hardware asked about
        timed = _timed(result, workload)
        hours = timed[1] if timed is not None else HOURS_PER_MONTH
        lines[-1:-1] = prices.job_lines(dialog, lang, result.gpu, result.count, hours)
    said = [i for i in ext.issues if i.id in SAID_BACK]  # how an amount was read ("5 万条" → tokens)
    lines[-1:-1] = issue_lines(dialog, lang, said)
    if "capacity" in msg.asked and workload.task == "infer":
        lines[-1:-1] = _capacity_lines(lang, result, workload, kb)
    if judged_as is not None:
        lines.insert(0, locales.t(lang, judged_as[0], **judged_as[1]))
    content = Content(title=_title(lang, result, kb), summary=lines)
    button = Button(label=locales.t(new.lang, "verdict.button"), payload="/plan")
    return dialog.reply(new, "answer", content, [button]), new


def asked_first(v: HardwareVerdict, asked: object) -> HardwareVerdict:
    """The verdict with the way the user asked about first ("QLoRA 微调 … 行不行": QLoRA's
    yes leads the title and the lines), the other ways after it in the engine's order."""
    first = [r for r in v.rows if r.method == asked]
    if not first or v.rows[0].method == asked:
        return v
    return v.model_copy(update={"rows": [*first, *(r for r in v.rows if r.method != asked)]})


def card_for(
    kb: Knowledge, ext: Extraction
) -> tuple[Knowledge, str, tuple[str, dict[str, Any]] | None] | None:
    """The card a question names — by name, by memory class or as a MIG slice — and how it was read.

    Returns the knowledge to judge with (a slice is added to a copy), the card id, and the
    sentence that says which card stands for a memory class or a slice; None with no card.
    """
    named = ext.slots.get("gpu")
    if ext.mig_profile is not None:
        return _slice(kb, ext.mig_profile, named if isinstance(named, str) else None)
    if isinstance(named, str):
        return kb, named, None
    if ext.memory_class_gb is not None:
        card = memory_class_card(kb, ext.memory_class_gb)
        if card is None:
            return None
        return kb, card.id, ("verdict.memory_class", {"gb": ext.memory_class_gb, "gpu": card.name})
    return None


def _slice(
    kb: Knowledge, profile: str, named: str | None
) -> tuple[Knowledge, str, tuple[str, dict[str, Any]]] | None:
    if profile == "half":
        parent = kb.gpus.get(named or "")
        profile = (half_profile(parent) if parent is not None else None) or ""
    else:
        parent = slice_parent(kb, profile, named)
    if parent is None or not profile:
        return None
    card = slice_card(parent, profile)
    said = {
        "profile": profile,
        "gpu": parent.name,
        "gb": card.memory_gb,
        "share": compute_slices(profile),
    }
    return with_card(kb, card), card.id, ("verdict.slice", said)


def _workload(ext: Extraction, train_word: bool, gpu: str, speed: bool = False) -> Workload | None:
    """The workload the question is about: its card, its model (or a 7B for a token count or
    a training-speed question), its task."""
    slots = ext.slots
    has_model = any(k in slots for k in ("model", "params_b", "hf_config"))
    trains = "train_tokens" in slots or train_word
    if not (has_model or "train_tokens" in slots or (speed and trains)):
        return None
    fields = {k: v for k, v in slots.items() if k in Workload.model_fields}
    fields["gpu"] = gpu
    if not has_model:
        fields["model"] = DEFAULT_MODEL
    fields["task"] = "train" if trains else "infer"
    try:
        return Workload.model_validate(fields)
    except ValueError:
        return None


def _title(lang: str, v: HardwareVerdict, kb: Knowledge) -> str:
    """ "1 张 RTX 4090D 训 7B：全参微调 不能 · LoRA 能 · QLoRA 能" — the verdict, one line."""
    if v.on_time is not None:
        return _tokens_title(lang, v, kb)
    items = " · ".join(
        locales.t(lang, "verdict.item", method=_method(lang, r.method), answer=_yes(lang, r.fits))
        for r in v.rows
    )
    key = "verdict.title_train" if v.task == "train" else "verdict.title_infer"
    return locales.t(lang, key, count=v.count, gpu=_card(lang, v, kb), model=v.model, items=items)


def _tokens_title(lang: str, v: HardwareVerdict, kb: Knowledge) -> str:
    """ "不能：8 张 H100 一天约训 47亿 token（不是 10万亿）" — the tokens-a-day question."""
    best = v.fastest
    return locales.t(
        lang,
        "verdict.tokens_title",
        answer=_yes(lang, bool(v.on_time)),
        count=v.count,
        gpu=_card(lang, v, kb),
        hours=v.hours_available,
        done=v.tokens_in_time,
        asked=v.train_tokens,
        mfu=best.mfu if best else None,
        model=v.model,
    )


def _card(lang: str, v: HardwareVerdict, kb: Knowledge) -> str:
    """The card as every other reply names it: 'RTX 4090 48GB（魔改）', not its catalogue name."""
    return card_name(lang, kb.gpus[v.gpu].name)


def _lines(lang: str, v: HardwareVerdict, kb: Knowledge, assumed: bool) -> list[str]:
    gpu = _card(lang, v, kb)
    lines = [_row_line(lang, r, gpu) for r in v.rows]
    best = v.fastest
    if best is None:
        lines.append(locales.t(lang, "verdict.none", count=v.count, gpu=gpu, model=v.model))
    elif best.tokens_per_day:
        lines.append(
            locales.t(lang, "verdict.fastest", method=_method(lang, best.method), per_day=best.tokens_per_day)
        )
    if assumed:
        lines.append(locales.t(lang, "verdict.assumed_model", model=v.model))
    lines.append(locales.t(lang, "verdict.offer"))
    return lines


def _timed(v: HardwareVerdict, w: Workload) -> tuple[MethodVerdict, float] | None:
    """The method a job's time is quoted for (the one asked when it fits, else the fastest)
    and the hours the stated tokens take at its rate; None without tokens or a rate."""
    row = next((r for r in v.rows if r.method == w.method and r.fits), None) or v.fastest
    if not v.train_tokens or row is None or not row.tokens_per_day:
        return None
    return row, v.train_tokens / row.tokens_per_day * 24.0


def _takes(lang: str, v: HardwareVerdict, w: Workload) -> list[str]:
    """ "要多久": the stated tokens at the asked method's rate (the fastest when none was asked)."""
    timed = _timed(v, w)
    if timed is None or v.hours_available:
        return []
    row, hours = timed
    method = _method(lang, row.method)
    return [
        locales.t(lang, "verdict.takes", tokens=v.train_tokens, method=method, hours=hours, days=hours / 24.0)
    ]


def _fix_lines(lang: str, v: HardwareVerdict, w: Workload, kb: Knowledge) -> list[str]:
    """A "no" comes with the smallest change that makes it a yes; a tight "yes" says what eats it.

    The way the user named (全参, FP8) is the one the count is found for, even when another
    way already fits; serving counts are tensor-parallel degrees, which divide the heads."""
    best = v.fastest
    wanted = w.method if v.task == "train" else w.weight_dtype
    asked = next((r for r in v.rows if r.method == wanted), None) if wanted else None
    if best is not None and (asked is None or asked.fits):
        left = best.capacity_gib - best.total_gib
        if v.task == "infer" and left < 0.1 * best.capacity_gib:
            return [locales.t(lang, "verdict.tight", left_gib=left)]
        return []
    lines: list[str] = _training_knobs(lang, v, w, kb, wanted) if v.task == "train" else []
    if v.task == "infer" and v.changes:  # the engine's changes on the same cards, cheapest first
        lines += [locales.render_finding(lang, c.id, c.values) for c in v.changes]
    elif v.task == "infer" and (shorter := _shorter_context(lang, v, w, kb)) is not None:
        lines.append(shorter)
    if v.task == "infer" and w.weight_dtype not in (None, "awq", "int4", "gptq", "q4_k_m"):
        four_bit = _try(w.model_copy(update={"weight_dtype": "awq"}), kb)
        if four_bit is not None and (small := four_bit.fastest) is not None:
            lines.append(
                locales.t(lang, "verdict.fix_format", used=small.total_gib, capacity=small.capacity_gib)
            )
    for count in _counts(v, w, kb):
        more = _try(w.model_copy(update={"gpu_count": count, "gpus": None}), kb)
        kept = _kept_row(more, wanted) if more is not None else None
        if more is not None and kept is not None:
            return [*lines, _more_cards(lang, more, kept, kb)]
    return lines


SHORTER_CONTEXTS = (2048,)  # vLLM --max-model-len people cut to before buying more cards
FULLER_MEMORY = 0.95  # --gpu-memory-utilization on a card that runs nothing else


def _shorter_context(lang: str, v: HardwareVerdict, w: Workload, kb: Knowledge) -> str | None:
    """A serving "no" short by little: the same card holds it with a shorter window, or with
    vLLM allowed 95 % of the card instead of its default 90 % (a card serving nothing else)."""
    close = [r for r in v.rows if r.shortfall_gib <= 0.1 * r.capacity_gib]
    if not close:
        return None
    if w.context_len is None:
        for context in SHORTER_CONTEXTS:
            shorter = _try(w.model_copy(update={"context_len": context}), kb)
            row = next((r for r in shorter.rows if r.fits), None) if shorter is not None else None
            if row is not None:
                return _fits_with(lang, "verdict.fix_context", row, row.capacity_gib, context=context)
    runtime = kb.runtimes.get("vllm")
    share = runtime.memory_utilization if runtime is not None else 0.9
    row = min(close, key=lambda r: r.shortfall_gib)
    fuller = row.capacity_gib * FULLER_MEMORY / share
    if row.total_gib <= fuller:
        return _fits_with(lang, "verdict.fix_memory_share", row, fuller, share=FULLER_MEMORY)
    return None


def _fits_with(lang: str, key: str, row: MethodVerdict, capacity: float, **change: float) -> str:
    """The sentence for a small change that makes ``row`` fit in ``capacity`` GiB."""
    return locales.t(lang, key, method=row.method.upper(), used=row.total_gib, capacity=capacity, **change)


def _training_knobs(
    lang: str, v: HardwareVerdict, w: Workload, kb: Knowledge, wanted: str | None
) -> list[str]:
    """Changes on the same cards before more cards: a fused cross-entropy (the full logits
    buffer is often what overflows at long sequences and large vocabularies), then batch 1
    with gradient accumulation. Each is said only when it makes the way asked fit."""
    method = wanted or "qlora"
    for key, change in (
        ("verdict.fix_fused_ce", {"fused_ce": True}),
        ("verdict.fix_batch", {"batch_size": 1}),
    ):
        if all(getattr(w, k) == val for k, val in change.items()):
            continue
        tried = _try(w.model_copy(update=change), kb)
        row = next((r for r in tried.rows if r.method == method and r.fits), None) if tried else None
        if row is not None:
            said = {"method": _method(lang, method), "used": row.total_gib, "capacity": row.capacity_gib}
            return [locales.t(lang, key, **said)]
    return []


def _counts(v: HardwareVerdict, w: Workload, kb: Knowledge) -> list[int]:
    """Card counts to try beyond the named one: any up to a machine for training (data
    parallel / ZeRO), then whole 8-card machines; for serving the tensor-parallel degrees
    that divide the heads, then two 8-card machines."""
    if v.task == "train":
        return [*range(v.count + 1, 9), 16, 32, 64]
    try:
        heads = resolve(w, kb.models).arch.num_heads
    except (EngineError, ValueError):
        heads = 64
    return [c for c in (2, 4, 8) if c > v.count and heads % c == 0] + [16]


def _kept_row(v: HardwareVerdict, wanted: str | None) -> MethodVerdict | None:
    """The fitting row to report: the way the user named, else the best quality that fits
    (FP8 before AWQ for a model shipped in FP8), else none."""
    fitting = [r for r in v.rows if r.fits]
    if wanted:
        return next((r for r in fitting if r.method == wanted), None)
    return min(fitting, key=lambda r: QUALITY_RANK.get(r.method, 9), default=None)


def _capacity_lines(lang: str, v: HardwareVerdict, w: Workload, kb: Knowledge) -> list[str]:
    """What the named cards sustain, in the fitting format that serves the most
    (``estimate``'s verdict): requests/s at saturation, the QPS to plan at (the
    utilisation target), output tokens/s. The fastest single stream is not always the
    format that serves the most: 4-bit kernels fall behind once the batch is large."""
    best: tuple[float, str, Estimate] | None = None
    for row in v.rows:
        if not row.fits:
            continue
        try:
            est = estimate(w.model_copy(update={"weight_dtype": row.method, "gpu_count": v.count}), kb)
        except (EngineError, ValueError):
            continue
        rps = est.requested.max_requests_per_s if est.requested else None
        if rps and (best is None or rps > best[0]):
            best = (rps, row.method, est)
    if best is None:
        return []
    rps, method, est = best
    prompt, output = (float(est.settings.get(k) or 0) for k in ("prompt_tokens", "output_tokens"))
    said = {
        "method": _method(lang, method),
        "max_rps": rps,
        "plan_rps": rps * UTILISATION_TARGET,
        "tokens": rps * output,
        "util": UTILISATION_TARGET,
        "prompt": prompt,
        "output": output,
    }
    return [locales.t(lang, "verdict.capacity", **said)]


def _try(w: Workload, kb: Knowledge) -> HardwareVerdict | None:
    try:
        return verdict(w, kb)
    except (EngineError, ValueError):
        return None


def _more_cards(lang: str, v: HardwareVerdict, row: MethodVerdict, kb: Knowledge) -> str:
    """ "加到 2 张 … 就能（AWQ，… GiB/卡）；价目表 ¥…/月" — the count that fits, and its rent."""
    price = lookup(kb, v.gpu, v.count, HOURS_PER_MONTH)  # a slice or an unlisted card: not in the catalog
    rent = (
        locales.t(lang, "verdict.fix_rent", price=locales.money(lang, price.total, price.currency or "CNY"))
        if price.in_catalog and price.total is not None
        else ""
    )
    method = _method(lang, row.method)
    return locales.t(
        lang,
        "verdict.fix_cards",
        count=v.count,
        gpu=_card(lang, v, kb),
        method=method,
        used=row.total_gib,
        rent=rent,
    )


def _row_line(lang: str, r: MethodVerdict, gpu: str) -> str:
    values = r.model_dump() | {"method": _method(lang, r.method), "gpu": gpu}
    if not r.fits:
        return locales.t(lang, "verdict.row_no", **values)
    return locales.t(lang, "verdict.row_train" if r.tokens_per_day else "verdict.row_infer", **values)


def _method(lang: str, method: str) -> str:
    key = f"label.{method}"
    return locales.t(lang, key) if locales.has(lang, key) else method.upper()


def _yes(lang: str, yes: bool) -> str:
    return locales.t(lang, "verdict.yes" if yes else "verdict.no")
