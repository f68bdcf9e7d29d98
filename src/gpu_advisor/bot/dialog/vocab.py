"""The parser's vocabulary, built from the knowledge base (models and GPUs with aliases)."""

from __future__ import annotations

from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.requirements import Vocabulary


def vocabulary(kb: Knowledge) -> Vocabulary:
    return Vocabulary(
        models={m.id: list(m.aliases) for m in kb.models.values()},
        gpus={g.id: list(g.aliases) for g in kb.gpus.values()},
    )
