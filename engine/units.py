"""The one pint registry of the project.

pint costs tens of microseconds per operation, so public functions accept and return
quantities while hot loops strip them once (``to_magnitude``) and work on floats or
NumPy arrays.
"""

from __future__ import annotations

from typing import Any

import pint

ureg: pint.UnitRegistry[float] = pint.UnitRegistry(cache_folder=None)
ureg.define("token = [tokens]")
ureg.define("request = [requests]")
Q_ = ureg.Quantity
Quantity = pint.Quantity[float]

GiB = 1024**3
GB = 1e9


def to_magnitude(value: Any, unit: str) -> float:
    """Magnitude of ``value`` in ``unit``; a bare number is taken to be in ``unit`` already."""
    if isinstance(value, pint.Quantity):
        return float(value.to(unit).magnitude)
    return float(value)
