"""The public JSON contract's edges: parse a Workload, report errors that name a field.

Shared by the CLI (and later the HTTP API) so that every surface rejects bad input the
same way: a JSON error object naming each offending field, never a traceback.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.errors import EngineError
from engine.workload import MODEL_LEVEL_ERROR_FIELDS, Workload


class ContractError(Exception):
    """Input that does not satisfy the contract; ``payload`` is the JSON error body."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload.get("error", {}).get("message", "invalid input"))
        self.payload = payload


def _field_of(err: Any) -> str:
    loc = [str(p) for p in err.get("loc", ())]
    if loc:
        return ".".join(loc)
    return MODEL_LEVEL_ERROR_FIELDS.get(err.get("type", ""), "")


def validation_payload(exc: ValidationError) -> dict[str, Any]:
    errors = [
        {"field": _field_of(e), "type": e["type"], "message": e["msg"]}
        for e in exc.errors(include_url=False, include_context=False, include_input=False)
    ]
    first = errors[0] if errors else {"field": "", "message": "invalid input"}
    return {
        "error": {
            "code": "invalid_input",
            "field": first["field"],
            "message": first["message"],
            "errors": errors,
        }
    }


def engine_payload(exc: EngineError) -> dict[str, Any]:
    values = {k: v for k, v in exc.values.items() if isinstance(v, str | int | float)}
    message = f"{exc.code.replace('_', ' ')}: {values.get('name', '')}".strip(": ")
    return {"error": {"code": exc.code, "field": exc.field, "message": message, "values": values}}


def parse_workload(text: str) -> Workload:
    """Strictly parse a Workload from JSON text (no silent "4096" → 4096 coercion)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ContractError(
            {
                "error": {
                    "code": "invalid_json",
                    "field": None,
                    "message": f"not valid JSON: {exc.msg} at line {exc.lineno}",
                }
            }
        ) from exc
    if not isinstance(data, dict):
        raise ContractError(
            {"error": {"code": "invalid_json", "field": None, "message": "expected a JSON object"}}
        )
    try:
        return Workload.model_validate(data, strict=True)
    except ValidationError as exc:
        raise ContractError(validation_payload(exc)) from exc


def dump(model: BaseModel) -> str:
    return model.model_dump_json(indent=2)
