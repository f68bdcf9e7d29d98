"""What the reader could not use, said back in one short line each, in words.

An issue is an id plus values (``reading.requirements.result.Issue``); its sentence is
``issue.<id>`` in the locale files. Values that are internal — a card id
(``a100-40g-sxm``), a model id, a money record — are put into people's words here
first, so no reply ever shows an id or a raw structure.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor import locales
from gpu_advisor.bot.dialog.labels import slot_value
from gpu_advisor.bot.dialog.tools import Tools
from gpu_advisor.reading.requirements import Issue

_NAMED_FIELDS = {"gpu": "gpu", "model": "model", "exclude_gpus": "gpu"}


def issue_lines(flow: Tools, lang: str, issues: list[Issue]) -> list[str]:
    """One sentence per issue, values in words."""
    return [locales.t(lang, f"issue.{i.id}", **_worded(flow, lang, i)) for i in issues]


def _worded(flow: Tools, lang: str, issue: Issue) -> dict[str, Any]:
    values: dict[str, Any] = dict(issue.values)
    kind = _NAMED_FIELDS.get(issue.field or "")
    for key in ("kept", "ignored", "closest", "model"):
        if key in values and kind is not None:
            values[key] = _name(flow, lang, kind, str(values[key]))
    for side in ("kept", "ignored"):
        if f"{side}_amount" in values:
            money = {"amount": values[f"{side}_amount"], "currency": values.get(f"{side}_currency", "CNY")}
            money["per"] = values.get(f"{side}_per", "month")
            values[side] = slot_value(lang, issue.field or "budget", money)
        elif side in values and issue.field and kind is None:
            values[side] = slot_value(lang, issue.field, values[side])
    return values


def _name(flow: Tools, lang: str, kind: str, ident: str) -> str:
    if kind == "gpu":
        return str(flow.gpu_names(ident, lang))
    model = flow.kb.models.get(ident)
    return model.name if model is not None else ident
