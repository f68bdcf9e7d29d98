"""The train-then-serve workflow: keep them apart, split the money, move the model, pick a runtime.

The numbers: a training box is sized ~8× bigger than the server for the same model
(16 bytes per parameter for a mixed-precision AdamW fine-tune against 2 for BF16
serving, ZeRO §3.1); serving runs 24×7 (720 hours a month) while training comes in
bursts; the catalog's prices (seed 000's vendor list) put an 8-card box against one
serving card; a quantised export shrinks the weights to the format's real bits
(``engine.dtypes``: AWQ/GPTQ ≈4.25 bits, FP8 8, GGUF Q4_K_M ≈4.85).
"""

from __future__ import annotations

from gpu_advisor.engine.concepts.base import (
    HEADROOM,
    Asked,
    Concept,
    Facts,
    gpu_of,
    model_of,
)
from gpu_advisor.engine.concepts.hardware import price_month
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.memory import model_weight_bytes
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB

GB = 1e9
HOURS_MONTH = HOURS_PER_MONTH  # the engine's one month (``engine.cost``)
SERVING_OFFERS = ("t4-1x", "rtx3090-1x", "a100-40g-1x", "a100-40g-2x", "a100-40g-8x", "h100-sxm-8x")
"""Catalog machines a model may be served from, cheapest first (seed 000's vendor list)."""


def _sizes(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    p = arch.params_b
    return {
        "model": arch.name,
        "typical": float(typical),
        "params_b": round(p, 1),
        "train_gb": round(16 * p),
        "serve_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "hours_month": HOURS_MONTH,
    }


def serving_card(kb: Knowledge, weights_gb: float) -> tuple[str, float]:
    """The cheapest catalog machine whose cards hold ``weights_gb`` with headroom: (name, monthly price)."""
    for offer_id in SERVING_OFFERS:
        offer = next((o for o in kb.catalog.offers if o.id == offer_id), None)
        if offer is None:
            continue
        gpu = kb.gpus[offer.gpu]
        if gpu.usable_gib * offer.count * GiB / GB >= weights_gb * HEADROOM:
            name = gpu.name if offer.count == 1 else f"{offer.count}× {gpu.name}"
            return name, float(offer.price_month or 0)
    return kb.gpus["h100-sxm"].name, 0.0


def _apart(kb: Knowledge, asked: Asked) -> Facts:
    facts = _sizes(kb, asked)
    return {**facts, "ratio": round(float(facts["train_gb"]) / float(facts["serve_gb"]))}


def _split(kb: Knowledge, asked: Asked) -> Facts:
    facts = _sizes(kb, asked)
    arch, _ = model_of(kb, asked)
    card, serve_price = serving_card(kb, model_weight_bytes(arch, "awq") / GB)
    train_price = price_month(kb, "a100-40g-1x")
    return {
        **facts,
        "serve_card": card,
        "serve_price": serve_price,
        "train_price": train_price,
        "week_share": round(train_price / 4.3),  # one week of a monthly rental (~4.3 weeks a month)
        "currency": kb.catalog.currency,
    }


def _keep_box(kb: Knowledge, asked: Asked) -> Facts:
    box_id = "h100-sxm-8x" if gpu_of(kb, asked, "") in ("h100-sxm", "h800-sxm") else "a100-40g-8x"
    box = next(o for o in kb.catalog.offers if o.id == box_id)
    arch, typical = model_of(kb, asked)
    card, price = serving_card(kb, model_weight_bytes(arch, "awq") / GB)
    box_price = float(box.price_month or 0)
    return {
        "model": arch.name,
        "typical": float(typical),
        "box": f"{box.count}× {kb.gpus[box.gpu].name}",
        "box_price": box_price,
        "serve_card": card,
        "serve_price": price,
        "idle_share": (box.count - 1) / box.count,  # one replica busy, the other cards idle
        "ratio": round(box_price / price) if price else 0,
        "currency": kb.catalog.currency,
    }


def _to_serve(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    awq = model_weight_bytes(arch, "awq") / GB
    card, price = serving_card(kb, awq)
    return {
        "model": arch.name,
        "typical": float(typical),
        "bf16_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "fp8_gb": round(model_weight_bytes(arch, "fp8") / GB, 1),
        "awq_gb": round(awq, 1),
        "gguf_gb": round(model_weight_bytes(arch, "q4_k_m") / GB, 1),
        "serve_card": card,
        "serve_price": price,
        "currency": kb.catalog.currency,
    }


def _stack(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    rt = kb.runtimes
    return {
        "model": arch.name,
        "typical": float(typical),
        "vllm_batch": rt["vllm"].max_batch,
        "vllm_util": rt["vllm"].memory_utilization,
        "llama_cpp_batch": rt["llama_cpp"].max_batch,
        "bf16_gb": round(model_weight_bytes(arch, "bf16") / GB, 1),
        "awq_gb": round(model_weight_bytes(arch, "awq") / GB, 1),
        "gguf_gb": round(model_weight_bytes(arch, "q4_k_m") / GB, 1),
    }


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="keep_training_box",
        facts=_keep_box,
    ),
    Concept(
        id="train_to_serve",
        facts=_to_serve,
    ),
    Concept(
        id="serving_stack",
        facts=_stack,
    ),
    Concept(
        id="split_budget",
        facts=_split,
    ),
    Concept(
        id="train_and_serve_apart",
        facts=_apart,
    ),
)
