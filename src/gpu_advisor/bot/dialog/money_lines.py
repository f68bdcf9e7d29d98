"""The sentences of a money answer: a judged quote and a buy/rent/API comparison, with their arithmetic.

Pure rendering from the engine's results (``engine.quote.QuoteVerdict``,
``engine.ownership.Ownership``) through ``locales/*/money.yaml``; every amount is said in
its own currency (a USD quote is never printed as CN¥). One screen: a title with the
verdict, then the figures and the multiplication that gives each.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.words import counted
from gpu_advisor.engine.billing import Billing, VendorQuote
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.ownership import Ownership
from gpu_advisor.engine.quote import QuoteVerdict
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.locales.names import card_name


def gpu_name(lang: str, kb: Knowledge, gpu: str) -> str:
    """The card as every other reply names it (issue 47): 'RTX 3090', and a rebuilt board with
    its qualifier in the user's language ('RTX 4090 48GB（魔改）'), never the catalogue's
    '(rebuilt)'; an id the catalog does not hold is said as given."""
    spec = kb.gpus.get(gpu)
    return card_name(lang, spec.name) if spec else gpu


def gpus_words(lang: str, kb: Knowledge, gpu: str, count: int) -> str:
    """A count of one card as a price line says it ("2 张 A100 40GB SXM4", "2× A100 40GB SXM4")."""
    return counted(lang, "words.gpus", count, gpu=gpu_name(lang, kb, gpu))


def price_words(lang: str, q: VendorQuote) -> str:
    """The quote's prices as the vendor meant them: ¥180/小时 或 ¥90,000/月."""
    return locales.t(lang, "money.quote.or").join(
        locales.t(lang, f"money.quote.price_{p.per}", amount=p.amount, currency=p.currency) for p in q.prices
    )


def quote_title(lang: str, v: QuoteVerdict, kb: Knowledge, model: str) -> str:
    key = "money.quote.title_fits" if v.fits else "money.quote.title_no_fit"
    return locales.t(
        lang,
        key,
        count=v.quote.count,
        gpu=gpu_name(lang, kb, v.gpu),
        price=price_words(lang, v.quote),
        model=model,
    )


def quote_lines(lang: str, v: QuoteVerdict, kb: Knowledge) -> list[str]:
    """Fit, speed or job, cost per token, billing, catalog range and comparison, in that order."""
    lines = [_fit(lang, v)]
    if v.option is not None:
        lines += _use(lang, v.option, v.training_days)
    lines += billing_lines(lang, v.billing, v.quote)
    if v.cheapest_in_answer_currency is not None and kb.catalog.fx_date is not None:
        m = v.cheapest_in_answer_currency
        date = kb.catalog.fx_date.isoformat()
        lines.append(
            locales.t(lang, "money.quote.in_your_currency", amount=m.amount, currency=m.currency, date=date)
        )
    lines.append(_range(lang, v, kb))
    lines += _catalog(lang, v, kb)
    return lines


def _fit(lang: str, v: QuoteVerdict) -> str:
    rows = [r for r in v.verdict.rows if r.fits] or v.verdict.rows[:1]
    r = rows[0]
    method = (
        locales.t(lang, f"label.{r.method}") if locales.has(lang, f"label.{r.method}") else r.method.upper()
    )
    return locales.t(
        lang, "money.quote.fit_row", method=method, total_gib=r.total_gib, capacity_gib=r.capacity_gib
    )


def per_million_lines(lang: str, o: Option) -> list[str]:
    """A serving option's price per million output tokens, at the planned load and at full load
    (the month's price over a month of those tokens); one line, said the same on every surface
    (the quote, the plan's cost fold). Empty for training or when the engine gave no speed."""
    planned, full = o.cost_per_million_output_tokens, o.cost_per_million_output_tokens_full_load
    if o.task != "infer" or planned is None:
        return []
    if full is None:
        values = {"planned": planned.amount, "currency": planned.currency}
        return [locales.t(lang, "money.quote.per_token_planned", **values)]
    both = {"planned": planned.amount, "full": full.amount, "currency": planned.currency}
    return [locales.t(lang, "money.quote.per_token", **both)]


def _use(lang: str, o: Option, days: float | None) -> list[str]:
    if o.task == "infer":
        out = [
            locales.t(
                lang,
                "money.quote.serving",
                tokens=o.output_tokens_per_s,
                full=o.output_tokens_per_s_full_load,
                machines=o.machines,
            )
        ]
        return out + per_million_lines(lang, o)
    if o.training_hours is None or days is None:
        return []  # no hours to say: the line is left out rather than printed with "?"
    job = o.job_cost or o.cost
    values = {"hours": o.training_hours, "days": days, "machines": o.machines, "cost": job.amount}
    return [locales.t(lang, "money.quote.training", currency=job.currency, **values)]


def billing_lines(lang: str, b: Billing, q: VendorQuote) -> list[str]:
    """Each way of paying for the hours, with its product (300 h × ¥180), the cheapest, and the break-even."""
    rates = {"hour": q.hourly(), "month": q.monthly(), "year": q.monthly()}
    parts = [
        locales.t(
            lang,
            f"money.quote.bill_{o.billing}",
            amount=o.amount,
            units=o.billed_units,
            rate=rates[o.billing],
            paid=1 - q.yearly_discount,
            currency=o.currency,
        )
        for o in b.options
    ]
    if b.cheapest is not None and len(b.options) > 1:
        cheapest = locales.t(lang, f"money.quote.billing_{b.cheapest}")
        parts.append(locales.t(lang, "money.quote.cheapest", billing=cheapest))
    head = locales.t(lang, f"money.quote.hours_{b.period}", hours=b.hours)
    lines = [head + " · ".join(parts)]
    if b.break_even_hours_month is not None and b.break_even_hours_year is not None:
        lines.append(
            locales.t(
                lang,
                "money.quote.break_even",
                hours=b.break_even_hours_month,
                year_hours=b.break_even_hours_year,
            )
        )
    elif b.break_even_hours_month is not None:
        lines.append(locales.t(lang, "money.quote.break_even_month", hours=b.break_even_hours_month))
    return lines


def _range(lang: str, v: QuoteVerdict, kb: Knowledge) -> str:
    low, high = v.catalog_per_card_month_min, v.catalog_per_card_month_max
    values = {
        "per_card": v.per_card_month.amount,
        "per_card_currency": v.per_card_month.currency,
        "gpu": gpu_name(lang, kb, v.gpu),
        "above": v.above_catalog_by,
    }
    if low is None or high is None:
        return locales.t(lang, "money.quote.range_none", **values)
    key = {"above_catalog_range": "range_above", "below_catalog_range": "range_below"}.get(
        v.price_position, "range_within"
    )
    return locales.t(
        lang, f"money.quote.{key}", low=low.amount, high=high.amount, currency=low.currency, **values
    )


def _catalog(lang: str, v: QuoteVerdict, kb: Knowledge) -> list[str]:
    out: list[str] = []
    if v.option is not None and v.option.machines > 1:
        out.append(locales.t(lang, "money.quote.machines", machines=v.option.machines))
    same = v.catalog_same_card
    if same is not None and same.priced:  # a card the catalog does not rent has no price to compare
        m = same.monthly_cost
        out.append(
            locales.t(
                lang,
                "money.quote.same_card",
                count=same.count * same.machines,
                gpu=gpu_name(lang, kb, same.gpu),
                monthly=m.amount,
                currency=m.currency,
            )
        )
    best = v.catalog_cheapest
    if best is not None:
        m = best.monthly_cost
        out.append(
            locales.t(
                lang,
                "money.quote.cheapest_option",
                count=best.count,
                gpu=gpu_name(lang, kb, best.gpu),
                machines=best.machines,
                monthly=m.amount,
                currency=m.currency,
            )
        )
    return out


def ownership_title(lang: str, o: Ownership, kb: Knowledge) -> str:
    """The verdict; with neither a purchase price nor an API price there is nothing to set the rent
    against, so the title says the rent and what is missing rather than call renting cheapest."""
    if o.buy is None and o.api is None:
        return locales.t(
            lang,
            "money.own.title_rent_only",
            gpu=gpu_name(lang, kb, o.gpu),
            monthly=o.rent_monthly,
            currency=o.currency,
        )
    cheapest = locales.t(lang, f"money.own.choice_{o.cheapest}")
    bought = o.buy.gpu if o.buy is not None else o.gpu
    return locales.t(lang, "money.own.title", gpu=gpu_name(lang, kb, bought), cheapest=cheapest)


def ownership_lines(lang: str, o: Ownership, kb: Knowledge) -> list[str]:
    """Rent, buy (with its arithmetic), API, then the break-even figures and what was assumed."""
    cur = o.currency
    rent = {"monthly": o.rent_monthly, "count": o.count, "machines": o.machines, "hours": o.hours_per_month}
    lines = [locales.t(lang, "money.own.rent", gpu=gpu_name(lang, kb, o.gpu), currency=cur, **rent)]
    if o.buy is not None:
        lines += _buy_lines(lang, o)
    if o.api is not None:
        a = o.api
        values = {
            "out_tokens": a.output_tokens_month,
            "in_tokens": a.input_tokens_month,
            "monthly": a.monthly,
        }
        prices = {"out_price": a.output_per_million, "in_price": a.input_per_million}
        lines.append(locales.t(lang, "money.own.api", currency=cur, **values, **prices))
        if a.source != "user":
            lines.append(locales.t(lang, "money.own.api_source", source=a.source, date=str(a.price_date)))
    if o.api_break_even_tokens_month is not None:
        share = o.api_break_even_utilisation
        lines.append(locales.t(lang, "money.own.api_even", tokens=o.api_break_even_tokens_month, share=share))
    return lines + [_finding(lang, f, kb) for f in o.findings]


def _buy_lines(lang: str, o: Ownership) -> list[str]:
    b = o.buy
    assert b is not None
    values = {
        "price": b.price,
        "months": b.depreciation_months,
        "dep": b.depreciation_monthly,
        "kw": b.power_kw,
        "hours": o.hours_per_month,
        "pue": b.pue,
        "per_kwh": b.electricity_per_kwh,
        "power": b.electricity_monthly,
        "hosting": b.hosting_monthly,
        "monthly": b.monthly,
    }
    lines = [locales.t(lang, "money.own.buy", currency=o.currency, **values)]
    if b.price_source == "user":
        lines.append(locales.t(lang, "money.own.buy_user"))
    else:
        lines.append(locales.t(lang, "money.own.buy_source", source=b.price_source, date=str(b.price_date)))
    if o.break_even_months is None:
        lines.append(locales.t(lang, "money.own.payback_never"))
    else:
        share = o.break_even_utilisation
        lines.append(locales.t(lang, "money.own.payback", months=o.break_even_months, share=share))
    return lines


def _finding(lang: str, f: Finding, kb: Knowledge) -> str:
    values = dict(f.values)
    if isinstance(values.get("gpu"), str):
        values["gpu"] = gpu_name(lang, kb, str(values["gpu"]))
    return locales.t(lang, f"money.own.{f.id}", **values)
