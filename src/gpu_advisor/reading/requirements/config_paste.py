"""A Hugging Face config.json pasted into a chat message, handed on as the model itself.

People who run a model we do not list often have its ``config.json`` at hand; pasted
into chat, it sizes the model exactly (``engine.model_config`` turns it into a
ModelArch). It is found by its braces: from the first "{" to the last "}" of the
message, parsed with ``json.loads`` only when that span is at most
:data:`MAX_CONFIG_CHARS` long (a real config is 1-5 KB), and taken only when it is a
JSON object with a config's keys and the engine accepts its shape. The span is then
blanked so its numbers ("hidden_size": 4096) are not read as a context or a budget.
"""

from __future__ import annotations

import json
from typing import Any

from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.model_config import arch_from_config

MAX_CONFIG_CHARS = 16_000
"""Longest pasted config.json that is parsed; larger spans are reported, not read."""

_CONFIG_KEYS = ("num_hidden_layers", "architectures", "hidden_size", "model_type", "text_config")


def find_config(text: str) -> tuple[int, int] | None:
    """The span from the first "{" to the last "}" when it names a config key, else None."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    span = text[start : end + 1]
    return (start, end + 1) if any(f'"{name}"' in span for name in _CONFIG_KEYS) else None


def parse_config(span: str) -> dict[str, Any] | None:
    """The config as a dict when it is small, valid JSON, an object, and a shape we can size."""
    if len(span) > MAX_CONFIG_CHARS:
        return None
    try:
        config = json.loads(span)
    except (ValueError, RecursionError):
        return None
    if not isinstance(config, dict):
        return None
    try:
        arch_from_config(config)
    except (EngineError, ValueError, TypeError, KeyError):
        return None
    return config
