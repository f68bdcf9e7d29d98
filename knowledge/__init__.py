"""The project's facts as data: GPUs, models, serving runtimes and the price catalog.

YAML files shipped inside this package, validated into ``engine.specs`` records at
load. An operator points ``GPU_ADVISOR_CATALOG`` (or ``load(catalog=...)``) at their own
price list; the rest of the knowledge stays as shipped.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from engine.specs import Catalog, GpuSpec, Knowledge, ModelArch, RuntimeProfile

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml_load(text: str) -> Any:
    """YAML through libyaml when it is available (ten times faster than the pure-Python parser)."""
    return yaml.load(text, Loader=_LOADER)


CATALOG_ENV = "GPU_ADVISOR_CATALOG"


class KnowledgeError(ValueError):
    """A knowledge file that does not parse or validate; the message names file and entry."""


def _read(name: str) -> Any:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return _yaml_load(text)


def read_catalog(path: str | Path) -> Catalog:
    """Load and validate an operator's catalog file (YAML)."""
    try:
        data = _yaml_load(Path(path).read_text(encoding="utf-8"))
        return Catalog.model_validate(data)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise KnowledgeError(f"catalog {path}: {exc}") from exc


def _records(name: str, cls: type[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, entry in enumerate(_read(name)):
        try:
            rec = cls.model_validate(entry)
        except ValidationError as exc:
            raise KnowledgeError(f"{name} entry {i} ({entry.get('id')}): {exc}") from exc
        out[rec.id] = rec
    return out


@lru_cache(maxsize=8)
def load(catalog: str | None = None) -> Knowledge:
    """All knowledge, validated. ``catalog`` (or $GPU_ADVISOR_CATALOG) replaces the default price list."""
    catalog = catalog or os.environ.get(CATALOG_ENV)
    cat = read_catalog(catalog) if catalog else Catalog.model_validate(_read("catalog.yaml"))
    try:
        return Knowledge(
            gpus=_records("gpus.yaml", GpuSpec),
            models=_records("models.yaml", ModelArch),
            runtimes=_records("runtimes.yaml", RuntimeProfile),
            catalog=cat,
        )
    except ValidationError as exc:
        raise KnowledgeError(str(exc)) from exc
