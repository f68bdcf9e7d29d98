"""Concept questions answered with the engine's own numbers: one declaration per concept.

Layout (the rule families' idea, ``engine/rules/__init__.py``, one hop apart): each
``Concept`` names its id, the ``triggers`` that hear the question (regular expressions
over ``reading.normalize``d text, linear: bounded lazy gaps, no nested quantifiers),
the ``facts`` it cites — computed here from ``knowledge/`` (datasheet figures with
their sources) so a changed datasheet changes the answer — and ``examples``, questions
it must hear. Its sentence is ``concept.<id>`` in ``locales/<lang>/answers.yaml``; its
test is generated in ``tests/test_faq.py``. The myths (``engine.myths``) answer the
myth questions themselves and are not repeated here.

The physics behind the answers:

- decoding one token streams every weight once, so a card's single-stream decode rate
  is at most bandwidth / weight bytes (Pope et al. 2022, "Efficiently Scaling
  Transformer Inference", §2); between cards of one generation bandwidth decides;
- a full fine-tune with mixed-precision AdamW keeps 16 bytes per parameter (ZeRO,
  Rajbhandari et al. 2020, §3.1) while serving bf16 weights keeps 2, so a training box
  is sized ~8× bigger than the server for the same model;
- tensor parallelism all-reduces activations twice per layer (Megatron-LM, Shoeybi et
  al. 2019, §3), which is the only inference traffic NVLink carries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from gpu_advisor.engine.specs import Knowledge

Facts = dict[str, float | str]
_GAP = r".{0,30}?"
_QUESTION = (
    r"(吗|么|嘛|呢|为什么|为何|怎么|如何|哪个|哪种|还是|是不是|有没有|要不要"
    r"|\?|why|how|which|should|does|is it|\bor\b)"
)
_ONE_BOX = r"(同一|一台|一起|共用|same|one (machine|box|server)|together)"
SAMPLE_PARAMS_B = 7.0  # the model size the general answers use (Llama 2 7B class)
GB = 1e9


@dataclass(frozen=True)
class Concept:
    """One concept question: how it is heard, which numbers answer it, examples it must hear."""

    id: str
    triggers: tuple[str, ...]
    facts: Callable[[Knowledge], Facts]
    examples: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.examples:
            raise ValueError(f"{self.id}: a concept needs at least one example question")
        object.__setattr__(self, "patterns", tuple(re.compile(t) for t in self.triggers))

    def heard_in(self, text: str) -> bool:
        """Whether a normalised message asks this concept's question."""
        return any(p.search(text) for p in self.patterns)


def _apart(kb: Knowledge) -> Facts:
    p = SAMPLE_PARAMS_B
    return {"params_b": p, "train_gb": 16 * p, "serve_gb": 2 * p, "ratio": 8, "hours_month": 720}


def _t4_training(kb: Knowledge) -> Facts:
    t4, a100 = kb.gpus["t4"], kb.gpus["a100-40g-sxm"]
    return {
        "memory_gb": t4.memory_gb,
        "fp16_tflops": t4.tflops("fp16"),
        "a100_bf16_tflops": a100.tflops("bf16"),
        "full_max_b": round(t4.memory_gb / 16, 1),  # 16 bytes per parameter for mixed-precision AdamW
        "qlora_7b_gb": 0.5 * SAMPLE_PARAMS_B,  # NF4 weights, ~0.5 byte per parameter
        "ratio": round(a100.tflops("bf16") / t4.tflops("fp16"), 1),
    }


def _t4_or_3090(kb: Knowledge) -> Facts:
    t4, r3090 = kb.gpus["t4"], kb.gpus["rtx3090"]
    weights = 2 * SAMPLE_PARAMS_B * GB
    return {
        "t4_gbs": t4.bandwidth_gbs,
        "rtx3090_gbs": r3090.bandwidth_gbs,
        "ratio": round(r3090.bandwidth_gbs / t4.bandwidth_gbs, 1),
        "t4_gb": t4.memory_gb,
        "rtx3090_gb": r3090.memory_gb,
        "t4_tok_s": round(t4.bandwidth_gbs * GB / weights),
        "rtx3090_tok_s": round(r3090.bandwidth_gbs * GB / weights),
        "t4_w": t4.tdp_w,
        "rtx3090_w": r3090.tdp_w,
    }


def _nvlink(kb: Knowledge) -> Facts:
    a100 = kb.gpus["a100-80g-sxm"]
    return {"nvlink_gbs": a100.nvlink_gbs, "pcie_gbs": round(2 * a100.pcie_gbs_per_direction)}


def _slow(kb: Knowledge) -> Facts:
    card = kb.gpus["rtx4090"]
    weights_gb = 2 * SAMPLE_PARAMS_B
    return {
        "gpu": card.name,
        "bandwidth_gbs": card.bandwidth_gbs,
        "weights_gb": weights_gb,
        "ceiling_tok_s": round(card.bandwidth_gbs / weights_gb),
    }


def _split(kb: Knowledge) -> Facts:
    p = SAMPLE_PARAMS_B
    return {"params_b": p, "train_gb": 16 * p, "serve_gb": 2 * p, "hours_month": 720}


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="split_budget",
        triggers=(
            rf"(预算|budget){_GAP}(训练|train){_GAP}(推理|部署|serv|infer)",
            rf"(训练|train){_GAP}(推理|部署|serv|infer){_GAP}(预算|budget|分配|split)",
        ),
        facts=_split,
        examples=(
            "一台机器的预算怎么分配给训练和推理？",
            "how should I split my budget between training and serving?",
        ),
    ),
    Concept(
        id="train_and_serve_apart",
        triggers=(
            rf"(训练|train){_GAP}(推理|服务|部署|serv|infer){_GAP}{_ONE_BOX}",
            rf"{_ONE_BOX}{_GAP}(训练|train){_GAP}(推理|部署|serv|infer)",
        ),
        facts=_apart,
        examples=("为什么不用一台机器同时训练和推理？", "why not train and serve on the same machine?"),
    ),
    Concept(
        id="t4_training",
        triggers=(rf"t4{_GAP}(训练|训|微调|train|fine-?tun)", rf"(训练|微调|train|fine-?tun){_GAP}t4"),
        facts=_t4_training,
        examples=("一张 T4 能训练吗？", "can a T4 train anything?", "T4 適合訓練嗎"),
    ),
    Concept(
        id="t4_or_3090_for_serving",
        triggers=(rf"t4{_GAP}3090", rf"3090{_GAP}t4"),
        facts=_t4_or_3090,
        examples=("T4 还是 3090 适合做推理？", "T4 or 3090 for serving?", "推理用 3090 還是 T4"),
    ),
    Concept(
        id="nvlink_for_inference",
        triggers=(rf"nvlink{_GAP}(推理|inference|serv)", rf"(推理|inference|serv){_GAP}nvlink"),
        facts=_nvlink,
        examples=("NVLink 对推理有帮助吗？", "does NVLink help inference?", "推理需要 NVLink 嗎"),
    ),
    Concept(
        id="slow_inference_cause",
        triggers=(
            rf"(慢|slow){_GAP}(带宽|bandwidth|软件|software|框架|stack|显卡|card|gpu)",
            rf"(带宽|bandwidth|显卡|card|gpu){_GAP}(还是|or){_GAP}(软件|software|框架|stack)",
        ),
        facts=_slow,
        examples=(
            "推理很慢，是显卡带宽的问题还是软件的问题？",
            "is slow inference the card's bandwidth or the software stack?",
        ),
    ),
)
_ASKED = re.compile(_QUESTION)


def asks(text: str) -> bool:
    """Whether a normalised message is phrased as a question (a concept answers only questions)."""
    return _ASKED.search(text) is not None


def find(text: str) -> Concept | None:
    """The concept a normalised question asks about, or None (first declared wins)."""
    if not asks(text):
        return None
    return next((c for c in CONCEPTS if c.heard_in(text)), None)
