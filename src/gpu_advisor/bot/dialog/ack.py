"""The one short line that confirms what the user asked for, before the card.

"收到：推理 · Llama 2 13B · 30 路并发 · 7×24" — human words for each slot (never a
slot's internal label such as "参数量(B)"), the most telling first, joined with " · ".
An answer confirms the whole workload so far; a question confirms what the last
message added.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpu_advisor import locales

ORDER = ("task", "pretrain", "model", "params_b", "method", "train_tokens", "concurrency", "qps", "always_on")
SKIPPED = frozenset({"hf_config", "claims", "free_platform"})


def ack_line(lang: str, slots: Mapping[str, Any], label: Callable[[str, str, Any], str]) -> str:
    """Every understood slot in a few words; ``label`` words the slots without a short form."""
    keys = [k for k in ORDER if k in slots] + [k for k in slots if k not in ORDER and k not in SKIPPED]
    if slots.get("pretrain"):  # pretraining is never called a fine-tune
        keys = [k for k in keys if k != "method"]
    items = [_item(lang, k, slots[k], label) for k in keys]
    return locales.t(lang, "ack.line", items=" · ".join(i for i in items if i))


def is_ack(lang: str, line: str) -> bool:
    """True for a confirmation line (an answer replaces the question's with its own)."""
    return line.startswith(locales.t(lang, "ack.line", items=""))


def _item(lang: str, key: str, value: Any, label: Callable[[str, str, Any], str]) -> str:
    if key == "task" and locales.has(lang, f"value.task.{value}"):
        return locales.t(lang, f"value.task.{value}")
    if key == "model":
        return str(value)
    if key == "method" and locales.has(lang, f"value.method.{value}"):
        return locales.t(lang, f"value.method.{value}")
    if key == "pretrain":
        return locales.t(lang, "ack.pretrain") if value else ""
    if key == "deadline_hours":
        return locales.t(lang, "ack.deadline_days", days=round(float(value) / 24, 1))
    if key == "always_on":
        return locales.t(lang, "ack.always_on" if value else "ack.not_always_on")
    if key in ("concurrency", "qps", "duration_hours", "train_tokens", "params_b"):
        return locales.t(lang, f"ack.{key}", value=value)
    return label(lang, key, value)
