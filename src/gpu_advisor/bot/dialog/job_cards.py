"""A non-LLM job's plan as the same answer card an LLM plan gets, and its folds.

The card reads top to bottom like the LLM one: the pick from the catalog and its price
(title, ``pick``, ``price``), then the number that decides the job (seconds per image,
minutes per clip, times real time, hours for the backlog, streams, tokens a second) and
what one unit of work costs. The folds are the commands' views of the same plan:
``/why`` the arithmetic (the plan's findings and assumptions as ``locales`` words them),
``/alt`` the other options, ``/cmd`` the launch command, ``/cost`` the price and the unit
costs. A plan the engine could not size says why and never names a language model.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpu_advisor import locales
from gpu_advisor.bot.dialog.reply import Content, Section
from gpu_advisor.bot.dialog.words import finding_values
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.jobs.plan import JobMetric, JobOption, JobPlan
from gpu_advisor.engine.rules import diffusion_jobs as diffusion_rules
from gpu_advisor.engine.rules import jobs as light_rules
from gpu_advisor.locales.names import card_name
from gpu_advisor.locales.numbers import currency_symbol, money, number

PITFALLS = light_rules.WARNINGS | diffusion_rules.WARNINGS | {"job_card_not_rented"}
"""Findings that warn rather than add up: shown under "watch out", not in the arithmetic."""

Names = Mapping[str, str]
"""Card id → the card's name as the catalog spells it (``kb.gpus[id].name``); ``mig:<offer id>``
→ the MIG profile of an offer that rents a slice ("1g.5gb")."""


def job_card(lang: str, plan: JobPlan, names: Names, lead: list[str], named: str | None = None) -> Content:
    """The first answer: pick and price, the deciding number and unit cost, memory, pitfalls, the hint.

    ``named`` is the card the user asked about: when the catalog quotes another one, the
    figures worked out on the named card (its findings) head the summary, so "SDXL 在 4090
    上出一张图要多久" is answered for the 4090 even when the pick is the nearest rented card."""
    pick = plan.pick
    if pick is None or not plan.sized:
        return Content(
            lead=lead,
            title=locales.t(lang, "jobchat.not_sized"),
            summary=[said(lang, f) for f in [*plan.findings, *plan.assumptions]],
        )
    on_named = [
        said(lang, f)
        for f in [*plan.findings, *plan.assumptions]
        if named is not None
        and pick.gpu != named
        and f.id not in PITFALLS
        and f.values.get("gpu") == names.get(named)
    ]
    defaults = " ".join(said(lang, f) for f in plan.assumptions if f.id.startswith("assumed_"))
    if (
        plan.family == "video_gen"
    ):  # a video model's memory is the first question; per card it hides the whole
        on_named += [said(lang, f) for f in plan.findings if f.id == "diffusion_memory"]
    lines = (*on_named, _metric_line(lang, pick), _job_cost(lang, pick), _memory(lang, pick), defaults)
    summary = [line for line in lines if line]
    warnings = [said(lang, f) for f in plan.findings if f.id in PITFALLS]
    sections = [Section(id="pitfalls", heading=locales.t(lang, "jobchat.heading.pitfalls"), lines=warnings)]
    return Content(
        lead=lead,
        title=locales.t(
            lang, "jobchat.title", pick=pick_words(lang, pick, names), price=price_words(lang, pick)
        ),
        pick=pick_words(lang, pick, names),
        price=price_words(lang, pick),
        summary=summary,
        sections=[s for s in sections if s.lines],
        footer=[locales.t(lang, "jobchat.hint")],
    )


def why_card(lang: str, plan: JobPlan, names: Names) -> Content:
    """/why: every finding and assumption of the plan, the arithmetic in words."""
    sums = [said(lang, f) for f in [*plan.findings, *plan.assumptions] if f.id not in PITFALLS]
    warnings = [said(lang, f) for f in plan.findings if f.id in PITFALLS]
    memory = _memory(lang, plan.pick) if plan.pick else None
    sections = [
        Section(id="reasoning", heading=locales.t(lang, "jobchat.heading.why"), lines=sums),
        Section(id="pitfalls", heading=locales.t(lang, "jobchat.heading.pitfalls"), lines=warnings),
    ]
    return Content(
        title=_title(lang, plan, names),
        summary=[memory] if memory else [],
        sections=[s for s in sections if s.lines],
    )


def alt_card(lang: str, plan: JobPlan, names: Names, lead: list[str] | None = None) -> Content:
    """/alt: the other machines that run the job, each with its number and unit cost."""
    formats = {o.format for o in [*([plan.pick] if plan.pick else []), *plan.alternatives]}
    mixed = len(formats) > 1  # options run different weight formats: each line says its own
    lines = [_option_line(lang, o, names, with_format=mixed) for o in plan.alternatives]
    section = Section(id="alternatives", heading=locales.t(lang, "jobchat.heading.alt"), lines=lines)
    return Content(lead=lead or [], title=_title(lang, plan, names), sections=[section] if lines else [])


def cmd_card(lang: str, plan: JobPlan, names: Names) -> Content:
    """/cmd: the launch command for the tool people use for this job."""
    tool = plan.tool or ""
    lines = [plan.command] if plan.command else []
    if not lines and plan.family == "speech" and plan.sized:  # synthesis: no flags pinned, none given
        return Content(
            title=_title(lang, plan, names), lead=[locales.t(lang, "jobchat.no_command", tool=tool)]
        )
    section = Section(
        id="commands",
        heading=locales.t(lang, "jobchat.heading.cmd", tool=tool),
        bullet="",
        lines=lines,
        code=True,
    )
    return Content(title=_title(lang, plan, names), sections=[section] if lines else [])


def cost_card(lang: str, plan: JobPlan, names: Names) -> Content:
    """/cost: the pick's price, what the stated job costs, what a unit of work costs."""
    pick = plan.pick
    if pick is None:
        return Content(title=locales.t(lang, "jobchat.not_sized"))
    lines = [line for line in (_unit_costs(lang, pick), _job_cost(lang, pick)) if line]
    section = Section(id="cost", heading=locales.t(lang, "jobchat.heading.cost"), lines=lines)
    return Content(
        title=_title(lang, plan, names), price=price_words(lang, pick), sections=[section] if lines else []
    )


def pick_words(lang: str, o: JobOption, names: Names) -> str:
    key = "jobchat.pick_machines" if o.machines > 1 else "jobchat.pick"
    gpu = card_name(lang, names[o.gpu]) if o.gpu in names else o.gpu  # as every reply names it
    if (profile := names.get(f"mig:{o.offer_id}")) is not None:  # a slice is not the whole card
        gpu = locales.t(lang, "jobchat.mig", gpu=gpu, profile=profile)
    return locales.t(lang, key, count=o.gpus, gpu=gpu, machines=o.machines)


def price_words(lang: str, o: JobOption) -> str:
    if o.price_month is not None:
        return locales.t(lang, "jobchat.price_month", amount=money(lang, o.price_month, o.currency))
    if o.price_hour is not None:
        return locales.t(lang, "jobchat.price_hour", amount=money(lang, o.price_hour, o.currency))
    return "?"


def metric_words(lang: str, m: JobMetric) -> str:
    """One metric in words ("每张 3.87 秒"); an id without words is shown with its unit."""
    value = number(lang, m.value, "#,##0.##" if m.value < 100 else "#,##0")
    key = f"jobchat.metric.{m.id}"
    return locales.t(lang, key, value=value) if locales.has(lang, key) else f"{m.id} {value} {m.unit}"


def unit_cost_words(lang: str, m: JobMetric, currency: str) -> str:
    key = f"jobchat.unit_cost.{m.id}"
    small = 0 < m.value < 0.01  # ¥0.003 per million tokens is not ¥0
    amount = (
        currency_symbol(lang, currency) + number(lang, m.value, "0.####")
        if small
        else money(lang, m.value, currency)
    )
    return locales.t(lang, key, value=amount) if locales.has(lang, key) else f"{m.id} {amount}"


def _metric_line(lang: str, o: JobOption) -> str:
    parts = [metric_words(lang, m) for m in o.metrics[:3]]
    cost = _unit_costs(lang, o)
    return " · ".join([*parts, *([cost] if cost else [])])


def _unit_costs(lang: str, o: JobOption) -> str:
    return " · ".join(unit_cost_words(lang, m, o.currency) for m in o.unit_costs)


def _job_cost(lang: str, o: JobOption) -> str | None:
    if o.job_hours is None or o.job_cost is None:
        return None
    return locales.t(
        lang,
        "jobchat.job_cost",
        hours=number(lang, o.job_hours, "#,##0.#"),
        cost=money(lang, o.job_cost, o.currency),
    )


def _memory(lang: str, o: JobOption) -> str | None:
    if o.memory_gib is None or o.memory_limit_gib is None:
        return None
    need, limit = number(lang, o.memory_gib, "#,##0.#"), number(lang, o.memory_limit_gib, "#,##0.#")
    return locales.t(lang, "jobchat.memory", need=need, limit=limit)


def _option_line(lang: str, o: JobOption, names: Names, *, with_format: bool = False) -> str:
    metric = metric_words(lang, o.metrics[0]) if o.metrics else ""
    pick = pick_words(lang, o, names)
    if with_format and o.format:
        pick = locales.t(lang, "jobchat.with_format", pick=pick, format=o.format)
    return locales.t(
        lang,
        "jobchat.alt_line",
        pick=pick,
        price=price_words(lang, o),
        metric=metric,
        unit_cost=_unit_costs(lang, o),
    )


def _title(lang: str, plan: JobPlan, names: Names) -> str:
    if plan.pick is None:
        return locales.t(lang, "jobchat.not_sized")
    return locales.t(
        lang, "jobchat.title", pick=pick_words(lang, plan.pick, names), price=price_words(lang, plan.pick)
    )


def said(lang: str, f: Finding) -> str:
    """The finding in words, its cards named as the card names them ("RTX 3090", not "NVIDIA
    GeForce RTX 3090"). Its model keeps the knowledge's name, which the JSON shows too; the
    dialog says it in the user's spelling ("SDXL") over the whole reply (``bot.dialog.spelling``)."""
    return locales.render_finding(lang, f.id, finding_values(lang, f))
