"""What every concept declaration shares: the ``Concept`` record, what the user asked, the words.

A ``Concept`` names its id, the ``triggers`` that hear the question (regular expressions
over ``text.normalize``d text, linear: bounded lazy gaps, no nested quantifiers, see
``shared/notes/linear-time-parsing.md``), the ``facts`` it cites — computed from
``knowledge/`` and from what the user asked (``Asked``), so a changed datasheet or a
named model changes the answer — and ``examples``, questions it must hear (generated
tests in ``tests/test_faq.py``). Its sentence is ``concept.<id>`` in
``locales/<lang>/concepts.yaml`` (or ``answers.yaml`` for the first six).

``normalize`` folds only the Traditional characters the requirement readers need; the
few more that concept questions use (閒置, 遷移, 導出, 該…) are folded here, on the
already-normalised text, by ``fold``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gpu_advisor.engine.architecture import find_model, resolve
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.specs import Knowledge, ModelArch
from gpu_advisor.engine.workload import Workload
from gpu_advisor.text.hanzi import simplified

Facts = dict[str, float | str]

GAP = r".{0,30}?"
"""A short lazy gap between two anchors: keeps every trigger linear in the message length."""
TRAIN = r"(训练|训|微调|预训练|train|fine[- ]?tun|full-?param)"
SERVE = r"(推理|部署|上线|服务|serv|infer|deploy|product)"
QUESTION = (
    r"(吗|么|嘛|呢|吧|哪|几|会不会|多久|多长时间|够不够|能不能|行不行|可不可以|是否|为什么|为啥|为何"
    r"|怎么|怎样|如何|还是|是不是|有没有|要不要|多少|多大|什么|啥|区别|差别|不同|how long"
    r"|\?|\bwhy\b|\bhow\b|\bwhich\b|\bwhat\b|\bshould\b|\bdoes\b|\bdo i\b|\bdo we\b|\bis it\b"
    r"|\bis there\b|\bor\b|\bvs\b|worth|explain"
    r"|^(can|could|must|should|do|does|is|are|will|would|shall)\b)"
)
TYPICAL_MODEL = "llama-3.1-8b"  # the size most people mean by "a 7B/8B" today (Llama 3.1 8B config)
TYPICAL_CONTEXT = 8192  # tokens: Llama 3's native window; a common serving setting
TYPICAL_USERS = 8  # concurrent conversations a small team's service sees
HEADROOM = 1.2  # weights may take ~80 % of a card; the rest is KV cache, activations and the runtime
GB = 1e9


@dataclass(frozen=True)
class Asked:
    """What the question itself carried (the message's slots): model, size, context, load, card."""

    model: str | None = None
    params_b: float | None = None
    context_len: int | None = None
    concurrency: int | None = None
    gpu: str | None = None


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


def fold(text: str) -> str:
    """``text`` in Simplified, by the one Traditional table (``text.hanzi``) every reader uses."""
    return simplified(text)


@dataclass(frozen=True)
class Concept:
    """One concept question: how it is heard, which numbers answer it, examples it must hear."""

    id: str
    triggers: tuple[str, ...]
    facts: Callable[[Knowledge, Asked], Facts]
    examples: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.examples:
            raise ValueError(f"{self.id}: a concept needs at least one example question")

    @property
    def patterns(self) -> tuple[re.Pattern[str], ...]:
        """The triggers compiled on first use: a message that is not a question never needs them
        (``concepts.find`` asks ``QUESTION`` first), and compiling every concept's is about 20 ms
        of a one-shot ``gpu-advisor ask`` (bench/startup_bench.py)."""
        compiled: tuple[re.Pattern[str], ...] | None = self.__dict__.get("_patterns")
        if compiled is None:
            compiled = tuple(re.compile(t) for t in self.triggers)
            object.__setattr__(self, "_patterns", compiled)
        return compiled

    def heard_in(self, text: str) -> bool:
        """Whether a normalised (and folded) message asks this concept's question."""
        return any(p.search(text) for p in self.patterns)
