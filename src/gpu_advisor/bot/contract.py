"""The public JSON contract's edges: parse a Workload, report errors that name a field.

Shared by the CLI and the HTTP API so that every surface rejects bad input the same
way: the JSON error object of ``bot.errors`` naming each offending field, never a
traceback. Quantity fields may be numbers in the unit their name says or text with a
unit (``"context_len": "128k tokens"``, ``"duration_hours": "3 days"``,
``"budget": "3 USD/hour"``), parsed in ``engine.workload`` through ``engine.units``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from gpu_advisor.bot.errors import InputError, engine_payload, error_body, read_json_object
from gpu_advisor.engine.workload import MODEL_LEVEL_ERROR_FIELDS, Workload

ContractError = InputError  # the name the surfaces catch
EXIT_BAD_INPUT = 2
__all__ = [
    "EXIT_BAD_INPUT",
    "ContractError",
    "dump",
    "engine_payload",
    "parse_workload",
    "read_workload_source",
    "refuse",
    "validation_payload",
]


def read_workload_source(source: str) -> Workload:
    """The Workload JSON a command names (``-`` for stdin); an unreadable file is a ContractError."""
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise ContractError("unreadable_input", str(exc)) from exc
    return parse_workload(text)


def refuse(payload: dict[str, Any]) -> int:
    """Bad input on a command: the JSON error body on stdout, exit status 2."""
    print(json.dumps(payload, ensure_ascii=False, indent=2))
    return EXIT_BAD_INPUT


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
    return error_body("invalid_input", first["message"], first["field"], errors=errors)


def parse_workload(text: str, model_config: str | None = None) -> Workload:
    """Strictly parse a Workload from JSON text (no silent "4096" → 4096 coercion).

    ``model_config`` is the text of a Hugging Face ``config.json``; it becomes the
    workload's ``model_config`` (what ``gpu-advisor recommend --model-config FILE`` passes).
    """
    data = read_json_object(text)
    if model_config is not None:
        try:
            data["model_config"] = read_json_object(model_config)
        except InputError as exc:
            raise InputError(exc.payload["error"]["code"], f"--model-config: {exc}", "model_config") from exc
    try:
        return Workload.model_validate(data, strict=True)
    except ValidationError as exc:
        raise InputError.of(validation_payload(exc)) from exc


def dump(model: BaseModel) -> str:
    return model.model_dump_json(indent=2)
