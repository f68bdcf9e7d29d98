"""The one pint registry of the project, created on first use, and quantities at the boundaries.

pint costs tens of microseconds per operation, so public functions accept and return
quantities while hot loops strip them once (``to_magnitude``) and work on floats.
Building the registry takes most of a second (and imports numpy), so it is built
lazily: a CLI call or a chat reply that never touches a quantity never pays for it
(``from engine.units import ureg`` still works, through the module's ``__getattr__``).

At the boundaries — knowledge YAML and the JSON contract — a quantity may be written
with its unit as a vendor prints it (``"3.35 TB/s"``, ``"80 GB"``, ``"128k tokens"``).
``in_units("GB/s")`` is the pydantic half of that: an ``Annotated`` marker that turns
the text into the field's canonical magnitude (a bare number is taken to be in that
unit already), and refuses a quantity of the wrong kind (``"80 GB"`` for a bandwidth).
pint is the judge of every spelling. The few spellings the shipped files use are
memoised in ``SPELLINGS`` (each row checked against pint by tests/test_units.py) so that
loading the knowledge for a one-shot ``gpu-advisor ask`` does not build the registry;
any other spelling goes to pint itself.
"""

from __future__ import annotations

import re
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

from pydantic import BeforeValidator

if TYPE_CHECKING:
    import pint

    Quantity = pint.Quantity[float]

GiB = 1024**3
GB = 1e9

# spelling -> (pint base it converts to, factor). Only exact spellings; pint answers the rest.
SPELLINGS: dict[str, tuple[str, float]] = {
    **{f"{p}B": ("byte", f) for p, f in (("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12))},
    **{f"{p}iB": ("byte", float(1024**n)) for n, p in enumerate(("K", "M", "G", "T"), start=1)},
    **{f"{p}B/s": ("byte / second", f) for p, f in (("M", 1e6), ("G", 1e9), ("T", 1e12))},
    **{f"{p}bit/s": ("byte / second", f / 8) for p, f in (("M", 1e6), ("G", 1e9), ("T", 1e12))},
    "W": ("watt", 1.0),
    "kW": ("watt", 1e3),
    "ms": ("second", 1e-3),
    "s": ("second", 1.0),
    "h": ("second", 3600.0),
    "hour": ("second", 3600.0),
    "hours": ("second", 3600.0),
    "day": ("second", 86400.0),
    "days": ("second", 86400.0),
    "token": ("token", 1.0),
    "tokens": ("token", 1.0),
}
# "128k tokens", "7B": the count suffixes people write in front of a unit (not pint's prefixes).
_NUMBER = re.compile(
    r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"  # the number
    r"\s*(?:([kKMB])(?=\s|$))?"  # a count suffix: 128k, 7B
    r"\s*(.*?)\s*$"  # the unit
)
_COUNT = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry[float]:
    import pint

    reg: pint.UnitRegistry[float] = pint.UnitRegistry(cache_folder=None)
    reg.define("token = [tokens]")
    reg.define("request = [requests]")
    return reg


def Q_(value: float, unit: str) -> Quantity:
    return registry().Quantity(value, unit)


def to_magnitude(value: Any, unit: str) -> float:
    """Magnitude of ``value`` in ``unit``; a bare number is taken to be in ``unit`` already."""
    if hasattr(value, "to") and hasattr(value, "magnitude"):
        return float(value.to(unit).magnitude)
    return float(value)


def split(text: str) -> tuple[float, str]:
    """``"128k tokens"`` → ``(128000.0, "tokens")``: the number (count suffix applied) and the unit."""
    match = _NUMBER.match(text)
    if match is None:
        raise ValueError(f"{text!r} does not start with a number; write e.g. '80 GB' or '3.35 TB/s'")
    number, count, unit = match.groups()
    return float(number) * _COUNT.get(count or "", 1.0), unit


def split_or_none(text: str) -> tuple[float | None, str]:
    """``split`` that answers ``(None, "")`` for text that does not start with a number."""
    try:
        return split(text)
    except ValueError:
        return None, ""


def magnitude(text: str, unit: str) -> float:
    """The magnitude of quantity ``text`` in ``unit``; a ``ValueError`` names what is wrong."""
    number, spelled = split(text)
    if not spelled:
        raise ValueError(f"{text!r} has no unit; write a number, or a number with its unit ({unit})")
    if spelled == unit:
        return number
    known, target = SPELLINGS.get(spelled), SPELLINGS.get(unit)
    if known and target:
        if known[0] != target[0]:
            raise ValueError(f"{text!r} is not a quantity in {unit} ({spelled!r} measures {known[0]})")
        return number * (known[1] / target[1])
    return _through_pint(number, spelled, unit, text)


_MAX_UNIT_CHARS = 40


def _through_pint(number: float, spelled: str, unit: str, text: str) -> float:
    """Ask pint about a spelling the table does not know.

    The spelling may come from anyone (a JSON contract field), and pint parses unit
    expressions with Python's tokenizer, which raises its own errors on unbalanced
    brackets (``"1 ("`` → ``TokenError``) and others besides; every failure here is the
    caller's unreadable unit, never a server error, and long spellings are refused
    before pint reads them.
    """
    import pint

    unknown = f"{text!r}: unknown unit {spelled!r}; expected a quantity in {unit}"
    if len(spelled) > _MAX_UNIT_CHARS:
        raise ValueError(unknown)
    try:
        return float(registry().Quantity(number, spelled).to(unit).magnitude)
    except pint.DimensionalityError:
        raise ValueError(
            f"{text!r} is not a quantity in {unit} ({spelled!r} measures something else)"
        ) from None
    except Exception:  # any parse failure of untrusted text is an unknown unit
        raise ValueError(unknown) from None


def per_hour(unit: str) -> float:
    """Hours in one ``unit`` of time (``"day"`` → 24): a rate per ``unit`` divided by this is per hour."""
    return magnitude(f"1 {unit}", "h")


def _coerce(value: Any, unit: str) -> Any:
    """Text with a unit becomes the canonical magnitude (an int when whole).

    Anything else passes on unchanged for the field's own type to judge: a number, and
    text without a unit — a CSV cell ``"720"`` (read as a number in lax validation) or a
    JSON string ``"4096"`` (refused by the contract's strict validation, as before).
    """
    if not isinstance(value, str) or not split_or_none(value)[1]:
        return value
    result = magnitude(value, unit)
    return int(result) if result.is_integer() else result


def in_units(unit: str) -> BeforeValidator:
    """``Annotated[PositiveFloat, in_units("GB/s")]``: a number in GB/s, or text such as ``"3.35 TB/s"``."""
    return BeforeValidator(partial(_coerce, unit=unit), json_schema_input_type=float | str)


def __getattr__(name: str) -> Any:
    if name == "ureg":
        return registry()
    if name == "Quantity":
        import pint

        return pint.Quantity
    raise AttributeError(name)
