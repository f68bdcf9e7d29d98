"""One error vocabulary for every JSON surface: the CLI's exit-2 body and the HTTP API's 4xx bodies.

``{"error": {"code": "invalid_input", "field": "context_len", "message": "…", …}}`` —
``code`` is for programs (stable, snake_case), ``field`` names the offending input (null
when the whole input is wrong), ``message`` is for the person reading it. Extras are
added, never renamed: ``errors`` (every field a validation refused), ``values`` (an
engine refusal's numbers), ``row``/``file``/``entry`` (where in a catalog or knowledge
file), ``retry_after`` (seconds, for 429 and 503). ``ErrorResponse`` is the model the
OpenAPI document publishes; ``InputError`` carries a body from where input is refused to
the surface that prints or sends it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from gpu_advisor.engine.errors import EngineError
from gpu_advisor.knowledge.reading import KnowledgeError


class FieldError(BaseModel):
    field: str
    type: str
    message: str


class ErrorDetail(BaseModel):
    code: str
    field: str | None
    message: str
    errors: list[FieldError] | None = None
    values: dict[str, Any] | None = None
    row: int | None = Field(None, description="1-based offer row of a rejected catalog")
    file: str | None = Field(None, description="the knowledge or catalog file refused")
    entry: str | None = Field(None, description="the refused entry's id in that file")
    retry_after: int | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail


def error_body(code: str, message: str, field: str | None = None, **extra: Any) -> dict[str, Any]:
    """The JSON error object; ``field`` is always present (null when no one field is at fault)."""
    return {"error": {"code": code, "field": field, "message": message, **extra}}


class InputError(Exception):
    """Input refused at a surface's edge; ``payload`` is the body to print or send."""

    def __init__(self, code: str, message: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.payload = error_body(code, message, field, **extra)

    @classmethod
    def of(cls, payload: dict[str, Any]) -> InputError:
        detail = dict(payload["error"])
        return cls(detail.pop("code"), detail.pop("message"), detail.pop("field", None), **detail)


MAX_JSON_DEPTH = 64  # a config.json nests three or four deep; Python's parser gives up near 1,000
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_json_object(text: str) -> dict[str, Any]:
    """A JSON object from request text, or ``InputError("invalid_json")`` saying where it broke.

    Also refused: nesting deeper than ``MAX_JSON_DEPTH``, an integer of more digits than Python
    converts (4,300). Lone surrogates (``"\\ud800"``, valid JSON, not encodable text) become
    U+FFFD, so no reply that echoes them fails to encode.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("invalid_json", f"not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    except RecursionError:
        raise InputError("invalid_json", f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # int("9" * 5000): "Exceeds the limit (4300 digits)…"
        raise InputError("invalid_json", f"a number in the JSON is too long: {str(exc)[:80]}") from None
    if not isinstance(data, dict):
        raise InputError("invalid_json", "expected a JSON object")
    return _cleaned(data, 0)  # type: ignore[no-any-return]


def _cleaned(value: Any, depth: int) -> Any:
    """The same JSON value, lone surrogates replaced; InputError past ``MAX_JSON_DEPTH``."""
    if depth > MAX_JSON_DEPTH:
        raise InputError("invalid_json", f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_SURROGATE.sub("\ufffd", k): _cleaned(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleaned(v, depth + 1) for v in value]
    return value


def engine_payload(exc: EngineError) -> dict[str, Any]:
    """An engine refusal (unknown model, nothing fits…) with its numbers under ``values``."""
    values = {k: v for k, v in exc.values.items() if isinstance(v, str | int | float)}
    message = f"{exc.code.replace('_', ' ')}: {values.get('name', '')}".strip(": ")
    return error_body(exc.code, message, exc.field, values=values)


def refusal(exc: InputError | EngineError | KnowledgeError) -> dict[str, Any]:
    """The body for any refusal raised below a surface: bad input, an engine refusal, a bad catalog."""
    return engine_payload(exc) if isinstance(exc, EngineError) else exc.payload
