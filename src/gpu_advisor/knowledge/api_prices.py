"""The hosted-API reference prices (``api_prices.yaml``): per million tokens and per audio minute.

Read once and validated like the rest of the knowledge: a row without a date or a source
is a load error naming the row. Only the rent-versus-API answers read it
(``engine.api_compare``), so it stays apart from ``Knowledge``.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from pydantic import ValidationError

from gpu_advisor.engine.api_compare import ApiReference
from gpu_advisor.knowledge.reading import KnowledgeError, first_error, yaml_load

FILE = "api_prices.yaml"


def parse(text: str) -> ApiReference:
    """An API price table from YAML text; refusals name the file and field."""
    try:
        return ApiReference.model_validate(yaml_load(text))
    except ValidationError as exc:
        field, message = first_error(exc)
        raise KnowledgeError(message, file=FILE, field=field) from exc


@lru_cache(maxsize=1)
def api_reference() -> ApiReference:
    """The shipped table."""
    package = __package__ or "gpu_advisor.knowledge"
    return parse(resources.files(package).joinpath(FILE).read_text(encoding="utf-8"))
