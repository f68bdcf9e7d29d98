"""A server configuration sheet's analysis as text (/analyze and ``gpu-advisor analyze``).

Verdict first, then why (the signals with their weights), what the box is good and
bad for, what it fears, what to stress-test first and next, what to ask the vendor,
the mismatches, the numbers against the 8-GPU training baseline, and the lines that
were not understood — each section from ``locales/*/sheet.yaml``. ``analysis_card`` gives
the parts of a chat reply (the verdict as its title); ``analysis_text`` the plain text.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor import knowledge, locales
from gpu_advisor.bot.dialog.reply import Content, Section
from gpu_advisor.engine.sheet import SheetAnalysis
from gpu_advisor.locales.names import card_name

SHOWN_FIELDS = (
    "gpu_model",
    "gpu_count",
    "gpu_memory_gb",
    "interconnect",
    "cpu_model",
    "cpu_cores",
    "ram_gb",
    "nvme_count",
    "nic_total_gbps",
    "cooling",
    "chassis_u",
)
MAX_UNPARSED = 5


def _t(lang: str, key: str, **values: Any) -> str:
    return locales.t(lang, f"sheet.{key}", **values)


def _section(lang: str, title: str, lines: list[str], bullet: str = "•") -> list[Section]:
    return (
        [Section(id=title, heading=_t(lang, f"section.{title}"), bullet=bullet, lines=lines)] if lines else []
    )


def _parsed(lang: str, a: SheetAnalysis) -> list[str]:
    parsed = a.parsed.model_dump()
    return [
        _t(lang, "field_line", field=_t(lang, f"field.{name}"), value=_shown(lang, name, parsed[name]))
        for name in SHOWN_FIELDS
        if parsed.get(name) is not None
    ]


def _shown(lang: str, name: str, value: Any) -> str:
    """A parsed value as a person says it: the card's name, not its id ("a100-80g-sxm" is
    "A100 80GB SXM"); a fabric or cooling by its label; a number grouped."""
    if name == "gpu_model":
        card = knowledge.load().gpus.get(value)
        return card_name(lang, card.name) if card is not None else str(value)
    if name == "interconnect":
        return locales.t(lang, f"label.{value}")
    if name == "cooling":
        return _t(lang, f"cooling.{value}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return locales.number(lang, value)
    return str(value)


def _numbers(lang: str, a: SheetAnalysis) -> list[str]:
    values = a.numbers.model_dump()
    return [
        _t(lang, f"number.{k}", value=v)
        for k, v in values.items()
        if v is not None and locales.has(lang, f"sheet.number.{k}") and not k.startswith("baseline")
    ]


def analysis_text(lang: str, a: SheetAnalysis) -> str:
    return analysis_card(lang, a).as_text()


def analysis_card(lang: str, a: SheetAnalysis) -> Content:
    if a.understood_fields == 0:
        return Content(summary=[_t(lang, "section.nothing_understood")])
    verdict = _t(
        lang, f"verdict.{a.verdict}", training_score=a.training_score, inference_score=a.inference_score
    )
    return Content(
        title=f"🧾 {_t(lang, 'section.verdict')}: {verdict}",
        summary=[_t(lang, "section.truncated", max_chars=20_000)] if a.truncated else [],
        sections=[
            *_section(lang, "parsed", _parsed(lang, a), "·"),
            *_section(lang, "signals", [_t(lang, f"signal.{s.id}", **s.values) for s in a.signals]),
            *_section(lang, "good_for", [_t(lang, f"good_for.{i}") for i in a.good_for]),
            *_section(lang, "bad_for", [_t(lang, f"bad_for.{i}") for i in a.bad_for]),
            *_section(lang, "fears", [_t(lang, f"fear.{i}") for i in a.fears]),
            *_section(lang, "stress_first", [_t(lang, f"stress.{i}") for i in a.stress_tests.first], "▶"),
            *_section(lang, "stress_second", [_t(lang, f"stress.{i}") for i in a.stress_tests.second], "▷"),
            *_section(lang, "questions", [_t(lang, f"question.{i}") for i in a.vendor_questions], "?"),
            *_section(lang, "pitfalls", [_t(lang, f"pitfall.{p.id}", **p.values) for p in a.pitfalls], "⚠"),
            *_section(lang, "numbers", _numbers(lang, a)),
            *_section(lang, "unparsed", a.unparsed_lines[:MAX_UNPARSED], "–"),
        ],
    )
