"""Concepts about cards and links: small cards training, which card serves, NVLink, PCIe vs SXM, precision.

The physics behind the answers:

- decoding one token streams every weight once, so a card's single-stream decode rate
  is at most bandwidth / weight bytes (Pope et al. 2022, "Efficiently Scaling
  Transformer Inference", §2); between cards of one generation bandwidth decides;
- tensor parallelism all-reduces activations twice per layer (Megatron-LM, Shoeybi et
  al. 2019, §3), the only inference traffic NVLink carries, while data-parallel
  training all-reduces every gradient each step (``engine.interconnect``);
- MIG (Multi-Instance GPU) cuts an A100/H100 into up to seven isolated instances, each
  with its own compute slices (``<g>g``, of seven) and memory (``<m>gb``) (NVIDIA MIG
  User Guide, "Supported MIG Profiles"); a catalog that rents a slice lists it as an
  offer with its ``mig_profile``;
- training keeps 16-bit weights with FP32 master copies (mixed precision, Micikevicius
  et al. 2018); serving runs 8- or 4-bit formats whose rates the datasheets list.
"""

from __future__ import annotations

import math

from gpu_advisor.engine.card_classes import COMPUTE_SLICES, compute_slices
from gpu_advisor.engine.concepts.base import (
    HEADROOM,
    TYPICAL_USERS,
    Asked,
    Concept,
    Facts,
    gpu_of,
    model_of,
)
from gpu_advisor.engine.interconnect import allreduce_s, hop_latency_s, link_gbs, tp_decode_comm_s
from gpu_advisor.engine.memory import kv_bytes_per_sequence, model_weight_bytes
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Precision
from gpu_advisor.engine.units import GiB

GB = 1e9
TP_TYPICAL_MODEL = "llama-3.1-70b"  # the size people split over cards; an 8B never needs NVLink
SXM_PCIE_PAIRS = {"h100": ("h100-sxm", "h100-pcie"), "h800": ("h800-sxm", "h800-pcie")}
SERVING_CONTEXT = 4096  # tokens each conversation holds when the user gives no context length
READING_TOK_S = 10.0  # per-user decode speed that stays ahead of a reader (people read ~5 words a second)


def price_month(kb: Knowledge, offer_id: str) -> float:
    """The catalog's monthly list price of one offer (0 where the operator's catalog lacks it)."""
    offer = next((o for o in kb.catalog.offers if o.id == offer_id), None)
    return float(offer.price_month or 0) if offer is not None else 0.0


def _small_card_training(kb: Knowledge, asked: Asked) -> Facts:
    """The named card (a T4 when none is named) against an A100: what one card can train."""
    card, a100 = kb.gpus[gpu_of(kb, asked, "t4")], kb.gpus["a100-40g-sxm"]
    arch, typical = model_of(kb, asked)
    half: Precision = "bf16" if card.supports("bf16") else "fp16"
    return {
        "gpu": card.name,
        "model": arch.name,
        "typical": float(typical),
        "memory_gb": card.memory_gb,
        "half": half.upper(),
        "half_tflops": card.tflops(half),
        "a100_bf16_tflops": a100.tflops("bf16"),
        "full_max_b": round(card.memory_gb / 16, 1),  # 16 bytes per parameter for mixed-precision AdamW
        "qlora_gb": round(model_weight_bytes(arch, "nf4") / GB, 1),  # NF4 base weights (QLoRA)
        "ratio": round(a100.tflops("bf16") / card.tflops(half), 1),
    }


def _per_user_tok_s(card: GpuSpec, weights: float, kv_seq: float, users: int) -> float:
    """Decode speed each of ``users`` streams sees: one step reads the weights once plus every KV cache."""
    return card.bandwidth_gbs * GB / (weights + users * kv_seq)


def _t4_or_3090(kb: Knowledge, asked: Asked) -> Facts:
    """Both cards serving the user's model at 4-bit to their users; the T4 when it holds it and keeps pace."""
    t4, r3090 = kb.gpus["t4"], kb.gpus["rtx3090"]
    arch, typical = model_of(kb, asked)
    weights = model_weight_bytes(arch, "awq")
    users = asked.concurrency or TYPICAL_USERS
    kv = kv_bytes_per_sequence(arch, "bf16", asked.context_len or SERVING_CONTEXT)
    t4_user = _per_user_tok_s(t4, weights, kv, users)
    fits = (weights * HEADROOM + users * kv) <= t4.usable_gib * GiB
    return {
        "model": arch.name,
        "typical": float(typical),
        "pick": t4.name if fits and t4_user >= READING_TOK_S else r3090.name,
        "users": users,
        "users_typical": float(asked.concurrency is None),
        "weights_gb": round(weights / GB, 1),
        "t4_gbs": t4.bandwidth_gbs,
        "rtx3090_gbs": r3090.bandwidth_gbs,
        "ratio": round(r3090.bandwidth_gbs / t4.bandwidth_gbs, 1),
        "t4_gb": t4.memory_gb,
        "rtx3090_gb": r3090.memory_gb,
        "t4_tok_s": round(t4_user),
        "rtx3090_tok_s": round(_per_user_tok_s(r3090, weights, kv, users)),
        "t4_w": t4.tdp_w,
        "rtx3090_w": r3090.tdp_w,
        "t4_price": price_month(kb, "t4-1x"),
        "rtx3090_price": price_month(kb, "rtx3090-1x"),
        "currency": kb.catalog.currency,
    }


def _nvlink(kb: Knowledge, asked: Asked) -> Facts:
    """Tensor-parallel sync per generated token for the user's model (a 70B when none is named)."""
    sxm, pcie = kb.gpus["a100-80g-sxm"], kb.gpus["a100-80g-pcie"]
    arch, typical = model_of(kb, asked, typical=TP_TYPICAL_MODEL)
    weights = model_weight_bytes(arch, "bf16")
    needed = max(1, math.ceil(weights * HEADROOM / (sxm.usable_gib * GiB)))
    tp = max(2, needed)
    users = asked.concurrency or TYPICAL_USERS
    nv = tp_decode_comm_s(arch.hidden_size, arch.layers, users, tp, sxm, "nvswitch")
    pc = tp_decode_comm_s(arch.hidden_size, arch.layers, users, tp, pcie, "pcie")
    return {
        "model": arch.name,
        "typical": float(typical),
        "weights_gb": round(weights / GB),
        "cards_needed": needed,
        "tp": tp,
        "allreduces": 2 * arch.layers,
        "users": users,
        "users_typical": float(asked.concurrency is None),
        "nv_ms": round(nv * 1e3, 1),
        "pcie_ms": round(pc * 1e3, 1),
        "nvlink_gbs": sxm.nvlink_gbs,
        "pcie_gbs": round(2 * pcie.pcie_gbs_per_direction),
    }


def _pair(kb: Knowledge, asked: Asked) -> tuple[GpuSpec, GpuSpec]:
    """The SXM and PCIe versions of the family the user named (A100 when none or another);
    a consumer card named is set against an SXM A100."""
    named = asked.gpu or ""
    for family, pair in SXM_PCIE_PAIRS.items():
        if named.startswith(family):
            return kb.gpus[pair[0]], kb.gpus[pair[1]]
    card = kb.gpus.get(named)
    if card is not None and card.form_factor == "consumer":  # "为什么 4090 不适合多卡训练": that card
        return kb.gpus["a100-80g-sxm"], card
    return kb.gpus["a100-80g-sxm"], kb.gpus["a100-80g-pcie"]


def _pcie_vs_sxm(kb: Knowledge, asked: Asked) -> Facts:
    """Gradient all-reduce of the user's model (or a typical 8B) across 8 cards, NVSwitch against PCIe."""
    sxm, pcie = _pair(kb, asked)
    arch, typical = model_of(kb, asked)
    grads = model_weight_bytes(arch, "bf16")  # bf16 gradients, once per optimizer step
    nv_s = allreduce_s(grads, 8, link_gbs(sxm, "nvswitch"), hop_latency_s(sxm, "nvswitch"))
    pc_s = allreduce_s(grads, 8, link_gbs(pcie, "pcie"), hop_latency_s(pcie, "pcie"))
    return {
        "model": arch.name,
        "typical": float(typical),
        "sxm": sxm.name,
        "pcie": pcie.name,
        "pcie_gen": pcie.pcie_gen,
        "nvlink_gbs": sxm.nvlink_gbs,
        "pcie_gbs": round(2 * pcie.pcie_gbs_per_direction),
        "wire_ratio": round(sxm.nvlink_gbs / (2 * pcie.pcie_gbs_per_direction), 1),
        "grads_gb": round(grads / GB, 1),
        "nvlink_s": round(nv_s, 2),
        "pcie_s": round(pc_s, 2),
        "ratio": round(pc_s / nv_s, 1),
    }


def _slow(kb: Knowledge, asked: Asked) -> Facts:
    card = kb.gpus[gpu_of(kb, asked, "rtx4090")]
    arch, _ = model_of(kb, asked)
    weights_gb = model_weight_bytes(arch, "bf16") / GB
    return {
        "gpu": card.name,
        "model": arch.name,
        "bandwidth_gbs": card.bandwidth_gbs,
        "weights_gb": round(weights_gb, 1),
        "ceiling_tok_s": round(card.bandwidth_gbs / weights_gb),
    }


def _precision(kb: Knowledge, asked: Asked) -> Facts:
    """The named card's rates (an A100 when none is named): what each precision buys."""
    card = kb.gpus[gpu_of(kb, asked, "a100-80g-sxm")]
    low: Precision = "fp8" if card.supports("fp8") else "int8"
    return {
        "gpu": card.name,
        "fp32": card.tflops("fp32"),
        "tf32": card.tflops("tf32"),
        "bf16": card.tflops("bf16"),
        "low": low.upper(),
        "low_rate": card.tflops(low),
        "int4_rate": card.tflops("int4") if card.supports("int4") else card.tflops(low),
        "ratio": round(card.tflops("bf16") / card.tflops("fp32")),
    }


def _whole_card_price(kb: Knowledge, gpu: str) -> float:
    """The cheapest monthly price of one whole card of ``gpu`` in the catalog (0 when none)."""
    prices = [
        float(o.price_month)
        for o in kb.catalog.offers
        if o.gpu == gpu and o.count == 1 and o.mig_profile is None and o.price_month
    ]
    return min(prices, default=0.0)


def _mig(kb: Knowledge, asked: Asked) -> Facts:
    """What a MIG slice is, and the catalog's cheapest slice (of the named card's family
    when it rents one): its profile, memory, share of the compute and monthly price.

    ``note`` names the line said after the answer: ``mig_offer`` with the price when the
    catalog rents a slice, ``mig_none`` when it rents none.
    """
    slices = [o for o in kb.catalog.offers if o.mig_profile and o.price_month]
    named = [o for o in slices if asked.gpu and o.gpu.split("-", 1)[0] == asked.gpu.split("-", 1)[0]]
    offer = min(named or slices, key=lambda o: (float(o.price_month or 0), o.id), default=None)
    parent = kb.gpus[offer.gpu] if offer is not None else kb.gpus["a100-40g-sxm"]
    facts: Facts = {
        "note": "mig_offer" if offer is not None else "mig_none",
        "parent": parent.name,
        "parent_gb": parent.memory_gb,
        "instances": COMPUTE_SLICES,
        "profiles": ", ".join(parent.mig_profiles),
        "currency": kb.catalog.currency,
    }
    if offer is None or offer.mig_profile is None:
        return facts
    whole = _whole_card_price(kb, offer.gpu)
    return {
        **facts,
        "profile": offer.mig_profile,
        "slice_gib": round(float(offer.slice_memory_gib or 0), 2),
        "compute": compute_slices(offer.mig_profile),
        "price": float(offer.price_month or 0),
        "whole_price": whole,
        "ratio": round(whole / float(offer.price_month or 1), 1) if whole else 0.0,
        "currency": offer.currency,
    }


_PCIE_SXM = r"(pcie|sxm|nvlink|nvswitch|互联)"

CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="pcie_vs_sxm_training",
        facts=_pcie_vs_sxm,
    ),
    Concept(
        id="t4_or_3090_for_serving",
        facts=_t4_or_3090,
    ),
    Concept(
        id="t4_training",
        facts=_small_card_training,
    ),
    Concept(
        id="mig_slices",
        facts=_mig,
    ),
    Concept(
        id="nvlink_for_inference",
        facts=_nvlink,
    ),
    Concept(
        id="precision_choice",
        facts=_precision,
    ),
    Concept(
        id="slow_inference_cause",
        facts=_slow,
    ),
)
