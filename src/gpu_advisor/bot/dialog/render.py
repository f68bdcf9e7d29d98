"""Plans and findings as text in the user's language, one phone screen at a time.

The first message is a card of about 300 characters: the pick in words and its price
(the title, and apart in ``pick`` / ``price`` so a surface can show the price large),
one line on fit and speed, the single most important caveat. Everything else is
asked for with a button, each view at most one screen (``SCREEN`` characters):
``why`` (the numbers), ``costs`` (monthly, hourly, yearly, billing unit, the job),
``alternatives`` (a compact comparison) and ``what_ifs`` (only those that change the
pick or the price). ``why_all`` is the long form with every step. Each view returns
the reply's parts (``bot.dialog.reply.Content``).
"""

from __future__ import annotations

from collections.abc import Iterable

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_lines import per_million_lines
from gpu_advisor.bot.dialog.reply import Button, Content, Section
from gpu_advisor.bot.dialog.words import (
    Facts,
    amount_text,
    billing_words,
    caveat,
    cost_text,
    counted,
    finding_text,
    fit_line,
    method_words,
    option_price,
    pick_words,
    zero_words,
)
from gpu_advisor.engine import plan_checks
from gpu_advisor.engine.cost import HOURS_PER_MONTH  # the month the engine bills: 720 h, one value
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.results import Option, Plan
from gpu_advisor.engine.rules import china_cards
from gpu_advisor.engine.rules.plans import NAMED_CARD_FINDINGS

SHORT_STEPS = {
    "infer": ("serving_memory", "decode_speed", "decode_speed_split", "ttft", "replicas", "cost_compare"),
    "train": ("model_states", "training_fit", "training_time", "scaling", "cost_compare"),
}
SEVERITY_ORDER = {"high": 0, "warn": 1, "info": 2}
SCREEN = 700  # characters: one phone screen of a detail view
MAX_SUMMARY = 3  # lines on the first card: fit, one more fact, one caveat
# What-ifs whose "nothing better" form means the pick stays as it is.
UNCHANGED_WHEN_NONE = frozenset({"what_if_8bit_optimizer"})
# The plan's judgement of the card the user named: said first, before the pick (issue 28).
NAMED = NAMED_CARD_FINDINGS
CLASSIC_STATUS = frozenset({"over_budget", "latency_not_met", "no_fit"})


def facts(plan: Plan) -> Facts:
    """What the plan was sized for: the prompt and TTFT limit (its ``ttft`` step), pretraining."""
    step = next((f for f in plan.reasoning if f.id == "ttft"), None)
    values = step.values if step else {}
    prompt, target = values.get("prompt_tokens"), values.get("target_ms")
    return Facts(
        prompt_tokens=int(prompt) if isinstance(prompt, int | float) else None,
        ttft_limit_ms=float(target) if isinstance(target, int | float) else None,
        pretraining=plan.pretraining,
    )


def setup_line(lang: str, o: Option, pretraining: bool = False) -> str:
    """How the option runs: weights, runtime, replicas, speed — or method, sharding, GPUs, time."""
    if o.task == "infer":
        return locales.t(
            lang,
            "answer.setup_infer",
            weight_dtype=o.weight_dtype.upper(),
            runtime=locales.t(lang, f"value.runtime.{o.runtime}"),
            replicas=counted(lang, "words.replicas", o.replicas or 1, batch=o.batch),
            tp=o.tensor_parallel,
            tokens_per_s=o.decode_tokens_per_s,
        )
    key = "answer.setup_train_time" if o.training_hours is not None else "answer.setup_train"
    return locales.t(
        lang,
        key,
        method=method_words(lang, o.method, pretraining),
        zero=zero_words(lang, o.zero_stage),
        gpus=counted(lang, "words.gpus_in_all", o.count * o.machines),
        hours=o.training_hours,
    )


def title_line(lang: str, o: Option, workable: bool = True) -> str:
    """'✅ 推荐：…' — or, for a pick its own checks call unworkable (nothing workable existed),
    a ⚠ headline: a plan never ticks what its warning says will not work (issue 47)."""
    key = "answer.headline" if workable else "answer.headline_unworkable"
    return locales.t(lang, key, pick=pick_words(lang, o), price=option_price(lang, o))


def answer(lang: str, plan: Plan) -> Content:
    """The phone card: the named card judged first, the pick and its price, fit and speed, one caveat."""
    if plan.recommendation is None:
        return no_fit(lang, plan)
    rec = plan.recommendation
    named = next((f for f in plan.pitfalls if f.id in NAMED), None)
    summary = [caveat(lang, named)] if named else []
    summary.append(fit_line(lang, rec, facts(plan)))
    if plan.serving is not None:
        serving = [pick_words(lang, plan.serving), option_price(lang, plan.serving)]
        serving += _combined(lang, rec, plan.serving, "answer.combined")
        summary.append(locales.t(lang, "answer.serving", line=" · ".join(serving)))
    warning = _top_caveat(lang, plan, skip=named)
    if warning:
        summary.append(f"⚠ {warning}")
    if len(summary) > MAX_SUMMARY and plan.serving is not None:
        summary.pop(-2 if warning else -1)  # the serving line is in /cost; the caveat is not
    return Content(
        title=title_line(lang, rec, workable=plan.status not in plan_checks.HARD),
        pick=pick_words(lang, rec),
        price=option_price(lang, rec),
        summary=summary,
    )


def _combined(lang: str, train: Option, serve: Option, key: str) -> list[str]:
    """A train-then-serve plan's monthly total: the month both run, in one currency."""
    a, b = train.monthly_cost, serve.monthly_cost
    if a.currency != b.currency:
        return []
    money = {"train": a.amount, "serve": b.amount, "currency": a.currency}
    return [locales.t(lang, key, total=a.amount + b.amount, **money)]


def _top_caveat(lang: str, plan: Plan, skip: Finding | None = None) -> str | None:
    """Over budget or too slow beats any pitfall; else the most severe pitfall, shortened.

    A plan whose pick has a problem nothing workable replaced (out of reach, under the
    scaling floor) leads with the finding that carries its numbers, not the bare status.
    """
    if plan.status in CLASSIC_STATUS:
        return locales.t(lang, f"answer.status.{plan.status}").removeprefix("⚠ ")
    ranked = _ranked(f for f in plan.pitfalls if f is not skip)
    if ranked:
        return caveat(lang, ranked[0])
    if plan.status != "ok":
        return locales.t(lang, f"answer.status.{plan.status}").removeprefix("⚠ ")
    return None


def answer_buttons(lang: str, plan: Plan) -> list[Button]:
    """为什么 / 费用明细 / 其他方案 / 下单 (with an order link) / 重新开始."""
    shown = ["why", "cost"]
    if plan.alternatives or changing_what_ifs(plan):
        shown.append("alt")
    shown.append("cmd")  # what to run (issue 19, bot/dialog/launch_view.py)
    buttons = [Button(label=locales.t(lang, f"button.{c}"), payload=f"/{c}") for c in shown]
    rec = plan.recommendation
    if rec is not None and rec.order_url:
        label = rec.order_label or locales.t(lang, "button.order")
        buttons.append(Button(label=label, payload="/order", url=rec.order_url))
    buttons.append(Button(label=locales.t(lang, "button.new"), payload="/new"))
    return buttons


def no_fit(lang: str, plan: Plan) -> Content:
    """Nothing fits: the verdict as the title, then why and what would change it (no headings)."""
    limited = any(f.id.startswith("nothing_allowed") for f in plan.reasoning)
    return fitted(
        Content(
            title=locales.t(lang, "answer.status.no_fit_limited" if limited else "answer.status.no_fit"),
            sections=[
                Section(
                    id="reasoning", lines=[finding_text(lang, f, _names(lang, plan)) for f in plan.reasoning]
                ),
                Section(
                    id="whatifs",
                    bullet="↗",
                    lines=[finding_text(lang, f, _names(lang, plan)) for f in plan.what_ifs],
                ),
            ],
        )
    )


def _names(lang: str, plan: Plan) -> dict[str, str]:
    """Each option's offer id → its name in words, for findings that mention an offer."""
    options = [plan.recommendation, plan.serving, *plan.alternatives, plan.requested]
    return {o.offer: pick_words(lang, o) for o in reversed(options) if o is not None}


def _ranked(pitfalls: Iterable[Finding]) -> list[Finding]:
    """Caveats in the order a short view keeps them: a China-market card's own (a rebuilt 4090,
    the Ascend stack, the H20's slow prefill; ``rules.china_cards.CAVEATS``) first, wherever the
    reply names that card, then by severity (issue 47: /why dropped the H20's for the NVLink line)."""
    return sorted(
        pitfalls, key=lambda f: (f.id not in china_cards.CAVEATS, SEVERITY_ORDER.get(f.severity, 3))
    )


def _section(lang: str, id_: str, lines: Iterable[str], bullet: str) -> list[Section]:
    """One headed block of details, or none when it has no lines."""
    body = list(lines)
    heading = locales.t(lang, f"answer.section_{id_}")
    return [Section(id=id_, heading=heading, bullet=bullet, lines=body)] if body else []


def fitted(content: Content, limit: int = SCREEN, keep: frozenset[str] = frozenset()) -> Content:
    """``content`` with lines dropped from its last sections until it fits ``limit`` characters;
    a line in ``keep`` (a caveat the reply must carry) stays, and lines before it go instead."""
    sections = [s.model_copy() for s in content.sections]
    while len(content.model_copy(update={"sections": sections}).as_text()) > limit:
        at = next((i for i in reversed(range(len(sections))) if set(sections[i].lines) - keep), None)
        if at is None:
            break
        lines = sections[at].lines
        drop = max(i for i, line in enumerate(lines) if line not in keep)
        sections[at] = sections[at].model_copy(update={"lines": lines[:drop] + lines[drop + 1 :]})
        sections = [s for s in sections if s.lines]
    return content.model_copy(update={"sections": sections})


def _steps(plan: Plan) -> list[Finding]:
    if plan.recommendation is None:
        return list(plan.reasoning)
    wanted = SHORT_STEPS[plan.recommendation.task]
    return [f for f in plan.reasoning if f.id in wanted and (f.id != "ttft" or _ttft_matters(f))]


def _ttft_matters(f: Finding) -> bool:
    """The first-token time is said when it is over a second or the user gave a limit."""
    ttft = f.values.get("ttft_ms")
    return f.values.get("target_ms") is not None or (isinstance(ttft, int | float) and ttft > 1000)


def why(lang: str, plan: Plan) -> Content:
    """/why: the numbers behind the pick, then the pitfalls, as much as one screen holds."""
    rec = plan.recommendation
    if rec is None:
        return no_fit(lang, plan)
    ranked = _ranked(plan.pitfalls)
    names = _names(lang, plan)
    must = frozenset(finding_text(lang, f, names) for f in ranked if f.id in china_cards.CAVEATS)
    return fitted(
        Content(
            title=locales.t(lang, "why.title", pick=pick_words(lang, rec)),
            summary=[setup_line(lang, rec, plan.pretraining)],
            sections=[
                *_section(
                    lang, "reasoning", (finding_text(lang, f, _names(lang, plan)) for f in _steps(plan)), "•"
                ),
                *_section(lang, "pitfalls", (finding_text(lang, f, _names(lang, plan)) for f in ranked), "⚠"),
            ],
            footer=[locales.t(lang, "why.more")],
        ),
        keep=must,
    )


def why_all(lang: str, plan: Plan) -> Content:
    """/why all: every reasoning step, every pitfall, alternatives, what-ifs, assumptions."""
    rec = plan.recommendation
    pre = plan.pretraining
    requested = [option_line(lang, plan.requested, pre)] if plan.requested is not None else []
    ranked = _ranked(plan.pitfalls)
    return Content(
        title=title_line(lang, rec) if rec else None,
        summary=[setup_line(lang, rec, pre)] if rec else [],
        sections=[
            *_section(
                lang, "reasoning", (finding_text(lang, f, _names(lang, plan)) for f in plan.reasoning), "•"
            ),
            *_section(lang, "pitfalls", (finding_text(lang, f, _names(lang, plan)) for f in ranked), "⚠"),
            *_section(lang, "alternatives", (option_line(lang, a, pre) for a in plan.alternatives), "↔"),
            *_section(lang, "requested", requested, "•"),
            *_section(
                lang,
                "whatifs",
                (finding_text(lang, f, _names(lang, plan)) for f in changing_what_ifs(plan)),
                "↗",
            ),
            *_section(
                lang,
                "assumptions",
                (finding_text(lang, f, _names(lang, plan)) for f in plan.assumptions),
                "·",
            ),
        ],
    )


def option_line(lang: str, o: Option, pretraining: bool = False) -> str:
    """One option, compact: 更快 · 2 张 A100 40GB SXM4 · ¥5,600/月 · 每路 58 token/s."""
    parts = [locales.t(lang, f"answer.alternative.{o.kind}"), pick_words(lang, o), option_price(lang, o)]
    if o.task == "infer":
        parts.append(locales.t(lang, "words.speed", tokens_per_s=o.decode_tokens_per_s))
    else:
        parts.insert(1, method_words(lang, o.method, pretraining))
        if o.training_hours is not None:
            parts.append(locales.t(lang, "words.hours", hours=o.training_hours))
    parts.append(
        locales.t(lang, "words.memory", used=o.memory_gib.get("total", 0.0), capacity=o.capacity_gib)
    )
    if o.within_budget is False:
        parts.append(locales.t(lang, "words.over_budget"))
    return " · ".join(parts)


def alternatives(lang: str, plan: Plan) -> Content:
    """/alt: the pick and each alternative on one line, then the what-ifs that change something."""
    rec = plan.recommendation
    if rec is None:
        return no_fit(lang, plan)
    requested = [plan.requested] if plan.requested and plan.requested.offer != rec.offer else []
    others = [*requested, *plan.alternatives]  # the user's own cards first: they asked about them
    pre = plan.pretraining
    return fitted(
        Content(
            title=locales.t(lang, "alt.title"),
            summary=[option_line(lang, rec, pre)],
            sections=[
                *_section(lang, "alternatives", (option_line(lang, o, pre) for o in others), "↔"),
                *_section(
                    lang,
                    "whatifs",
                    (finding_text(lang, f, _names(lang, plan)) for f in changing_what_ifs(plan)),
                    "↗",
                ),
            ],
        )
    )


def what_ifs(lang: str, plan: Plan) -> Content:
    """/whatif: only the what-ifs that change the pick or its price."""
    lines = [finding_text(lang, f, _names(lang, plan)) for f in changing_what_ifs(plan)]
    if not lines:
        return Content(title=locales.t(lang, "whatif.none"))
    return fitted(
        Content(
            title=locales.t(lang, "answer.section_whatifs"),
            sections=[Section(id="whatifs", bullet="↗", lines=lines)],
        )
    )


def changing_what_ifs(plan: Plan) -> list[Finding]:
    """The what-ifs that lead somewhere else: a different price, a different card or count."""
    return [f for f in plan.what_ifs if not _changes_nothing(f)]


def _changes_nothing(f: Finding) -> bool:
    values = f.values
    if f.id in UNCHANGED_WHEN_NONE and any(v is None for v in values.values()):
        return True
    amount, current = values.get("amount"), values.get("pick_amount")
    if not (isinstance(amount, int | float) and isinstance(current, int | float)):
        return False
    return round(amount) == round(current)


def costs(lang: str, plan: Plan) -> Content:
    """/cost: the pick (and the serving pick) monthly, hourly, yearly, how it is billed, the job."""
    options = [o for o in (plan.recommendation, plan.serving) if o]
    if not options:
        return Content(title=locales.t(lang, "answer.status.no_fit"))
    sections = [
        Section(id=f"cost_{o.kind}", heading=title_line(lang, o), bullet="·", lines=_cost_lines(lang, o))
        for o in options
    ]
    if plan.recommendation is not None and plan.serving is not None:
        combined = _combined(lang, plan.recommendation, plan.serving, "cost.combined")
        if combined:
            sections.insert(0, Section(id="cost_combined", bullet="·", lines=combined))
    return fitted(Content(title=locales.t(lang, "cost.title"), sections=sections))


def _cost_lines(lang: str, o: Option) -> list[str]:
    monthly = o.monthly_cost
    lines = [
        locales.t(lang, "cost.monthly", amount=amount_text(lang, monthly)),
        locales.t(lang, "cost.hourly", amount=monthly.amount / HOURS_PER_MONTH, currency=monthly.currency),
    ]
    if monthly.yearly_monthly:
        lines.append(
            locales.t(
                lang,
                "cost.yearly",
                amount=monthly.yearly_monthly,
                year=monthly.yearly_monthly * 12,
                currency=monthly.currency,
            )
        )
    lines += per_million_lines(lang, o)  # a serving plan's ¥ per million tokens, as the quote says it
    billed = o.job_cost or o.cost
    lines.append(locales.t(lang, f"cost.billed_{billed.unit or 'month'}"))
    if o.job_cost is not None:
        lines.append(
            locales.t(
                lang, "cost.job", cost=cost_text(lang, o.job_cost), billed=billing_words(lang, o.job_cost)
            )
        )
    return lines


def order(lang: str, plan: Plan) -> Content:
    """/order: the pick, its price and the operator's order link (or where to rent it)."""
    rec = plan.recommendation
    if rec is None:
        return no_fit(lang, plan)
    if not rec.order_url:
        return Content(title=title_line(lang, rec), summary=[locales.t(lang, "order.none")])
    return Content(title=title_line(lang, rec), summary=[rec.order_url])
