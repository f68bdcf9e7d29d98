"""``training_recipes.yaml``: each fine-tuning framework's defaults, validated at load.

Each row is an ``engine.train_recipes.TrainingRecipe`` (unknown keys refused, at least
one source); here the table is also held to the contract: every recipe a request may
name is present exactly once, so a name the contract accepts can never find no defaults.
"""

from __future__ import annotations

from typing import Any

from gpu_advisor.engine.train_recipes import RECIPES, TrainingRecipe
from gpu_advisor.knowledge.reading import KnowledgeError, record

FILE = "training_recipes.yaml"


def table(rows: list[Any]) -> dict[str, TrainingRecipe]:
    """The validated table by recipe id; a repeated or missing recipe is refused by name."""
    out: dict[str, TrainingRecipe] = {}
    for i, row in enumerate(rows):
        rec = record(TrainingRecipe, row, FILE, i)
        if rec.id in out:
            raise KnowledgeError(f"recipe {rec.id!r} appears twice", file=FILE, field=f"[{i}].id")
        out[rec.id] = rec
    missing = [r for r in RECIPES if r not in out]
    if missing:
        raise KnowledgeError(f"recipes without defaults: {missing}", file=FILE, field="id")
    return out
