"""The sentences of money answered from what was said: billing for hours or a schedule, buy vs rent,
rent vs API, a budget, the next cheaper option, a year's price and upgrades.

Pure rendering of the engine's results (``engine.billing``, ``engine.quote.money_only``,
``engine.payback``, ``engine.api_compare``, ``engine.budget``, ``engine.price_lookup``)
through ``locales/*/money.yaml``. Only what is known is rendered: a line whose figure the
engine did not compute is left out, never printed with "?" (issue 44).
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.money_lines import billing_lines, gpu_name, gpus_words, price_words
from gpu_advisor.engine.api_compare import ApiMonth, RentVsApi
from gpu_advisor.engine.billing import Billing, VendorQuote
from gpu_advisor.engine.budget import BudgetCheck, Tradeoff
from gpu_advisor.engine.payback import BuyVsRent
from gpu_advisor.engine.price_lookup import PriceAnswer, WithAddons
from gpu_advisor.engine.quote import CatalogBeside, QuoteMoney
from gpu_advisor.engine.specs import Knowledge


def money_title(lang: str, m: QuoteMoney, kb: Knowledge) -> str:
    """ "8× H100 · ¥180/小时 或 ¥90,000/月" — the quote as the vendor wrote it, no fit claimed
    (just the prices when no card was named)."""
    gpu = gpu_name(lang, kb, m.gpu) if m.gpu else m.quote.gpu
    prices = price_words(lang, m.quote)
    return f"{m.quote.count}× {gpu} · {prices}" if gpu else prices


def schedule_lines(lang: str, b: Billing, q: VendorQuote, per_day: float | None) -> list[str]:
    """The billing lines, headed by the daily schedule when there was one, and what the cheapest saves."""
    lines = billing_lines(lang, b, q)
    head = locales.t(lang, f"money.quote.hours_{b.period}", hours=b.hours)
    if per_day is not None and lines[0].startswith(head):
        schedule = locales.t(lang, "money.stated.schedule", per_day=per_day, hours=b.hours)
        lines[0] = schedule + lines[0][len(head) :]
    if b.cheapest is not None and b.runner_up is not None and b.saving is not None:
        values = {
            "cheapest": locales.t(lang, f"money.quote.billing_{b.cheapest}"),
            "runner_up": locales.t(lang, f"money.quote.billing_{b.runner_up}"),
            "saving": b.saving,
            "currency": q.currency,
        }
        lines.append(locales.t(lang, "money.stated.saving", **values))
    return lines


def buy_rent_lines(lang: str, r: BuyVsRent, kb: Knowledge) -> tuple[str, list[str]]:
    """The title with the verdict, then power, rent, payback and the period's totals."""
    cur = {"currency": r.currency}
    if r.payback_months is None:
        verdict = locales.t(lang, "money.buy_rent.verdict_never")
    else:
        verdict = locales.t(lang, "money.buy_rent.verdict_payback", months=r.payback_months)
    if r.cheaper is not None:
        verdict = locales.t(lang, f"money.buy_rent.verdict_{r.cheaper}") + " · " + verdict
    title = locales.t(
        lang,
        "money.buy_rent.title",
        count=r.count,
        gpu=gpu_name(lang, kb, r.gpu),
        hours=r.hours_per_month,
        verdict=verdict,
    )
    power = {
        "kw": r.power_kw,
        "hours": r.hours_per_month,
        "pue": r.pue,
        "per_kwh": r.electricity_per_kwh,
        "power": r.electricity_monthly,
        **cur,
    }
    if r.power_stated:
        lines = [locales.t(lang, "money.buy_rent.power_stated", **power)]
    else:
        lines = [
            locales.t(
                lang, "money.buy_rent.power_tdp", count=r.count, tdp=r.card_tdp_w, host=r.host_w, **power
            )
        ]
    lines.append(_rent(lang, r, kb))
    hosting = locales.t(lang, "money.buy_rent.hosting_note") if r.hosting_counted else ""
    if r.payback_months is not None:
        values = {"saving": r.saving_monthly, "price": r.purchase_price, "months": r.payback_months}
        lines.append(locales.t(lang, "money.buy_rent.payback", hosting_note=hosting, **values, **cur))
    else:
        lines.append(locales.t(lang, "money.buy_rent.never", hosting_note=hosting))
    if r.months and r.buy_total is not None and r.rent_total is not None and r.cheaper is not None:
        cheaper = locales.t(lang, f"money.buy_rent.cheaper_{r.cheaper}")
        totals = {"months": r.months, "buy": r.buy_total, "rent": r.rent_total, "cheaper": cheaper}
        lines.append(locales.t(lang, "money.buy_rent.period", **totals, **cur))
    if r.electricity_assumed:
        lines.append(locales.t(lang, "money.buy_rent.assumed_kwh", per_kwh=r.electricity_per_kwh, **cur))
    lines.append(locales.t(lang, "money.buy_rent.not_counted"))
    return title, lines


def _rent(lang: str, r: BuyVsRent, kb: Knowledge) -> str:
    cur: dict[str, object] = {"currency": r.currency, "rent": r.rent_monthly}
    if r.rent_source == "stated_hour":
        rate = r.rent_monthly / r.hours_per_month
        return locales.t(lang, "money.buy_rent.rent_hour", rate=rate, hours=r.hours_per_month, **cur)
    if r.rent_source == "catalog":
        offer = _offer_words(lang, kb, r.rent_offer)
        return locales.t(lang, "money.buy_rent.rent_catalog", offer=offer, **cur)
    return locales.t(lang, "money.buy_rent.rent_month", **cur)


def _offer_words(lang: str, kb: Knowledge, offer_id: str | None) -> str:
    """The catalog offer as the other replies say a machine ("1 张 RTX 3090"), not its id."""
    offer = next((o for o in kb.catalog.offers if o.id == offer_id), None)
    if offer is None:
        return offer_id or ""
    return gpus_words(lang, kb, offer.gpu, offer.count)


def api_rows_lines(
    lang: str, tokens: float, rows: list[ApiMonth], currency: str, top: int = 4
) -> tuple[str, list[str]]:
    """What each API costs a month for the volume when no rent was said, and what to say to compare."""
    title = locales.t(lang, "money.api_cmp.title_no_rent", tokens=tokens)
    lines = [_row(lang, r, currency) for r in rows[:top]]
    return title, [*lines, locales.t(lang, "money.api_cmp.need_rent")]


def _row(lang: str, r: ApiMonth, currency: str) -> str:
    values = {
        "provider": r.provider,
        "api": r.api_model,
        "pin": r.input_per_million,
        "pout": r.output_per_million,
        "date": r.price_date.isoformat() if r.price_date else "",
        "currency": currency,
    }
    key = "money.api_cmp.row_user" if r.id == "user" else "money.api_cmp.row"
    if r.low == r.high:
        return locales.t(lang, key, month=r.high, **values)
    return locales.t(lang, f"{key}_range", low=r.low, high=r.high, **values)


def api_lines(lang: str, c: RentVsApi, top: int = 4) -> tuple[str, list[str]]:
    """Rent vs every API priced for the volume: the cheapest few, the rent, the break-even."""
    rows = c.apis[:top]
    best = rows[0] if rows else None
    if c.cheapest == "rent":
        key = "verdict_rent" if all(r.verdict == "rent" for r in rows) or c.split else "verdict_depends"
        verdict = locales.t(lang, f"money.api_cmp.{key}")
    elif best is not None and best.id == "user":
        verdict = locales.t(lang, "money.api_cmp.verdict_user")
    else:
        verdict = locales.t(
            lang, "money.api_cmp.verdict_api", api=_api_name(lang, best.id, best.api_model) if best else ""
        )
    title = locales.t(lang, "money.api_cmp.title", tokens=c.tokens_per_day, verdict=verdict)
    cur = {"currency": c.currency}
    lines = [locales.t(lang, "money.api_cmp.rent", rent=c.rent_monthly, **cur)]
    lines += [_row(lang, r, c.currency) for r in rows]
    if best is not None and best.break_even_tokens_per_day:
        api = _api_name(lang, best.id, best.api_model)
        lines.append(
            locales.t(lang, "money.api_cmp.break_even", tokens=best.break_even_tokens_per_day, api=api)
        )
    if not c.split and any(r.low != r.high for r in rows):  # one price for all tokens needs no split
        lines.append(locales.t(lang, "money.api_cmp.need_split"))
    sources = "; ".join(sorted({r.source.split(" ")[0] for r in rows if r.source.startswith("http")}))
    if sources:
        lines.append(locales.t(lang, "money.api_cmp.sources", sources=sources))
    return title, lines


def _api_name(lang: str, row_id: str, api_model: str) -> str:
    return locales.t(lang, "money.api_cmp.user") if row_id == "user" else api_model


def budget_line(lang: str, b: BudgetCheck) -> str:
    """Whether the pick fits a budget said in any currency, with the rate's date."""
    date = b.fx_date.isoformat() if b.fx_date else ""
    pick = {"pick": b.pick.amount, "pick_currency": b.pick.currency}
    if b.fits is None:
        return locales.t(lang, "money.budget.no_rate", currency=b.budget.currency, **pick)
    budget = {"budget": b.budget.amount, "currency": b.budget.currency, "date": date}
    if b.fits and b.budget_in_pick_currency is not None:
        m = b.budget_in_pick_currency
        return locales.t(
            lang, "money.budget.fits", converted=m.amount, converted_currency=m.currency, **budget, **pick
        )
    over = b.over_by.amount if b.over_by else 0.0
    return locales.t(lang, "money.budget.over", over=over, **budget, **pick)


def tradeoff_line(lang: str, t: Tradeoff | None, kb: Knowledge) -> str:
    """What the next cheaper option gives up, or that there is none."""
    if t is None:
        return locales.t(lang, "money.budget.cut_none")
    values = {
        "cards": t.cards[1],
        "gpu": gpu_name(lang, kb, t.cheaper.gpu),
        "saves": t.saves_monthly.amount,
        "currency": t.saves_monthly.currency,
        "cap_from": t.capacity_gib[0],
        "cap_to": t.capacity_gib[1],
        "head_from": t.headroom_gib[0],
        "head_to": t.headroom_gib[1],
    }
    line = locales.t(lang, "money.budget.cut", **values)
    if t.output_tokens_per_s is not None:
        line += locales.t(
            lang, "money.budget.cut_speed", from_tps=t.output_tokens_per_s[0], to_tps=t.output_tokens_per_s[1]
        )
    if t.training_hours is not None:
        line += locales.t(
            lang, "money.budget.cut_hours", from_hours=t.training_hours[0], to_hours=t.training_hours[1]
        )
    return line


def year_line(lang: str, year: PriceAnswer) -> str | None:
    """A year as twelve (discounted) months, or None when nothing is priced."""
    if not year.lines or year.total is None:
        return None
    line = year.lines[0]
    values = {"monthly": line.monthly, "total": year.total, "currency": line.currency}
    if line.discount:
        return locales.t(lang, "money.lookup.year", discount=line.discount, **values)
    return locales.t(lang, "money.lookup.year_plain", **values)


def addon_lines(lang: str, w: WithAddons) -> list[str]:
    lines = [
        locales.t(
            lang,
            "money.lookup.addon",
            addon=a.addon,
            price=a.price_month,
            machines=a.machines,
            currency=a.currency,
        )
        for a in w.addons
    ]
    lines += [locales.t(lang, "money.lookup.addon_unknown", addon=name) for name in w.unknown]
    if w.addons:
        lines.append(locales.t(lang, "money.lookup.with_addons", total=w.monthly, currency=w.currency))
    return lines


def beside_lines(lang: str, b: CatalogBeside, count: int, gpu: str) -> list[str]:
    """The catalog's same cards for the same hours, in the quote's currency, and the verdict on the quote."""
    converted = ""
    if b.catalog_own.currency != b.catalog.currency:
        converted = locales.t(
            lang, "money.beside.converted", amount=b.catalog.amount, currency=b.catalog.currency
        )
    lines = [
        locales.t(
            lang,
            f"money.beside.{'hour' if b.unit == 'hour' else 'month'}",
            count=count,
            gpu=gpu,
            hours=b.quoted_hours,
            units=b.billed_units,
            own=b.catalog_own.amount,
            currency=b.catalog_own.currency,
            converted=converted,
        )
    ]
    verdict = "dear" if b.ratio > 1.1 else "cheap" if b.ratio < 0.9 else "even"
    ratio = round(b.ratio, 2) if verdict == "dear" else b.ratio
    lines.append(
        locales.t(
            lang, f"money.beside.{verdict}", quoted=b.quoted.amount, ratio=ratio, currency=b.quoted.currency
        )
    )
    if b.share_of is not None:
        lines.insert(1, locales.t(lang, "money.beside.share", count=count, machine=b.share_of))
    if b.fx_date is not None:
        lines.append(locales.t(lang, "money.beside.fx", date=b.fx_date.isoformat()))
    return lines
