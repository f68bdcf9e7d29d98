"""Every user-visible sentence, in Simplified Chinese and English.

Text lives in ``locales/<lang>/*.yaml`` as nested mappings flattened to dotted keys
(``finding.kv_cache_dominates``); both languages carry the same keys (a test checks).
Templates use ``str.format`` fields with project-specific format specs so that numbers
and money read naturally in each locale (Babel does the locale work):

- ``{amount:money}`` in the currency of ``amount_currency`` if given, else of ``currency``
  (default CNY): ¥2,800 / CN¥2,800 / US$540 — a finding comparing prices from two
  offers gives the other offer's amount its own ``<name>_currency``
- ``{x:n}`` / ``{x:n1}`` / ``{x:n0}`` grouped decimal with up to 2 / exactly 1 / 0 digits
- ``{x:pct}`` a fraction shown as a percentage; ``{x:big}`` 2.0e8 → 2亿 / 200M
- ``{x:yesno}`` a boolean; ``{x:list}`` a list joined per locale (``{x:label}`` labels each item)
- ``{x:label}`` an engine enum value (``full``, ``nvswitch``, ``all_linear``) by ``label.<value>``
- ``{x:plural:one=# replica|other=# replicas}`` the form for ``x``'s CLDR plural category
  (Babel), ``#`` standing for the number: "1 replica", "3 replicas" (ICU's plural, inline)

A missing value renders as "?" rather than failing: a wrong template must never take
the bot down mid-conversation (tests check that every template renders).
"""

from __future__ import annotations

import logging
import string
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from gpu_advisor.knowledge.catalogs import parsed
from gpu_advisor.locales.numbers import Real, big, is_number, money, number, percent, plural_form

__all__ = ["LANGS", "big", "has", "messages", "money", "number", "percent", "render_finding", "t"]


def _yaml_load(text: str) -> Any:
    """A locale file as data, through the parse cache of ``knowledge.catalogs.parsed`` (PyYAML
    takes about 8 ms for one language's files, their cached JSON well under one)."""
    return parsed(text, cache_from=0)


log = logging.getLogger(__name__)
LANGS = ("zh", "en")
_DIRS = {"zh": "zh-CN", "en": "en"}


def _flatten(prefix: str, node: Any, out: dict[str, str]) -> None:
    if isinstance(node, Mapping):
        for k, v in node.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = str(node)


@lru_cache(maxsize=4)
def messages(lang: str) -> dict[str, str]:
    """All templates of ``lang``, flattened."""
    out: dict[str, str] = {}
    folder = resources.files(__package__).joinpath(_DIRS[lang])
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".yaml"):
            _flatten("", _yaml_load(entry.read_text(encoding="utf-8")) or {}, out)
    return out


class _Formatter(string.Formatter):
    def __init__(self, lang: str, values: Mapping[str, Any]) -> None:
        self.lang = lang
        self.values = values
        self.key = ""

    def get_value(self, key: int | str, args: Any, kwargs: Mapping[str, Any]) -> Any:
        value = kwargs.get(str(key))
        self.key = str(key)  # for ``money``: an amount may carry its own ``<key>_currency``
        return "?" if value is None else value

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, bool) and format_spec == "yesno":
            return messages(self.lang).get("common.yes" if value else "common.no", str(value))
        if isinstance(value, str) and format_spec == "label":
            return messages(self.lang).get(f"label.{value}", value)
        if isinstance(value, list):
            items = [self.format_field(v, format_spec) if format_spec == "label" else str(v) for v in value]
            return ("、" if self.lang == "zh" else ", ").join(items)
        if format_spec.startswith("plural:") and is_number(value):
            return self._plural(value, format_spec.removeprefix("plural:"))
        if not is_number(value):
            return str(value)
        return self._number(value, format_spec)

    def _plural(self, value: Real, forms: str) -> str:
        """The ``one=…|other=…`` form that fits ``value``; ``other`` when its category has none."""
        by_category = dict(form.split("=", 1) for form in forms.split("|") if "=" in form)
        text = by_category.get(plural_form(self.lang, value), by_category.get("other", "#"))
        return text.replace("#", number(self.lang, value))

    def _number(self, value: Real, spec: str) -> str:
        if spec == "money":
            own = self.values.get(f"{self.key}_currency")
            return money(self.lang, value, str(own or self.values.get("currency") or "CNY"))
        if spec == "pct":
            return percent(self.lang, value)
        if spec == "big":
            return big(self.lang, value)
        patterns = {"n": "#,##0.##", "n1": "#,##0.0", "n0": "#,##0", "": "#,##0.##"}
        if spec in patterns:
            return number(self.lang, value, patterns[spec])
        try:
            return format(value, spec)
        except (ValueError, ArithmeticError):  # e.g. "{x:.1f}" with an int beyond float range
            return number(self.lang, value)


def t(lang: str, key: str, /, **values: Any) -> str:
    """The template ``key`` in ``lang`` filled with ``values`` (the key itself if it is missing)."""
    template = messages(lang).get(key)
    if template is None:
        return key
    try:
        return _Formatter(lang, values).vformat(template, (), values)
    except (ValueError, IndexError, AttributeError, ArithmeticError):
        log.warning("template %s/%s failed to render", lang, key, exc_info=True)
        return template


def has(lang: str, key: str) -> bool:
    return key in messages(lang)


def render_finding(lang: str, finding_id: str, values: Mapping[str, Any]) -> str:
    """A finding's sentence; unknown ids fall back to a generic line that still shows the numbers.

    Where some values are None (nothing to compare against, no target given) and a
    ``<id>_none`` template exists, that wording is used instead of printing "?". A runtime is
    said by its name in ``lang`` (``names.runtime_name``): the engine passes the catalogue's.
    """
    key = f"finding.{finding_id}"
    if isinstance(values.get("runtime"), str):
        from gpu_advisor.locales.names import runtime_name  # names reads this module's t

        values = {**values, "runtime": runtime_name(lang, values["runtime"])}
    if any(v is None for v in values.values()) and has(lang, f"{key}_none"):
        return t(lang, f"{key}_none", **values)
    if has(lang, key):
        return t(lang, key, **values)
    shown = ", ".join(f"{k}={v}" for k, v in values.items() if v is not None)
    return t(lang, "finding._generic", id=finding_id, values=shown)
