"""The OpenAPI 3.1 document, built from the same pydantic models the handlers return.

Request bodies use each model's validation schema, responses its serialization
schema (``models_json_schema``), so the document cannot drift from the code; the
schemathesis test in ``tests/test_web_api.py`` holds the live server to it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, get_args, get_origin

import annotated_types
from aiohttp import web
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic.json_schema import models_json_schema

from gpu_advisor.bot.job_contract import JobAnswer, JobRequestBody
from gpu_advisor.bot.quote_call import QuoteRequest
from gpu_advisor.bot.web.errors import dumps
from gpu_advisor.bot.web.schemas import (
    AnalyzeRequest,
    CatalogUploaded,
    ChatRequest,
    ChatResponse,
    ErrorResponse,
    SessionRequest,
)
from gpu_advisor.engine.quote import QuoteVerdict
from gpu_advisor.engine.results import Estimate, Plan
from gpu_advisor.engine.sheet.models import SheetAnalysis
from gpu_advisor.engine.specs import Catalog
from gpu_advisor.engine.workload import Workload

REF = "#/components/schemas/{model}"
Mode = Literal["validation", "serialization"]
MODELS: tuple[tuple[type[BaseModel], Mode], ...] = (
    (Workload, "validation"),
    (ChatRequest, "validation"),
    (AnalyzeRequest, "validation"),
    (QuoteRequest, "validation"),
    (SessionRequest, "validation"),
    (JobRequestBody, "validation"),
    (ChatResponse, "serialization"),
    (Estimate, "serialization"),
    (Plan, "serialization"),
    (SheetAnalysis, "serialization"),
    (QuoteVerdict, "serialization"),
    (Catalog, "serialization"),
    (CatalogUploaded, "serialization"),
    (JobAnswer, "serialization"),
    (ErrorResponse, "serialization"),
)
ERRORS = {
    "401": "no bearer token",
    "403": "wrong token, admin disabled, or an origin not on the allow-list",
    "413": "body too large",
    "404": "nothing to show yet (no plan in this conversation)",
    "415": "unsupported content type",
    "422": "bad input; error.field names the field (error.row the catalog row)",
    "409": "duplicate: this message_id was answered already, by a server process that kept the reply",
    "429": "rate limited; see Retry-After",
    "503": "storage unavailable (disk full, read-only); see Retry-After",
}


def _json(ref: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": ref}}


def _operation(
    summary: str, body: dict[str, Any] | None, ok: dict[str, Any], errors: tuple[str, ...], error_ref: Any
) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": {"200": {"description": "OK", "content": ok}}}
    if body is not None:
        op["requestBody"] = {"required": True, "content": body}
    for status in errors:
        op["responses"][status] = {"description": ERRORS[status], "content": _json(error_ref)}
    return op


# A field read by ``engine.units.in_units`` publishes only "number or string": say its bounds too.
_UNITS_INPUT = {"anyOf": [{"type": "number"}, {"type": "string"}]}
_BOUNDS = {
    annotated_types.Gt: ("exclusiveMinimum", "gt"),
    annotated_types.Ge: ("minimum", "ge"),
    annotated_types.Lt: ("exclusiveMaximum", "lt"),
    annotated_types.Le: ("maximum", "le"),
}


def _parts(annotation: Any) -> list[Any]:
    """Every type and constraint inside ``annotation`` (through unions and Annotated)."""
    args = get_args(annotation)
    if not args:
        return [annotation]
    return [annotation, *(p for arg in args for p in _parts(arg))] if get_origin(annotation) else [annotation]


def _unit_number(field: FieldInfo) -> dict[str, Any]:
    """The number a unit field accepts, with the constraints its validators apply."""
    parts = _parts(field.annotation) + list(field.metadata)
    number: dict[str, Any] = {"type": "integer" if int in parts and float not in parts else "number"}
    for part in parts:
        for kind, (keyword, attribute) in _BOUNDS.items():
            if isinstance(part, kind):
                number[keyword] = getattr(part, attribute)
    return number


def _say_unit_bounds(model: type[BaseModel], schema: dict[str, Any]) -> None:
    properties = schema.get("properties", {})
    for name, field in model.model_fields.items():
        key = field.alias or name
        branches = properties.get(key, {}).get("anyOf", [])
        if branches != _UNITS_INPUT["anyOf"] and not any(
            b.get("anyOf") == _UNITS_INPUT["anyOf"] for b in branches if isinstance(b, dict)
        ):
            continue
        options: list[dict[str, Any]] = [_unit_number(field), {"type": "string", "minLength": 1}]
        if type(None) in _parts(field.annotation):
            options.append({"type": "null"})
        properties[key]["anyOf"] = options


# ChatRequest's validator wants exactly one of text and button, given and not null.
_ONE_OF_TEXT_OR_BUTTON = [
    {"required": ["text"], "properties": {"text": {"type": "string"}}},
    {"required": ["button"], "properties": {"button": {"type": "string"}}},
]


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    refs, schemas = models_json_schema(MODELS, ref_template=REF)
    defs = schemas.get("$defs", {})
    for model, mode in MODELS:
        if mode == "validation" and model.__name__ in defs:
            _say_unit_bounds(model, defs[model.__name__])
    defs[ChatRequest.__name__]["oneOf"] = _ONE_OF_TEXT_OR_BUTTON
    ref = {model: refs[(model, mode)] for model, mode in MODELS}
    err = ref[ErrorResponse]
    posted = ("403", "413", "422", "429")
    text = {"schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "GPU Advisor (算力选型助手) API",
            "version": "1",
            "description": "Which GPU server to rent, and why: chat, sizing and the operator's catalog.",
        },
        "paths": {
            "/api/chat": {
                "post": _operation(
                    "One chat turn",
                    _json(ref[ChatRequest]),
                    _json(ref[ChatResponse]),
                    (*posted, "409", "503"),  # 409: a message_id answered by another server process
                    err,
                )
            },
            "/api/estimate": {
                "post": _operation(
                    "Memory, fit and speed", _json(ref[Workload]), _json(ref[Estimate]), posted, err
                )
            },
            "/api/recommend": {
                "post": _operation("The catalog pick", _json(ref[Workload]), _json(ref[Plan]), posted, err)
            },
            "/api/analyze": {
                "post": _operation(
                    "Read a configuration sheet",
                    _json(ref[AnalyzeRequest]),
                    _json(ref[SheetAnalysis]),
                    posted,
                    err,
                )
            },
            "/api/quote": {
                "post": _operation(
                    "Judge a vendor's quote for a workload",
                    _json(ref[QuoteRequest]),
                    _json(ref[QuoteVerdict]),
                    posted,
                    err,
                )
            },
            "/api/job": {
                "post": {
                    **_operation(
                        "Size a GPU job that is not an LLM: image or video generation, image fine-tuning,"
                        " speech, embeddings, vision, video encoding (the request's family picks its fields)",
                        _json(ref[JobRequestBody]),
                        _json(ref[JobAnswer]),
                        posted,
                        err,
                    ),
                    "parameters": [
                        {
                            "name": "lang",
                            "in": "query",
                            "required": False,
                            "description": "the answer's language (default: Accept-Language, else zh)",
                            "schema": {"type": "string", "enum": ["zh", "en"]},
                        }
                    ],
                }
            },
            "/api/chat/chart": {
                "post": _operation(
                    "The conversation's plan as a chart",
                    _json(ref[SessionRequest]),
                    {"image/png": {"schema": {"type": "string", "contentMediaType": "image/png"}}},
                    ("404", "422", "429"),
                    err,
                )
            },
            "/api/chat/forget": {
                "post": {
                    **_operation(
                        "Start over: forget the conversation", _json(ref[SessionRequest]), {}, ("422",), err
                    ),
                    "responses": {
                        "204": {"description": "Forgotten"},
                        "422": {"description": ERRORS["422"], "content": _json(err)},
                    },
                }
            },
            "/api/catalog": {
                "get": _operation("The active catalog", None, _json(ref[Catalog]), ("403", "429"), err)
            },
            "/api/admin/catalog": {
                "put": {
                    **_operation(
                        "Replace the catalog (CSV or YAML)",
                        {"text/csv": text, "application/yaml": text},
                        _json(ref[CatalogUploaded]),
                        ("401", "403", "413", "415", "422", "429"),
                        err,
                    ),
                    "security": [{"bearerAuth": []}],
                }
            },
        },
        "components": {
            "schemas": schemas.get("$defs", {}),
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        },
    }


async def serve(request: web.Request) -> web.Response:
    return web.json_response(document(), dumps=dumps)
