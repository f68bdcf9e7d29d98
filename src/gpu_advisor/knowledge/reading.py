"""How knowledge files are read: YAML through libyaml, and errors that say where the bad value is.

Every refusal names the file, the entry (its ``id``, or its 1-based row in a catalog
upload) and the field, because the person who reads it has to find the line and fix it:
``gpus.yaml entry h100-sxm, field bandwidth_gbs: '80 GB' is not a quantity in GB/s``.
``payload`` is the same refusal as the JSON error body of the CLI and the HTTP API.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError


def yaml_load(text: str) -> Any:
    """YAML through libyaml when it is available (ten times faster than the pure-Python parser).

    PyYAML is imported here, on the first parse: a start whose files all come from the parse
    cache (``catalogs.parsed``) never loads it."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class KnowledgeError(ValueError):
    """A knowledge file that does not parse or validate; ``file``, ``entry`` and ``field`` say where."""

    code = "bad_knowledge"

    def __init__(
        self, message: str, *, file: str | None = None, entry: str | None = None, field: str | None = None
    ) -> None:
        parts = (file, entry and f"entry {entry}", field and f"field {field}")
        where = ", ".join(p for p in parts if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.file, self.entry, self.field, self.reason = file, entry, field, message

    @property
    def payload(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "field": self.field, "message": str(self), **self._where()}}

    def _where(self) -> dict[str, Any]:
        return {"file": self.file, "entry": self.entry}


class CatalogError(KnowledgeError):
    """A price catalog refused; ``row`` is the 1-based offer row, the caller keeps the catalog it had."""

    code = "bad_catalog"

    def __init__(
        self, message: str, field: str | None = None, row: int | None = None, *, file: str | None = None
    ) -> None:
        super().__init__(message, file=file, entry=f"row {row}" if row else None, field=field)
        self.row = row

    def __str__(self) -> str:  # rows are named in the message already ("row 3: price_month: …")
        return f"catalog {self.file}: {self.reason}" if self.file else self.reason

    def _where(self) -> dict[str, Any]:
        return {"row": self.row, **({"file": self.file} if self.file else {})}

    def in_file(self, file: str) -> CatalogError:
        return CatalogError(self.reason, self.field, self.row, file=file)


def first_error(exc: ValidationError) -> tuple[str | None, str]:
    """The field (dotted path) and message of a validation error's first complaint."""
    err = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    field = ".".join(str(p) for p in err["loc"]) or None
    return field, err["msg"].removeprefix("Value error, ")


def record(cls: type[BaseModel], entry: Any, file: str, index: int) -> Any:
    """One validated entry of ``file``; a refusal names the entry's id (or position) and field."""
    entry_id = str(entry.get("id")) if isinstance(entry, dict) and entry.get("id") else f"#{index + 1}"
    try:
        return cls.model_validate(entry)
    except ValidationError as exc:
        field, message = first_error(exc)
        raise KnowledgeError(message, file=file, entry=entry_id, field=field) from exc
