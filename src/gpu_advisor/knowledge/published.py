"""``checkpoints.yaml``: the published weights launch commands name, validated at load.

Each row is an ``engine.checkpoints.Checkpoint`` (its source must be the repository's own
Hugging Face page); here the table is also held against ``models.yaml``, so a row for a model
the engine does not know is refused by name rather than never used.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from gpu_advisor.engine.checkpoints import Checkpoint, Checkpoints
from gpu_advisor.knowledge.reading import KnowledgeError, record

FILE = "checkpoints.yaml"


def table(rows: list[Any], models: Container[str]) -> Checkpoints:
    """The validated table; a row naming an unknown model, or a second row of a kind, is refused."""
    parsed = [record(Checkpoint, row, FILE, i) for i, row in enumerate(rows)]
    for i, row in enumerate(parsed):
        if row.model not in models:
            raise KnowledgeError(f"unknown model {row.model!r}", file=FILE, field=f"[{i}].model")
    try:
        return Checkpoints(rows=tuple(parsed))
    except ValueError as exc:
        raise KnowledgeError(str(exc), file=FILE, field="rows") from exc
