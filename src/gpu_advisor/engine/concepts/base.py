"""What every concept declaration shares: the ``Concept`` record and what the user asked.

A ``Concept`` names its id and the ``facts`` it cites — computed from ``knowledge/`` and
from what the user asked (``Asked``), so a changed datasheet or a named model changes the
answer. Its sentence is ``concept.<id>`` in ``locales/<lang>/concepts.yaml`` (or
``answers.yaml`` for the first six). How each question is heard (triggers, the example
questions it must hear, the question markers) is ``reading.concepts``: the engine keeps
the facts, the reading hears (issue 42).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpu_advisor.engine.architecture import find_model, resolve
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.specs import Knowledge, ModelArch
from gpu_advisor.engine.workload import Workload

Facts = dict[str, float | str]

TYPICAL_MODEL = "llama-3.1-8b"  # the size most people mean by "a 7B/8B" today (Llama 3.1 8B config)
TYPICAL_CONTEXT = 8192  # tokens: Llama 3's native window; a common serving setting
TYPICAL_USERS = 8  # concurrent conversations a small team's service sees
HEADROOM = 1.2  # weights may take ~80 % of a card; the rest is KV cache, activations and the runtime
GB = 1e9


@dataclass(frozen=True)
class Asked:
    """What the question itself carried (the message's slots): model, size, context, load, card,
    and the weight format and card memory a quantization question is about."""

    model: str | None = None
    params_b: float | None = None
    context_len: int | None = None
    concurrency: int | None = None
    gpu: str | None = None
    weight_dtype: str | None = None  # a format the question names ("4-bit", "int8", "AWQ")
    memory_gb: float | None = None  # a card's memory the question names ("fit on 48GB")


def model_of(kb: Knowledge, asked: Asked, typical: str = TYPICAL_MODEL) -> tuple[ModelArch, bool]:
    """The user's model (named, or a bare size given a template shape) and whether it is the typical one."""
    if asked.model is not None:
        named = find_model(asked.model, kb.models)
        if named is not None:
            return named, False
    if asked.params_b is not None:
        try:
            return resolve(Workload(task="infer", params_b=asked.params_b), kb.models).arch, False
        except (EngineError, ValueError):
            pass
    return kb.models[typical], True


def gpu_of(kb: Knowledge, asked: Asked, default: str) -> str:
    """The card the user named if the knowledge has it, else ``default``."""
    return asked.gpu if asked.gpu in kb.gpus else default


@dataclass(frozen=True)
class Concept:
    """One concept question's answer: the numbers the engine gives for it (``facts``).

    How the question is heard — its triggers and the example questions it must hear —
    lives in ``reading.concepts`` (issue 42: the engine keeps the facts, the reading hears).
    """

    id: str
    facts: Callable[[Knowledge, Asked], Facts]
