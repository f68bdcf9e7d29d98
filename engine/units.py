"""The one pint registry of the project, created on first use.

pint costs tens of microseconds per operation, so public functions accept and return
quantities while hot loops strip them once (``to_magnitude``) and work on floats.
Building the registry takes most of a second, so it is built lazily: a CLI call or a
chat reply that never touches a quantity never pays for it (``from engine.units import
ureg`` still works, through the module's ``__getattr__``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pint

    Quantity = pint.Quantity[float]

GiB = 1024**3
GB = 1e9


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


def __getattr__(name: str) -> Any:
    if name == "ureg":
        return registry()
    if name == "Quantity":
        import pint

        return pint.Quantity
    raise AttributeError(name)
