"""The project's facts as data: GPUs, models, serving runtimes and the price catalog.

YAML files shipped inside this package, validated into ``engine.specs`` records at
load; quantities are written with their units (``bandwidth_gbs: 3.35 TB/s``) and parsed
through pint (``engine.units.in_units``). An operator points ``GPU_ADVISOR_CATALOG`` (or
``load(catalog=...)``) at their own price list, YAML or CSV, read by
``knowledge.catalogs`` as every surface reads it; the rest of the knowledge stays as shipped.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from typing import Any

from pydantic import ValidationError

from gpu_advisor.engine.specs import Catalog, GpuSpec, Knowledge, ModelArch, NodeBaseline, RuntimeProfile
from gpu_advisor.knowledge import catalogs, published, training_recipes
from gpu_advisor.knowledge.reading import CatalogError, KnowledgeError, first_error, record

__all__ = ["CATALOG_ENV", "CatalogError", "KnowledgeError", "catalogs", "load", "reload"]

CATALOG_ENV = "GPU_ADVISOR_CATALOG"


def _read(name: str) -> Any:
    """A shipped file as data, through the parse cache of ``catalogs.parsed``: PyYAML takes
    about 35 ms for the files every start reads, their cached JSON 2 ms; still validated."""
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return catalogs.parsed(text, cache_from=0)


def _records(name: str, cls: type[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, entry in enumerate(_read(name)):
        rec = record(cls, entry, name, i)
        out[rec.id] = rec
    return out


@lru_cache(maxsize=1)
def _shipped() -> Knowledge:
    try:
        models = _records("models.yaml", ModelArch)
        return Knowledge(
            gpus=_records("gpus.yaml", GpuSpec),
            models=models,
            runtimes=_records("runtimes.yaml", RuntimeProfile),
            catalog=Catalog.model_validate(_read("catalog.yaml")),
            node_baseline=NodeBaseline.model_validate(_read("node_baseline.yaml")),
            checkpoints=published.table(_read(published.FILE), models),
            training_recipes=training_recipes.table(_read(training_recipes.FILE)),
        )
    except ValidationError as exc:
        field, message = first_error(exc)
        raise KnowledgeError(message, file="catalog.yaml", field=field) from exc


@lru_cache(maxsize=8)
def load(catalog: str | None = None) -> Knowledge:
    """All knowledge, validated. ``catalog`` (or $GPU_ADVISOR_CATALOG) replaces the default price list."""
    catalog = catalog or os.environ.get(CATALOG_ENV)
    kb = _shipped()
    return catalogs.with_catalog(kb, catalogs.read_file(catalog, kb)) if catalog else kb


def reload(catalog: str | None = None) -> Knowledge:
    """The knowledge with the operator's catalog read again (it may have changed on disk)."""
    load.cache_clear()
    return load(catalog)
