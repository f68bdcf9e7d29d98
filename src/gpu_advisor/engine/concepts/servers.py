"""Seed 002's comparison of training and serving servers: the seven dimensions, and three of them alone.

Seed 002 names seven ways the two kinds of server differ: what they optimise, the GPUs,
the links between GPUs, the network, storage, the CPU's role and the business behind
them. The overview answers with the interconnect gap and the catalog's prices; network,
storage, CPU and business each get their own numbers:

- network: data-parallel training all-reduces the bf16 gradients every step (ring:
  2·(N−1)/N of the bytes through each node, Patarasuk & Yuan 2009), so between two
  nodes the link rate sets the step; 400 Gb/s is one NDR InfiniBand port (NVIDIA
  ConnectX-7 datasheet), 10 Gb/s the public uplink the catalog's 8×H100 box lists;
- storage: a full checkpoint holds the 16 bytes per parameter of model states (ZeRO
  §3.1); a PCIe 4.0 NVMe drive writes ~5 GB/s sequentially (e.g. Samsung PM9A3 U.2
  datasheet, 5.2 GB/s for 3.84 TB and up), so saving it takes tens of seconds;
- CPU: the catalog's cores per GPU (training boxes feed loaders, serving boxes schedule);
- business: a serving card earns per token, so its cost per million tokens at the
  bandwidth ceiling (weights streamed once per token, Pope et al. 2022) and at low
  utilisation is what decides its payback.
"""

from __future__ import annotations

from gpu_advisor.engine.concepts.base import Asked, Concept, Facts, model_of
from gpu_advisor.engine.concepts.hardware import price_month
from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.memory import model_weight_bytes
from gpu_advisor.engine.specs import Knowledge

GB = 1e9
IB_NDR_GBPS = 400.0  # one NDR InfiniBand port (NVIDIA ConnectX-7 datasheet)
NVME_WRITE_GBS = 5.0  # PCIe 4.0 enterprise NVMe sequential write (Samsung PM9A3 datasheet, ~5.2 GB/s)
SECONDS_MONTH = HOURS_PER_MONTH * 3600  # the engine's one month (``engine.cost``)
LOW_UTILISATION = 0.1  # a serving card busy a tenth of the time (seed 000, pitfall one: "under 10 %")


def _offer(kb: Knowledge, offer_id: str) -> tuple[int, int]:
    """(GPU count, CPU cores) of a catalog offer; (1, 0) where the catalog lacks it."""
    offer = next((o for o in kb.catalog.offers if o.id == offer_id), None)
    return (offer.count, offer.cpu_cores or 0) if offer is not None else (1, 0)


def _dimensions(kb: Knowledge, asked: Asked) -> Facts:
    sxm, pcie = kb.gpus["a100-80g-sxm"], kb.gpus["a100-80g-pcie"]
    return {
        "dimensions": 7,
        "nvlink_gbs": sxm.nvlink_gbs,
        "pcie_gbs": round(2 * pcie.pcie_gbs_per_direction),
        "box_price": price_month(kb, "a100-40g-8x"),
        "serve_price": price_month(kb, "t4-1x"),
        "currency": kb.catalog.currency,
    }


def _network_storage(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    grads = model_weight_bytes(arch, "bf16")  # bf16 gradients, exchanged once per step
    public = next((o.network_gbps for o in kb.catalog.offers if o.id == "h100-sxm-8x"), None) or 10.0
    return {
        "model": arch.name,
        "typical": float(typical),
        "grads_gb": round(grads / GB, 1),
        "ib_gbps": IB_NDR_GBPS,
        "ib_s": round(grads * 8 / (IB_NDR_GBPS * GB), 2),  # two nodes: each sends ~the whole buffer
        "eth_gbps": public,
        "eth_s": round(grads * 8 / (public * GB), 1),
        "checkpoint_gb": round(16 * arch.params_b),
        "checkpoint_s": round(16 * arch.params_b / NVME_WRITE_GBS),
        "load_gb": round(grads / GB, 1),
    }


def _cpu(kb: Knowledge, asked: Asked) -> Facts:
    a_gpus, a_cores = _offer(kb, "a100-40g-8x")
    h_gpus, h_cores = _offer(kb, "h100-sxm-8x")
    _, serve_cores = _offer(kb, "t4-1x")
    addon = next((a for a in kb.catalog.addons if a.id == "cpu-16c"), None)
    return {
        "a100_cores": a_cores,
        "a100_per_gpu": round(a_cores / a_gpus),
        "h100_cores": h_cores,
        "h100_per_gpu": round(h_cores / h_gpus),
        "serve_cores": serve_cores,
        "addon_price": float(addon.price_month) if addon is not None else 0.0,
        "currency": kb.catalog.currency,
    }


def _business(kb: Knowledge, asked: Asked) -> Facts:
    arch, typical = model_of(kb, asked)
    t4 = kb.gpus["t4"]
    tok_s = t4.bandwidth_gbs * GB / model_weight_bytes(arch, "awq")
    per_month = tok_s * SECONDS_MONTH
    price = price_month(kb, "t4-1x")
    per_million = price / (per_month / 1e6) if per_month else 0.0
    return {
        "model": arch.name,
        "typical": float(typical),
        "serve_price": price,
        "tok_s": round(tok_s),
        "tokens_month": per_month,
        "per_million": round(per_million, 2),
        "per_million_idle": round(per_million / LOW_UTILISATION, 1),
        "box_price": price_month(kb, "a100-40g-8x"),
        "currency": kb.catalog.currency,
    }


CONCEPTS: tuple[Concept, ...] = (
    Concept(
        id="network_and_storage",
        facts=_network_storage,
    ),
    Concept(
        id="cpu_role",
        facts=_cpu,
    ),
    Concept(
        id="business_model",
        facts=_business,
    ),
    Concept(
        id="seven_dimensions",
        facts=_dimensions,
    ),
)
