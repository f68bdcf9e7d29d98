"""One understood slot in the user's words, for the confirmation line and the notes."""

from __future__ import annotations

from typing import Any

from gpu_advisor import locales

_SAID_BY_NAME = frozenset({"domestic_only"})  # "只用国产卡", not "只用国产卡 是"


def label_slot(lang: str, key: str, value: Any) -> str:
    """ "任务：训练" / "budget: ¥10,000 a month" — one understood slot, for the echo line."""
    name = locales.t(lang, f"slot.{key}")
    if value is True and key in _SAID_BY_NAME:
        return name
    return locales.t(lang, "dialog.slot", name=name, value=slot_value(lang, key, value))


def slot_value(lang: str, key: str, value: Any) -> str:
    """A slot's value as people write it: money with its period, flags as words, big numbers short."""
    if isinstance(value, dict) and "amount" in value:
        return locales.t(
            lang,
            f"value.per.{value.get('per', 'month')}",
            amount=locales.money(lang, value["amount"], value.get("currency", "CNY")),
        )
    if isinstance(value, bool):
        flag = f"value.{key}.{str(value).lower()}"
        return locales.t(lang, flag if locales.has(lang, flag) else ("common.yes" if value else "common.no"))
    if isinstance(value, str) and locales.has(lang, f"value.{key}.{value}"):
        return locales.t(lang, f"value.{key}.{value}")
    if isinstance(value, list):
        words = [
            locales.t(lang, f"value.{key}.{v}") if locales.has(lang, f"value.{key}.{v}") else str(v)
            for v in value
        ]
        return ("、" if lang == "zh" else ", ").join(words)
    if isinstance(value, float | int) and key.startswith(("ttft_ms", "tpot_ms")):
        return f"{locales.number(lang, value)} ms"  # a latency target says its unit
    if isinstance(value, float | int):
        return locales.big(lang, value) if value >= 1e5 else locales.number(lang, value)
    return str(value)
