"""Concept questions answered with the engine's own numbers: one declaration per concept.

Layout (the rule families' idea, ``engine/rules/__init__.py``, one hop apart): the
``Concept`` record and what the user asked (``Asked``) live in ``base``; the
declarations are grouped by what they are about — cards and links (``hardware``),
memory figures (``sizing``), the train-then-serve workflow (``workflow``) and seed
002's seven dimensions (``servers``). ``CONCEPTS`` orders them: a question heard by
several goes to the first, so the narrow ones (KV cache, PCIe vs SXM, a named card)
come before the broad ones (why keep training and serving apart). The myths
(``engine.rules.myths``) answer the myth questions themselves and are not repeated here.
"""

from __future__ import annotations

import re

from gpu_advisor.engine.concepts import hardware, servers, sizing, workflow
from gpu_advisor.engine.concepts.base import QUESTION, Asked, Concept, Facts, fold

__all__ = ["BY_ID", "CONCEPTS", "Asked", "Concept", "Facts", "asks", "find"]

_ORDER = (
    "kv_cache_meaning",
    "kv_cache_size",
    "pcie_vs_sxm_training",
    "t4_or_3090_for_serving",
    "keep_training_box",
    "train_to_serve",
    "t4_training",
    "multi_card_training",
    "memory_breakdown",
    "lora_vs_qlora",
    "memory_needed",
    "precision_choice",
    "slow_inference_cause",
    "serving_stack",
    "nvlink_for_inference",
    "cpu_role",
    "network_and_storage",
    "business_model",
    "split_budget",
    "seven_dimensions",
    "train_and_serve_apart",
)
BY_ID: dict[str, Concept] = {
    c.id: c for group in (hardware, sizing, workflow, servers) for c in group.CONCEPTS
}
CONCEPTS: tuple[Concept, ...] = tuple(BY_ID[i] for i in _ORDER)
if set(_ORDER) != set(BY_ID):
    raise ValueError(f"concepts declared but not ordered: {sorted(set(BY_ID) - set(_ORDER))}")
_ASKED = re.compile(QUESTION)


def asks(text: str) -> bool:
    """Whether a normalised message is phrased as a question (a concept answers only questions)."""
    return _ASKED.search(fold(text)) is not None


def find(text: str) -> Concept | None:
    """The concept a normalised question asks about, or None (first in ``CONCEPTS`` wins)."""
    text = fold(text)
    if _ASKED.search(text) is None:
        return None
    return next((c for c in CONCEPTS if c.heard_in(text)), None)
