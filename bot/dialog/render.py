"""Plans and findings as text in the user's language.

The short answer is built for a phone: the pick and its cost first, three to five
lines of reasoning with the numbers, the pitfalls that apply, two what-ifs, then the
assumptions. ``why`` is the long form with every step. Each view returns the reply's
parts (``bot.dialog.reply.Content``): the title, the short answer, the detail sections.
"""

from __future__ import annotations

from collections.abc import Iterable

import locales
from bot.dialog.reply import Content, Section
from engine.findings import Finding
from engine.results import Cost, Option, Plan

SHORT_STEPS = {
    "infer": ("serving_memory", "decode_speed", "replicas", "cost_compare"),
    "train": ("model_states", "training_fit", "training_time", "scaling", "cost_compare"),
}
SEVERITY_ORDER = {"high": 0, "warn": 1, "info": 2}
MAX_PITFALLS = 3
MAX_WHATIFS = 2


def finding_text(lang: str, f: Finding) -> str:
    return locales.render_finding(lang, f.id, f.values)


def cost_text(lang: str, cost: Cost) -> str:
    """¥900/月 · ¥80,000–120,000/月 · ¥24,510 (whole job, billed 1 month)."""
    amount = locales.money(lang, cost.amount, cost.currency)
    if cost.amount_max:
        amount = f"{amount}–{locales.money(lang, cost.amount_max, cost.currency)}"
    if cost.per == "month":
        return locales.t(lang, "answer.per_month", amount=amount)
    if cost.per == "hour":
        return locales.t(lang, "answer.per_hour", amount=amount)
    unit = locales.t(lang, f"answer.unit_{cost.unit or 'month'}")
    return locales.t(lang, "answer.per_job", amount=amount, units=cost.billed_units or 1, unit=unit)


def headline(lang: str, o: Option) -> str:
    machines = locales.t(lang, "answer.machines", machines=o.machines) if o.machines > 1 else ""
    return locales.t(
        lang,
        "answer.headline",
        machines=machines,
        count=o.count,
        gpu=o.gpu_name,
        offer=o.offer,
        cost=cost_text(lang, o.cost),
    )


def setup_line(lang: str, o: Option) -> str:
    if o.task == "infer":
        runtime = locales.t(lang, f"value.runtime.{o.runtime}")
        return locales.t(
            lang,
            "answer.setup_infer",
            weight_dtype=o.weight_dtype.upper(),
            runtime=runtime,
            replicas=o.replicas,
            batch=o.batch,
            tp=o.tensor_parallel,
            tokens_per_s=o.decode_tokens_per_s,
        )
    key = "answer.setup_train_time" if o.training_hours is not None else "answer.setup_train"
    return locales.t(
        lang,
        key,
        method=locales.t(lang, f"value.method.{o.method}"),
        zero=o.zero_stage,
        gpus=o.count * o.machines,
        hours=o.training_hours,
    )


def option_line(lang: str, o: Option) -> str:
    """One alternative on one line: its label, what to rent, the cost and how it runs."""
    machines = locales.t(lang, "answer.machines", machines=o.machines) if o.machines > 1 else ""
    return locales.t(
        lang,
        "answer.option",
        label=locales.t(lang, f"answer.alternative.{o.kind}"),
        machines=machines,
        count=o.count,
        gpu=o.gpu_name,
        offer=o.offer,
        cost=cost_text(lang, o.cost),
        setup=setup_line(lang, o),
    )


def _steps(plan: Plan, short: bool) -> list[Finding]:
    if not short or plan.recommendation is None:
        return list(plan.reasoning)
    wanted = SHORT_STEPS[plan.recommendation.task]
    chosen = [f for f in plan.reasoning if f.id in wanted]
    if plan.task == "both" and plan.serving is not None:
        chosen = [f for f in chosen if f.id != "cost_compare"]
    return chosen[:5]


def _pitfalls(plan: Plan, limit: int | None) -> list[Finding]:
    ranked = sorted(plan.pitfalls, key=lambda f: SEVERITY_ORDER.get(f.severity, 3))
    return ranked if limit is None else [f for f in ranked if f.severity != "info"][:limit] or ranked[:1]


def _section(lang: str, id_: str, lines: Iterable[str], bullet: str) -> list[Section]:
    """One headed block of details, or none when it has no lines."""
    body = list(lines)
    return (
        [Section(id=id_, heading=locales.t(lang, f"answer.section_{id_}"), bullet=bullet, lines=body)]
        if body
        else []
    )


def answer(lang: str, plan: Plan) -> Content:
    """The phone-sized answer."""
    if plan.recommendation is None:
        return no_fit(lang, plan)
    rec = plan.recommendation
    summary = [setup_line(lang, rec)]
    if plan.status != "ok":
        summary.append(locales.t(lang, f"answer.status.{plan.status}"))
    if plan.serving is not None:
        line = f"{headline(lang, plan.serving)} — {setup_line(lang, plan.serving)}"
        summary.append(locales.t(lang, "answer.serving", line=line))
    alts = [a for a in plan.alternatives if a.kind in ("cheaper", "lora", "qlora", "faster")][:2]
    sections = [
        *_section(lang, "reasoning", (finding_text(lang, f) for f in _steps(plan, True)), "•"),
        *_section(lang, "pitfalls", (finding_text(lang, f) for f in _pitfalls(plan, MAX_PITFALLS)), "⚠"),
        *_section(lang, "alternatives", (option_line(lang, a) for a in alts), "↔"),
        *_section(lang, "whatifs", (finding_text(lang, f) for f in plan.what_ifs[:MAX_WHATIFS]), "↗"),
    ]
    return Content(
        title=headline(lang, rec),
        summary=summary,
        sections=sections,
        footer=[locales.t(lang, "answer.more")],
    )


def no_fit(lang: str, plan: Plan) -> Content:
    """Nothing fits: the verdict as the title, then why and what would change it (no headings)."""
    return Content(
        title=locales.t(lang, "answer.status.no_fit"),
        sections=[
            Section(id="reasoning", lines=[finding_text(lang, f) for f in plan.reasoning]),
            Section(id="whatifs", bullet="↗", lines=[finding_text(lang, f) for f in plan.what_ifs]),
        ],
    )


def why(lang: str, plan: Plan) -> Content:
    """The long form: every reasoning step, every pitfall, alternatives, what-ifs, assumptions."""
    rec = plan.recommendation
    requested = [option_line(lang, plan.requested)] if plan.requested is not None else []
    return Content(
        title=headline(lang, rec) if rec else None,
        summary=[setup_line(lang, rec)] if rec else [],
        sections=[
            *_section(lang, "reasoning", (finding_text(lang, f) for f in plan.reasoning), "•"),
            *_section(lang, "pitfalls", (finding_text(lang, f) for f in _pitfalls(plan, None)), "⚠"),
            *_section(lang, "alternatives", (option_line(lang, a) for a in plan.alternatives), "↔"),
            *_section(lang, "requested", requested, "•"),
            *_section(lang, "whatifs", (finding_text(lang, f) for f in plan.what_ifs), "↗"),
            *_section(lang, "assumptions", (finding_text(lang, f) for f in plan.assumptions), "·"),
        ],
    )


def costs(lang: str, plan: Plan) -> Content:
    """/cost: the pick and each alternative, monthly, yearly where offered, and for the job."""
    options = [o for o in (plan.recommendation, plan.serving, *plan.alternatives, plan.requested) if o]
    if not options:
        return Content(title=locales.t(lang, "answer.status.no_fit"))
    lines: list[str] = []
    for o in options:
        lines.append(
            locales.t(
                lang,
                "cost.line",
                kind=locales.t(lang, f"answer.alternative.{o.kind}"),
                gpu=o.gpu_name,
                count=o.count * o.machines,
                offer=o.offer,
                monthly=cost_text(lang, o.monthly_cost),
            )
        )
        if o.monthly_cost.yearly_monthly:
            lines.append(
                locales.t(
                    lang,
                    "cost.yearly",
                    amount=o.monthly_cost.yearly_monthly,
                    currency=o.monthly_cost.currency,
                )
            )
        if o.job_cost is not None:
            lines.append(locales.t(lang, "cost.job", cost=cost_text(lang, o.job_cost)))
    return Content(title=locales.t(lang, "cost.title"), summary=lines)
