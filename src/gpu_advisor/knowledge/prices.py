"""The reference price table (``prices.yaml``): purchase prices, API prices, host power, defaults.

Read once and validated like the rest of the knowledge; a row without a date or a
source is a load error naming the row. Kept apart from ``Knowledge`` because only the
money questions (``engine.quote``, ``engine.ownership``) read it.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from pydantic import ValidationError

from gpu_advisor.engine.reference import PriceReference
from gpu_advisor.knowledge.reading import KnowledgeError, first_error, yaml_load

FILE = "prices.yaml"


def parse(text: str) -> PriceReference:
    """A price table from YAML text; refusals name the file and field."""
    try:
        return PriceReference.model_validate(yaml_load(text))
    except ValidationError as exc:
        field, message = first_error(exc)
        raise KnowledgeError(message, file=FILE, field=field) from exc


@lru_cache(maxsize=1)
def reference() -> PriceReference:
    """The shipped reference table."""
    package = __package__ or "gpu_advisor.knowledge"
    return parse(resources.files(package).joinpath(FILE).read_text(encoding="utf-8"))
