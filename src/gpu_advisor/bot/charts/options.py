"""Which of a plan's options the charts show, and how each is labelled.

Every panel shows the same rows in the same order — the pick first, then the
alternatives the engine chose (cheaper, higher precision, faster, LoRA/QLoRA), the
user's own hardware if it differs, and for train-then-serve plans the serving
machine — so a reader can follow one option from panel to panel.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor import locales
from gpu_advisor.engine.results import Option, Plan
from gpu_advisor.locales.names import card_name


@dataclass(frozen=True, slots=True)
class Row:
    """One charted option with the kind it plays in the plan ("pick", "cheaper", "serving"…)."""

    option: Option
    kind: str


def rows(plan: Plan) -> list[Row]:
    """The pick, the alternatives, the requested setup and the serving pick, without duplicates."""
    out: list[Row] = []
    seen: set[tuple[str, str, int, int, str | None]] = set()

    def add(option: Option | None, kind: str) -> None:
        if option is None:
            return
        identity = (option.offer, option.weight_dtype, option.count, option.machines, option.method)
        if identity not in seen:
            seen.add(identity)
            out.append(Row(option, kind))

    add(plan.recommendation, "pick")
    for alt in plan.alternatives:
        add(alt, alt.kind)
    add(plan.requested, "requested")
    if plan.serving is not None:
        out.append(Row(plan.serving, "serving"))
    return out


def setup_label(option: Option, lang: str) -> str:
    """ "1× T4 (AWQ)", or "2 × 8× A100 40GB SXM4 (BF16, LoRA)" for a multi-machine training setup."""
    fmt = option.weight_dtype.upper()
    if option.method is not None:
        fmt = f"{fmt}, {locales.t(lang, f'chart.method.{option.method}')}"
    key = "chart.option_machines" if option.machines > 1 else "chart.option"
    return locales.t(
        lang, key, machines=option.machines, count=option.count, gpu=card_name(lang, option.gpu_name), fmt=fmt
    )


def row_label(row: Row, lang: str) -> str:
    """Two lines for a bar's axis label: what it is in the plan, then the setup."""
    key = f"chart.kind.{row.kind}"
    kind = locales.t(lang, key) if locales.has(lang, key) else row.kind
    return f"{kind}\n{setup_label(row.option, lang)}"
