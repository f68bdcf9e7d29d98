"""The parser's vocabulary, built from the knowledge base (models and GPUs with aliases)."""

from __future__ import annotations

from collections import defaultdict

from gpu_advisor.engine.specs import GpuSpec, Knowledge
from gpu_advisor.reading.requirements import Vocabulary


def vocabulary(kb: Knowledge) -> Vocabulary:
    return Vocabulary(
        models={m.id: list(m.aliases) for m in kb.models.values()},
        gpus={g.id: list(g.aliases) for g in kb.gpus.values()},
        variants=variants(kb.gpus.values()),
    )


def variants(gpus: object) -> dict[tuple[str, str], str]:
    """(card, form) → its sibling of that form: the same chip family and memory, another form
    factor (A100 40GB SXM4 ↔ A100 40GB PCIe, H100 SXM ↔ H100 PCIe)."""
    families: dict[tuple[str, float], list[GpuSpec]] = defaultdict(list)
    for gpu in gpus:  # type: ignore[attr-defined]
        families[(gpu.id.split("-", 1)[0], gpu.memory_gb)].append(gpu)
    out: dict[tuple[str, str], str] = {}
    for members in families.values():
        for gpu in members:
            for other in members:
                if other.form_factor != gpu.form_factor:
                    out.setdefault((gpu.id, other.form_factor), other.id)
    return out
