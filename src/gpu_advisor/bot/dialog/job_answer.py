"""A non-LLM job answered in chat with the same card an LLM plan gets.

The reading says which job a message is about (``msg.job``) and puts the job's own
numbers on ``msg.job_slots`` (images a day, hours of audio, documents, frames, streams,
a codec…). Here the family's model is found in the family's knowledge
(``job_request.model_in``), the job is kept on the conversation (``state.job``) so a
later turn changes one thing of it ("换成 Flux 呢", "每天 2 万张呢", "cheaper?"), and the
engine's planner — the one ``gpu-advisor job`` and ``POST /api/job`` call — sizes it.
The reply is ``job_cards.job_card``: the pick and its price, the number that decides
the job and its unit cost, pitfalls; ``/why``, ``/alt``, ``/cmd`` and ``/cost`` are its
folds. An input the family cannot do without (a volume to size an image service, a
training set's size) is asked once, with buttons; the defaults the engine takes are
said (the plan's assumptions). A language model never stands in for a named job.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

from gpu_advisor import locales
from gpu_advisor.bot.dialog import job_cards
from gpu_advisor.bot.dialog.heard import heard_answer
from gpu_advisor.bot.dialog.job_cards import (
    alt_card,
    cmd_card,
    cost_card,
    job_card,
    metric_words,
    pick_words,
    price_words,
    why_card,
)
from gpu_advisor.bot.dialog.job_rates import rate_lines
from gpu_advisor.bot.dialog.job_request import FAMILIES, HeldJob, knows, model_name, model_named, request_of
from gpu_advisor.bot.dialog.reply import Button, Content, Reply, ReplyKind
from gpu_advisor.bot.dialog.spelling import heard, typed
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.engine.jobs.plan import JobFamily, JobOption, JobPlan
from gpu_advisor.engine.jobs.request import parse_job, plan_job
from gpu_advisor.engine.jobs.verdict import on_card
from gpu_advisor.engine.rules.diffusion_jobs import LOWER_FORMAT
from gpu_advisor.knowledge.jobs import books
from gpu_advisor.locales.names import card_name
from gpu_advisor.locales.numbers import number
from gpu_advisor.reading import job_names
from gpu_advisor.reading.job_names import bare_amount
from gpu_advisor.reading.jobs import Job
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements.job_units import read_job_units
from gpu_advisor.reading.requirements.scan import Scan

PENDING = "job."
"""``state.pending`` of a job question: ``job.<slot>`` (``job.images_per_day``)."""

ASKED: dict[JobFamily, tuple[str, tuple[float, ...]]] = {
    "image_gen": ("images_per_day", (500, 5_000, 50_000)),
    "vision_train": ("dataset_images", (10_000, 50_000, 500_000)),
}
"""The one input each family asks for when it is missing, and its buttons' values."""

_ASKS = frozenset({"cheaper", "faster", "why", "why_not", "command", "price", "duration", "yearly"})
"""Questions about the plan given (``msg.follow``) that a job's folds answer."""

VOLUME: dict[JobFamily, str] = {
    "image_gen": "images_per_day",
    "vision_train": "dataset_images",
    "speech": "audio_hours",
    "embedding": "documents",
    "video_encode": "streams",
}
"""The number a bare amount changes in a follow-up ("2 万张呢" after an image service)."""
RATE_METRIC: dict[JobFamily, str] = {
    "image_gen": "images_per_hour_per_card",
    "speech": "live_streams",
    "video_encode": "streams_per_card",
    "vision_infer": "images_per_s_per_card",
}
"""The metric a fit question's stated rate is measured against: what one card does of it."""
_LLM = frozenset({"llm_serve", "llm_train"})
_TRAINS: dict[JobFamily, JobFamily] = {"image_gen": "image_train", "vision_infer": "vision_train"}
"""A family's training twin: a bare model swap while training stays training."""


def job_answerer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A non-LLM job's card, a follow-up on the job held, or the answer to its question."""
    held = state.job
    if msg.job in FAMILIES:
        family = _family(msg.job)
        if held is not None and held.family == _TRAINS.get(family) and not msg.job_slots:
            family = held.family  # "换成 Flux 呢" after a LoRA run: the same training, another base
        lang = msg.lang if not state.lang_locked else state.lang
        same = held if held is not None and held.family == family else None
        found = model_named(family, msg.low, books())
        model = found[0] if found is not None else None
        if found is None and (unknown := job_names.unsized_in(family, msg.low)) is not None:
            model = typed(msg.text, unknown)  # a model the family cannot size: said so, never a stand-in
        gpu = _gpu(msg)
        job = (
            same.updated(model, msg.job_slots, gpu)
            if same is not None
            else HeldJob(family=family, model=model, slots=dict(msg.job_slots), gpu=gpu)
        )
        spans = [(model_name(family, found[0], books()), found[1])] if found is not None else []
        return _answer(
            flow, heard(state, msg.text, spans), msg, job, lang, ask=same is None
        )  # "SDXL" as typed
    if held is None or msg.job in _LLM:
        return None
    return _follow_up(flow, state, msg, held)


def _follow_up(flow: Tools, state: ConversationState, msg: Message, held: HeldJob) -> Answer | None:
    """A turn about the job already answered: its question's answer, a new number ("每天 2 万张呢",
    "2 万张呢"), another card ("换成 4090 呢"), or a question about the plan (cheaper, faster, why,
    the command, the cost). Anything else — a card's own price, a comparison — is not about the
    job and passes to the answerers after this one."""
    slots = _units_for(held.family, msg)
    waiting = state.pending[len(PENDING) :] if state.pending and state.pending.startswith(PENDING) else None
    slot = waiting or VOLUME.get(held.family)
    amount = bare_amount(msg.low) if not slots and slot is not None else None
    if amount is not None and slot is not None:
        slots = {slot: amount}
    gpu = _gpu(msg) if msg.follow == "swap" or msg.intent == "fit" else None  # "一张 T4 能跑吗": this job
    asks = msg.follow in _ASKS or msg.intent in ("cheaper", "faster", "why")
    if msg.follow == "price" and _gpu(msg) is not None:
        asks = False  # "一张 4090 包月多少": the card's own price (``price_lookup``)
    if not slots and gpu is None and not asks:
        return None
    job = held.updated(None, slots, gpu)
    if slots or gpu is not None:
        read_here = bool(slots)  # the numbers the reading left were read here: not said back
        return _answer(flow, state, msg, job, state.lang, ask=False, said=not read_here)
    plan = _plan(job, flow)
    if plan is None:
        return None
    if msg.follow == "command":
        return _fold(flow, state, plan, cmd_card)
    if msg.intent == "why" or msg.follow in ("why", "why_not"):
        return _fold(flow, state, plan, why_card)
    if msg.intent == "cheaper" or msg.follow == "cheaper":
        return _cheaper(flow, state, plan)
    if msg.intent == "faster" or msg.follow == "faster":
        return _fold(flow, state, plan, alt_card)
    return _fold(flow, state, plan, cost_card)


def _answer(
    flow: Tools,
    state: ConversationState,
    msg: Message,
    job: HeldJob,
    lang: str,
    *,
    ask: bool,
    said: bool = True,
) -> Answer:
    """The job's card (or its one question); ``said``: the numbers the reading left unplaced are
    said back (not when the message was a bare amount the job took, "2 万张呢")."""
    new = state.model_copy(deep=True)
    new.lang = "en" if lang == "en" else "zh"
    new.job = job
    new.turns += 1
    asked = ASKED.get(job.family)
    sizable = knows(job.family, job.model, books())  # a model it cannot size: no volume to ask
    if asked is not None and ask and asked[0] not in job.slots and sizable and _needs(job, msg):
        return _ask(flow, new, asked[0], asked[1])
    new.pending = None
    plan = _plan(job, flow)
    if plan is None:  # numbers the contract refuses (a 10-billion-image dataset): said back as read
        return heard_answer(flow, state, msg) or (flow.say(new, "error", "error.invalid_input"), state)
    new.answered = True
    unplaced = [locales.t(new.lang, "issue.number_unused", value=v) for v in msg.unplaced if said]
    verdict = _verdict(flow, new.lang, job, msg) if msg.intent == "fit" else []
    rates = _rates(flow, new.lang, job, plan)
    lead = [*verdict, _read_line(flow, new.lang, job, plan), *rates, *unplaced]  # a number not used is said
    content = job_card(new.lang, plan, _names(flow), lead, job.gpu)
    return _reply(flow, new, "answer", content, plan, _fold_buttons(new.lang)), new


def _verdict(flow: Tools, lang: str, job: HeldJob, msg: Message) -> list[str]:
    """A fit question's answer on the card it names, before the priced pick: yes or no, the
    memory the job needs and the card holds, and for a stated rate whether the card keeps up
    ("一张 3090 能跑 SD3.5 Large 吗" → "不能：… 约需 28.9 GiB，每张卡只有 23.7 GiB")."""
    if job.gpu is None or job.gpu not in flow.kb.gpus:
        return []
    said = msg.slots.get("gpu_count")
    count = said if isinstance(said, int) and 1 <= said <= 16 else 1
    try:
        found = on_card(parse_job(request_of(job, flow.kb)), flow.kb, books(), job.gpu, count)
    except ValidationError:
        return []
    name = card_name(lang, flow.kb.gpus[job.gpu].name)
    cards = locales.t(lang, "jobchat.pick", count=count, gpu=name)
    if not found.runs:
        if found.need_gib is not None and found.card_gib is not None and found.need_gib > found.card_gib:
            line = locales.t(
                lang,
                "jobchat.verdict.no_memory",
                cards=cards,
                need=_gib(lang, found.need_gib),
                limit=_gib(lang, found.card_gib),
            )
            if found.fp8_gib is not None and found.fp8_gib <= found.card_gib:  # FP8 weights do fit
                line += locales.t(lang, "jobchat.verdict.fp8_fits", need=_gib(lang, found.fp8_gib))
            return [line]
        return [locales.t(lang, "jobchat.verdict.no", cards=cards)]
    lines = []
    if found.need_gib is not None and found.card_gib is not None:
        lines.append(
            locales.t(
                lang,
                "jobchat.verdict.yes",
                cards=cards,
                need=_gib(lang, found.need_gib),
                limit=_gib(lang, found.card_gib),
            )
        )
    option = found.option
    if found.rate_stated and option is not None:
        wanted = RATE_METRIC.get(job.family)
        shown = next(
            (m for m in option.metrics if m.id == wanted), option.metrics[0] if option.metrics else None
        )
        if shown is not None and not shown.id.endswith("_per_card"):  # a fleet's total: one card's share
            shown = shown.model_copy(update={"value": shown.value / (found.machines or 1)})
        metric = metric_words(lang, shown) if shown is not None else ""
        key = "jobchat.verdict.keeps_up" if found.keeps_up else "jobchat.verdict.falls_behind"
        if job.family == "image_gen" and not found.keeps_up:
            key += "_peak"  # an image service is sized for its busiest hour, not the day's average
        lines.append(locales.t(lang, key, cards=cards, total=found.machines * count, metric=metric))
    return lines


def _rates(flow: Tools, lang: str, job: HeldJob, plan: JobPlan) -> list[str]:
    """The speeds the user stated, worked through beside the engine's on the named card (or the pick)."""
    if not any(slot in job.slots for slot in RATE_SLOTS):
        return []
    try:
        request = parse_job(request_of(job, flow.kb))
        named = job.gpu if job.gpu in flow.kb.gpus else None
        option = on_card(request, flow.kb, books(), named).option if named is not None else plan.pick
    except ValidationError:
        return []
    gpu = option.gpu if option is not None else named
    card = card_name(lang, flow.kb.gpus[gpu].name) if gpu in flow.kb.gpus else ""
    return rate_lines(lang, job, request, option, card)


RATE_SLOTS = ("s_per_image", "minutes_per_clip", "rtf", "epoch_minutes")
"""The job slots that are the user's own speed (``job_rates``)."""


def _gib(lang: str, value: float) -> str:
    return number(lang, value, "#,##0.#")


def _needs(job: HeldJob, msg: Message) -> bool:
    """Whether the family's missing input is worth a question: a training set always (there is
    no run without it); a daily volume only when a card is to be picked for a service (no card
    named, and the message asks for one rather than how fast one image is)."""
    if job.family == "vision_train":
        return True
    own_speed = "s_per_image" in job.slots  # "12 s per image, how many a day?": their speed is the answer
    return job.gpu is None and msg.intent == "sizing" and not own_speed


def _ask(flow: Tools, state: ConversationState, slot: str, values: tuple[float, ...]) -> Answer:
    state.pending = PENDING + slot
    state.answered = False
    if state.pending not in state.asked:
        state.asked.append(state.pending)
    buttons = [
        Button(label=locales.t(state.lang, f"jobchat.choice.{slot}_{i}"), payload=f"jq:{slot}:{i}")
        for i in range(len(values))
    ]
    buttons.append(Button(label=locales.t(state.lang, "jobchat.skip"), payload=f"jq:{slot}:skip"))
    job = state.job
    lead = [_read_line(flow, state.lang, job, None)] if job is not None else []
    content = Content(lead=lead, title=locales.t(state.lang, f"jobchat.ask.{slot}"))
    return flow.reply(state, "question", content, buttons), state


def press(flow: Tools, state: ConversationState, payload: str) -> Answer | None:
    """A job question's button (``jq:<slot>:<index>`` or ``jq:<slot>:skip``); None when stale."""
    parts = payload.split(":")
    job = state.job
    if len(parts) != 3 or job is None or state.pending != PENDING + parts[1]:
        return None
    asked = ASKED.get(job.family)
    if asked is None or asked[0] != parts[1]:
        return None
    new = state.model_copy(deep=True)
    new.turns += 1
    if parts[2] == "skip":
        new.skipped.append(PENDING + parts[1])
        held = job
    elif parts[2].isdigit() and int(parts[2]) < len(asked[1]):
        held = job.updated(None, {parts[1]: asked[1][int(parts[2])]}, None)
    else:
        return None
    if held.family == "vision_train" and "dataset_images" not in held.slots:
        held = held.updated(None, {"dataset_images": asked[1][1]}, None)  # skipped: the middle guess, said
    new.pending = None
    plan = _plan(held, flow)
    if plan is None:
        return flow.say(new, "error", "error.invalid_input"), state
    new.job, new.answered = held, True
    names = _names(flow)
    content = job_card(new.lang, plan, names, [_read_line(flow, new.lang, held, plan)], held.gpu)
    return _reply(flow, new, "answer", content, plan, _fold_buttons(new.lang)), new


COMMANDS: dict[str, Callable[..., Content]] = {
    "why": why_card,
    "alt": alt_card,
    "whatif": alt_card,
    "cmd": cmd_card,
    "cost": cost_card,
}
"""The slash commands that unfold a job's answer, each one of ``job_cards``' views."""


def command(flow: Tools, state: ConversationState, name: str) -> Answer | None:
    """``/why``, ``/alt``, ``/cmd``, ``/cost`` (and ``/plan``) for the job held; None without one."""
    job = state.job
    if job is None or not state.answered or (name not in COMMANDS and name not in ("plan", "order")):
        return None
    plan = _plan(job, flow)
    if plan is None:
        return None
    if name == "plan":
        names = _names(flow)
        content = job_card(state.lang, plan, names, [_read_line(flow, state.lang, job, plan)], job.gpu)
        return _reply(flow, state, "answer", content, plan, _fold_buttons(state.lang)), state
    if name == "order":
        return _order(flow, state, plan)
    return _fold(flow, state, plan, COMMANDS[name])


def _order(flow: Tools, state: ConversationState, plan: JobPlan) -> Answer:
    """/order ("那就租这个"): the pick and the operator's order link, or where to rent it."""
    pick = plan.pick
    if pick is None:
        return _fold(flow, state, plan, why_card)
    offer = next((o for o in flow.kb.catalog.offers if o.id == pick.offer_id), None)
    link = offer.order_url if offer is not None else None
    names = _names(flow)
    title = locales.t(
        state.lang,
        "jobchat.title",
        pick=pick_words(state.lang, pick, names),
        price=price_words(state.lang, pick),
    )
    content = Content(title=title, summary=[link or locales.t(state.lang, "order.none")])
    return _reply(flow, state, "card", content, plan, []), state


def _fold(flow: Tools, state: ConversationState, plan: JobPlan, view: Callable[..., Content]) -> Answer:
    return _reply(flow, state, "card", view(state.lang, plan, _names(flow)), plan, []), state


def _cheaper(flow: Tools, state: ConversationState, plan: JobPlan) -> Answer:
    """ "cheaper?": the next option that costs less a month than the pick and what it gives up
    (a lower weight format, a longer job, a slower figure), or that the pick is the cheapest —
    with what the pick itself already gives up (its lower format) when it does."""
    names = _names(flow)
    pick = plan.pick
    if pick is None:
        return _fold(flow, state, plan, why_card)
    lang = state.lang
    shown = plan
    if plan.cheaper:
        best = plan.cheaper[0]  # the next step down, not the floor
        given = gives_up(lang, pick, best)
        key = "jobchat.cheaper_gives_up" if given else "jobchat.cheaper"
        lines = [
            locales.t(
                lang,
                key,
                pick=pick_words(lang, best, names),
                price=price_words(lang, best),
                what="；".join(given) if lang == "zh" else "; ".join(given),
            )
        ]
        shown = plan.model_copy(update={"alternatives": plan.cheaper})
    else:
        lines = [locales.t(lang, "jobchat.cheapest", pick=pick_words(lang, pick, names))]
        lowered = next((f for f in plan.findings if f.id == LOWER_FORMAT), None)
        if lowered is not None:  # the cheapest already runs below the model's own format: say so
            lines.append(job_cards.said(lang, lowered))
    return _reply(flow, state, "card", alt_card(lang, shown, names, lines), plan, []), state


def gives_up(lang: str, pick: JobOption, other: JobOption) -> list[str]:
    """What ``other`` gives up against ``pick``: a lower weight format (and its quality tier),
    more hours for the stated job, a worse deciding figure (the first metric)."""
    out = []
    tiers = books().diffusion.format_quality
    if other.format and pick.format and other.format != pick.format:
        tier = tiers.get(other.format)  # type: ignore[call-overload]
        quality = locales.t(lang, f"label.quality_{tier.tier if tier else 'unknown'}")
        out.append(
            locales.t(lang, "jobchat.gives_up.format", format=other.format, was=pick.format, quality=quality)
        )
    if other.job_hours is not None and pick.job_hours is not None and other.job_hours > pick.job_hours:
        hours = (number(lang, other.job_hours, "#,##0.#"), number(lang, pick.job_hours, "#,##0.#"))
        out.append(locales.t(lang, "jobchat.gives_up.hours", hours=hours[0], was=hours[1]))
    if other.metrics and pick.metrics and other.metrics[0].value != pick.metrics[0].value:
        first = metric_words(lang, other.metrics[0])
        out.append(
            locales.t(lang, "jobchat.gives_up.metric", metric=first, was=metric_words(lang, pick.metrics[0]))
        )
    return out


def _reply(
    flow: Tools,
    state: ConversationState,
    kind: ReplyKind,
    content: Content,
    plan: JobPlan,
    buttons: list[Button],
) -> Reply:
    reply = flow.reply(state, kind, content, buttons)
    return reply.model_copy(update={"job": plan})


def _fold_buttons(lang: str) -> list[Button]:
    return [Button(label=f"/{name}", payload=f"/{name}") for name in ("why", "alt", "cmd", "cost")]


def _plan(job: HeldJob, flow: Tools) -> JobPlan | None:
    try:
        return plan_job(parse_job(request_of(job, flow.kb)), flow.kb, books())
    except ValidationError:
        return None


def _read_line(flow: Tools, lang: str, job: HeldJob, plan: JobPlan | None) -> str:
    """What was understood: the job, its model and its numbers ("图像生成：SDXL（每天 5,000 张）")."""
    name = locales.t(lang, f"heard.job.{job.family}")
    named = model_name(job.family, job.model, books()) if job.model else None
    planned = model_name(job.family, plan.model, books()) if plan is not None and plan.model else None
    model = planned or named or locales.t(lang, "jobchat.default_model")
    items = [
        locales.t(lang, f"heard.slot.{slot}", value=number(lang, v) if isinstance(v, int | float) else str(v))
        for slot, v in job.slots.items()
        if locales.has(lang, f"heard.slot.{slot}") and slot != "price_per"
    ]
    if job.gpu is not None:
        items.append(str(flow.gpu_names(job.gpu, lang)))
    separator = "，" if lang == "zh" else "; "
    if not items:
        return locales.t(lang, "jobchat.read", job=name, model=model)
    return locales.t(lang, "jobchat.read_items", job=name, model=model, items=separator.join(items))


def _names(flow: Tools) -> dict[str, str]:
    """Cards by id and MIG slices by offer; the model keeps the knowledge's name here and is
    said in the user's spelling by the dialog (``bot.dialog.spelling``)."""
    names = {gpu_id: spec.name for gpu_id, spec in flow.kb.gpus.items()}
    slices = {f"mig:{o.id}": o.mig_profile for o in flow.kb.catalog.offers if o.mig_profile}
    return {**names, **slices}


def _family(job: Job) -> JobFamily:
    return next(f for f in FAMILIES if f == job)


def _gpu(msg: Message) -> str | None:
    gpu = msg.slots.get("gpu")
    return gpu if isinstance(gpu, str) else None


def _units_for(family: JobFamily, msg: Message) -> dict[str, object]:
    """The job's numbers in a follow-up the reading did not tie to a job ("每天 2 万张呢"): read
    again as the held job's units."""
    if msg.job_slots:
        return dict(msg.job_slots)
    scan = Scan(source=msg.low, lang=msg.lang)
    read_job_units(scan, family)
    return {k: v for k, v in scan.job_slots.items() if k != "price_per"}
