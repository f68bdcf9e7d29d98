"""The knowledge of the non-LLM job families, read and validated like the rest of ``knowledge/``.

Each family's file is one pydantic model of ``engine.jobs`` (``diffusion.yaml`` →
``DiffusionBook``); a file that does not validate raises ``KnowledgeError`` naming the file,
the entry and the field, at the first load, before any answer is given.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

from pydantic import ValidationError

from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.jobs.request import JobBooks
from gpu_advisor.knowledge.catalogs import parsed
from gpu_advisor.knowledge.job_speeds import load_jobs
from gpu_advisor.knowledge.reading import KnowledgeError, first_error

DIFFUSION_FILE = "diffusion.yaml"


def diffusion_from(data: Any, file: str = DIFFUSION_FILE) -> DiffusionBook:
    """``data`` (a parsed diffusion.yaml) validated; model ids become the keys of ``models``."""
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise KnowledgeError("expected a mapping with a list of models", file=file)
    models = {str(m.get("id")): m for m in data["models"] if isinstance(m, dict)}
    if len(models) != len(data["models"]):
        raise KnowledgeError("every model needs a unique id", file=file, field="models")
    try:
        book = DiffusionBook.model_validate({**data, "models": models})
    except ValidationError as exc:
        field, message = first_error(exc)
        raise KnowledgeError(message, file=file, field=field) from exc
    named = (
        {r.model for r in book.speeds}
        | {r.model for r in book.memory}
        | {r.model for r in book.training.rows}
    )
    unknown = sorted(named - book.models.keys())
    if unknown:
        raise KnowledgeError(f"rows name unknown models: {unknown}", file=file, field="speeds")
    return book


@lru_cache(maxsize=1)
def diffusion() -> DiffusionBook:
    """The shipped diffusion knowledge (image and video generation, image fine-tuning)."""
    text = resources.files(__package__).joinpath(DIFFUSION_FILE).read_text(encoding="utf-8")
    return diffusion_from(parsed(text, cache_from=0))


@lru_cache(maxsize=1)
def books() -> JobBooks:
    """Every job family's shipped knowledge, as ``engine.jobs.request.plan_job`` takes it."""
    return JobBooks(diffusion=diffusion(), light=load_jobs())
