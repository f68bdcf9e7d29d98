"""Errors that name the offending field, so every surface can say what to fix."""

from __future__ import annotations

import functools


class EngineError(ValueError):
    """A request the engine cannot size; ``field`` names the Workload field at fault."""

    def __init__(self, code: str, field: str | None, **values: object) -> None:
        super().__init__(f"{code}: {field}: {values}")
        self.code = code
        self.field = field
        self.values = values

    def __reduce__(self) -> tuple[functools.partial[EngineError], tuple[()]]:
        """Rebuilt with its code, field and values: it crosses a worker-process boundary intact."""
        return (functools.partial(type(self), self.code, self.field, **self.values), ())

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "field": self.field, "values": self.values}
