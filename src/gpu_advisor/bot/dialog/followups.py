"""Questions about a plan already given, answered from that plan.

After an answer people ask about it rather than describe their job again: "有没有更便宜
的" / "cheaper?", "要跑多久" / "how long will it take", "年付能省多少" / "how much
with a yearly plan", "一个月多少钱", "why not a T4?" / "为什么不用 T4". Each is one
small function that reads the current plan (recomputed from the slots, never stored)
and says what it holds; none of them changes the conversation's requirements. "换成
H20 呢" is not here: naming a card is a requirement, merged and re-planned by the core.

Which question is asked is read once, in ``reading`` (``msg.follow``: the message's
intent plus the few plan questions no intent names, ``reading.followup``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog import launch_view, render
from gpu_advisor.bot.dialog.honest import combined_line
from gpu_advisor.bot.dialog.limits import has_words
from gpu_advisor.bot.dialog.reply import Content, Reply
from gpu_advisor.bot.dialog.slots import loose
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.words import caveat, pick_words
from gpu_advisor.engine.lengths import SERVE_OUTPUT
from gpu_advisor.engine.results import Option, Plan
from gpu_advisor.engine.rules.plans import NAMED_CARD_FINDINGS
from gpu_advisor.locales.names import card_name
from gpu_advisor.reading.followup import machines_asked
from gpu_advisor.reading.message import Message
from gpu_advisor.reading.requirements import Extraction


def follow_up(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """After an answer, a question about the plan ("有没有更便宜的", "why not a T4?") gets its answer."""
    if not state.answered:
        return None
    ext = msg.ext
    intent = intent_of(msg)
    # a slot restated as held ("那推理用 vllm 吗" after a serving plan) describes nothing new
    changed = {k for k, v in ext.slots.items() if k != "gpu" and state.slots.get(k) != v}
    describes = bool(ext.edits or ext.constraints.any() or changed)
    if intent is None or (describes and intent not in ("why_not", "swap")):
        return None
    shown = state.model_copy(
        update={"lang": msg.lang} if not state.lang_locked and has_words(msg.text) else {}
    )
    if intent == "machines":  # "what about 2 machines?": the count is the message's, not a slot
        reply = _on_machines(flow, shown, machines_asked(msg.low))
    else:
        reply = answer(flow, shown, intent, ext)
    return (reply, shown) if reply is not None else None


def _on_machines(dialog: Tools, state: ConversationState, count: int | None) -> Reply | None:
    """The pick's machine ``count`` times: a service adds independent replicas (streams and rent
    scale with the machines); a training job is re-planned on that many machines' GPUs, and a
    count the catalog cannot join into one job says why (``rules.plans.named_card``)."""
    plan, _ = dialog.plan_for(state)
    if plan is None or plan.recommendation is None or count is None:
        return None
    pick = plan.recommendation
    lines = (
        serving_on(state.lang, pick, count)
        if pick.task == "infer"
        else _training_on(dialog, state, pick, count)
    )
    return dialog.reply(state, "info", Content(lead=lines))


def serving_on(lang: str, pick: Option, count: int) -> list[str]:
    """Replicas are independent: ``count`` machines hold ``count`` / machines times the streams, at the
    same speed per stream, for that many times the rent."""
    machines = max(pick.machines * (pick.machines_per_replica or 1), 1)
    per_machine = (pick.replicas or 1) * (pick.batch or 1) / machines
    monthly = pick.monthly_cost.amount / machines
    return [
        locales.t(
            lang,
            "followup.machines_serving",
            machines=count,
            gpus=pick_words(lang, pick.model_copy(update={"machines": 1})),
            streams=int(per_machine * count),
            now_streams=int(per_machine * machines),
            now_machines=machines,
            tokens_per_s=pick.decode_tokens_per_s,
            price=locales.money(lang, monthly * count, pick.monthly_cost.currency),
        )
    ]


def _training_on(dialog: Tools, state: ConversationState, pick: Option, count: int) -> list[str]:
    """The job re-planned on ``count`` of the pick's machines (their GPUs named, as if the user had)."""
    trial = state.model_copy(deep=True)
    loose(trial.slots).update({"gpu": pick.gpu, "gpu_count": pick.count * count})
    trial.gpu_owned = False
    plan, _ = dialog.plan_for(trial)
    other = plan.requested if plan is not None else None
    if other is None or other.training_hours is None:
        named = next((f for f in (plan.pitfalls if plan else []) if f.id in NAMED_CARD_FINDINGS), None)
        reason = caveat(state.lang, named) if named else ""
        return [
            locales.t(
                state.lang, "followup.machines_no", machines=count, gpu=_name(state.lang, pick), reason=reason
            )
        ]
    return [
        locales.t(
            state.lang,
            "followup.machines_training",
            option=_name(state.lang, other),
            hours=other.training_hours,
            price=_price(state.lang, other),
            pick=_name(state.lang, pick),
            pick_hours=pick.training_hours,
            pick_price=_price(state.lang, pick),
            efficiency=other.scaling_efficiency,
        )
    ]


def intent_of(msg: Message) -> str | None:
    """Which plan question the message asks (``msg.follow``), or None when it describes the job."""
    return msg.follow


def answer(dialog: Tools, state: ConversationState, intent: str, ext: Extraction) -> Reply | None:
    """The reply to a follow-up about the current plan, or None when there is no plan to ask about."""
    plan, _ = dialog.plan_for(state)
    if plan is None or plan.recommendation is None:
        return None
    if intent in ("why_not", "swap"):
        lines = why_not(dialog, state, plan.recommendation, ext.slots)
    elif intent == "why":  # "为什么推荐 T4": the numbers behind the pick, as /why shows them
        return dialog.reply(state, "info", dialog.view(state, plan, render.why))
    elif intent == "command":  # "给我启动命令": what /cmd shows
        return dialog.reply(state, "answer", dialog.view(state, plan, launch_view.commands), plan=plan)
    elif intent == "wait":  # "用户要等多久": the answer time of a service, a job's run time otherwise
        lines = wait(state.lang, plan, plan.recommendation, _output_tokens(plan, state))
    else:
        lines = HANDLERS[intent](state.lang, plan, plan.recommendation)
    return dialog.reply(state, "info", Content(lead=lines))


def cheaper(lang: str, plan: Plan, pick: Option) -> list[str]:
    """The plan's cheaper alternative with its price and trade-off, or that none fits for less."""
    alt = next((o for o in plan.alternatives if o.kind == "cheaper"), None)
    if alt is None:
        return [locales.t(lang, "followup.cheapest", pick=_name(lang, pick), price=_price(lang, pick))]
    return [
        locales.t(
            lang,
            "followup.cheaper",
            pick=_name(lang, alt),
            price=_price(lang, alt),
            saving=locales.money(lang, pick.cost.amount - alt.cost.amount, pick.cost.currency),
        )
    ]


def faster(lang: str, plan: Plan, pick: Option) -> list[str]:
    """The plan's faster alternative (its "faster" option, else the cheapest alternative that is
    clearly faster) with its speed and price, or that the pick is already the fastest."""
    quicker = [o for o in plan.alternatives if o.priced and _speed(o) > 1.1 * _speed(pick)]
    # the "faster" option may be dropped as a repeat of another alternative on the same machine
    alt = next((o for o in quicker if o.kind == "faster"), None) or min(
        quicker, key=lambda o: o.monthly_cost.amount if o.monthly_cost else o.cost.amount, default=None
    )
    if alt is None:
        return [locales.t(lang, "followup.fastest", pick=_name(lang, pick), tokens_per_s=_speed(pick))]
    return [
        locales.t(
            lang,
            "followup.faster",
            pick=_name(lang, alt),
            price=_price(lang, alt),
            tokens_per_s=_speed(alt),
            was=_speed(pick),
        )
    ]


def duration(lang: str, plan: Plan, pick: Option) -> list[str]:
    """How long the training job runs on the pick; a service has no end."""
    if pick.training_hours is None:
        return [locales.t(lang, "followup.no_end")]
    days = pick.training_hours / 24.0
    return [
        locales.t(lang, "followup.duration", hours=pick.training_hours, days=days, pick=_name(lang, pick))
    ]


def wait(lang: str, plan: Plan, pick: Option, output_tokens: int) -> list[str]:
    """How long a user waits for a whole answer: output tokens ÷ per-stream speed + the first token.

    The per-stream speed (not the total of all streams) is what one user sees; the first
    token is the plan's own, computed for the prompt asked (issue 47). A training plan
    has no users waiting: its run time is the answer.
    """
    per_stream = pick.decode_tokens_per_s
    ttft_ms = pick.ttft_ms_p50 or pick.ttft_ms  # the figure the card shows (words.fit_line)
    if pick.task != "infer" or not per_stream or ttft_ms is None:
        return duration(lang, plan, pick)
    ttft_s = ttft_ms / 1000.0
    return [
        locales.t(
            lang,
            "followup.wait",
            ttft_s=ttft_s,
            output=output_tokens,
            per_stream=per_stream,
            total_s=output_tokens / per_stream + ttft_s,
        )
    ]


def _output_tokens(plan: Plan, state: ConversationState) -> int:
    """The answer length the plan was sized for: said, a reasoning model's, or the engine's default."""
    said = state.slots.get("output_tokens")
    thinking = next(
        (f.values.get("value") for f in plan.assumptions if f.id == "assumed_reasoning_output"), None
    )
    value = said or thinking or SERVE_OUTPUT
    return int(value) if isinstance(value, (int, float, str)) else SERVE_OUTPUT


def yearly(lang: str, plan: Plan, pick: Option) -> list[str]:
    """What a year's commitment saves: 12 × (monthly − the catalog's yearly monthly price)."""
    cost = pick.monthly_cost
    if cost.yearly_monthly is None or cost.yearly_monthly >= cost.amount:
        return [locales.t(lang, "followup.no_yearly", pick=_name(lang, pick))]
    saving = 12 * (cost.amount - cost.yearly_monthly)
    return [
        locales.t(
            lang,
            "followup.yearly",
            monthly=locales.money(lang, cost.yearly_monthly, cost.currency),
            saving=locales.money(lang, saving, cost.currency),
            share=1 - cost.yearly_monthly / cost.amount,
        )
    ]


def price(lang: str, plan: Plan, pick: Option) -> list[str]:
    """The pick's price (by the month, or for the job); train-then-serve adds both halves."""
    lines = [
        locales.t(lang, "followup.price", pick=_name(lang, o), price=_price(lang, o)) for o in _priced(plan)
    ]
    combined = combined_line(lang, plan)
    return [*lines, combined] if combined else lines


def _priced(plan: Plan) -> list[Option]:
    return [o for o in (plan.recommendation, plan.serving) if o is not None]


def why_not(dialog: Tools, state: ConversationState, pick: Option, said: dict[str, Any]) -> list[str]:
    """Card X (and its count, if said) evaluated for the same job: fit, speed, price, next to the pick."""
    gpu = str(said["gpu"])
    lang, name = state.lang, dialog.gpu_names(gpu, state.lang)
    trial = state.model_copy(deep=True)
    trial.slots.pop("gpu_count", None)
    loose(trial.slots).update({k: said[k] for k in ("gpu", "gpu_count") if k in said})
    trial.gpu_owned = False
    other = _requested(dialog, trial)
    if other is None:  # not rentable here: judge it as a card the user would bring
        trial.gpu_owned = True
        other = _requested(dialog, trial)
    if other is None or other.headroom_gib < 0:
        key = "followup.why_not_too_small"
    elif other.cost.amount == 0:
        key = "followup.why_not_unlisted"
    elif other.cost.amount > pick.cost.amount:
        key = "followup.why_not_dearer"
    else:
        key = "followup.why_not_slower"
    return [
        locales.t(
            lang,
            key,
            gpu=name,
            used=other.memory_gib.get("total") if other else None,
            capacity=other.capacity_gib if other else None,
            price=_price(lang, other) if other else None,
            pick=_name(lang, pick),
            pick_price=_price(lang, pick),
            speed=_speed(other) if other else None,
            pick_speed=_speed(pick),
        )
    ]


def _requested(dialog: Tools, trial: ConversationState) -> Option | None:
    plan, _ = dialog.plan_for(trial)
    return plan.requested if plan is not None else None


HANDLERS: dict[str, Callable[[str, Plan, Option], list[str]]] = {
    "cheaper": cheaper,
    "faster": faster,
    "duration": duration,
    "yearly": yearly,
    "price": price,
}


def _speed(o: Option) -> float:
    return o.tokens_per_s or o.decode_tokens_per_s or 0.0


def _name(lang: str, o: Option) -> str:
    """The option as the card names it (one name for one card in a conversation, issue 47)."""
    return locales.t(lang, "followup.gpus", count=o.count * o.machines, gpu=card_name(lang, o.gpu_name))


def _price(lang: str, o: Option) -> str:
    return locales.t(
        lang, f"followup.per.{o.cost.per}", amount=locales.money(lang, o.cost.amount, o.cost.currency)
    )
