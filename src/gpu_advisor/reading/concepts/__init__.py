"""Concept questions as heard: which concept, if any, a normalised question asks.

The engine answers each concept with its own numbers (``engine.concepts``: the facts);
here is how the question is heard (issue 42): one trigger table per group of concepts
(``hardware``, ``sizing``, ``workflow``, ``servers``), the example questions each must hear,
and :data:`ORDER` — a question heard by several goes to the first, so the narrow ones (KV
cache, PCIe vs SXM, a named card) come before the broad ones (why keep training and
serving apart). The myths answer the myth questions themselves (``reading.claims``).
"""

from __future__ import annotations

import re

from gpu_advisor.reading.concepts import hardware, servers, sizing, workflow
from gpu_advisor.reading.concepts.sizing import memory_named
from gpu_advisor.reading.concepts.words import QUESTION
from gpu_advisor.text.hanzi import simplified
from gpu_advisor.text.lazy import lazy

__all__ = ["EXAMPLES", "ORDER", "TRIGGERS", "asks", "find", "fold", "heard_in", "memory_named"]

ORDER = (
    "kv_cache_meaning",
    "kv_cache_size",
    "pcie_vs_sxm_training",
    "t4_or_3090_for_serving",
    "keep_training_box",
    "train_to_serve",
    "t4_training",
    "mig_slices",
    "multi_card_training",
    "quantized_fit",
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
_GROUPS = (hardware, sizing, workflow, servers)
TRIGGERS: dict[str, tuple[str, ...]] = {k: v for g in _GROUPS for k, v in g.TRIGGERS.items()}
EXAMPLES: dict[str, tuple[str, ...]] = {k: v for g in _GROUPS for k, v in g.EXAMPLES.items()}
if set(ORDER) != set(TRIGGERS) or set(TRIGGERS) != set(EXAMPLES):
    raise ValueError("every concept is ordered, heard and exemplified once")
if not all(EXAMPLES.values()):
    raise ValueError("a concept needs at least one example question")
_ASKED = lazy(QUESTION)
_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    cid: tuple(lazy(t) for t in TRIGGERS[cid]) for cid in ORDER
}


def fold(text: str) -> str:
    """``text`` in Simplified, by the one Traditional table (``text.hanzi``) every reader uses."""
    return simplified(text)


def asks(text: str) -> bool:
    """Whether a normalised message is phrased as a question (a concept answers only questions)."""
    return _ASKED.search(fold(text)) is not None


def heard_in(concept_id: str, text: str) -> bool:
    """Whether a normalised (and folded) message asks this concept's question."""
    return any(p.search(text) for p in _PATTERNS[concept_id])


def find(text: str) -> str | None:
    """The id of the concept a normalised question asks about, or None (first in ``ORDER`` wins)."""
    text = fold(text)
    if _ASKED.search(text) is None:
        return None
    return next((cid for cid in ORDER if heard_in(cid, text)), None)
