"""The signs seed 004 reads on a sheet, each pulling toward training or inference.

Training signs: 8 dense GPUs, large-memory cards, NVLink/NVSwitch between them,
200 Gb-class NICs for multi-node sync (InfiniBand/RoCE on top), 1 TB of RAM to feed
the cards, an NVMe array, liquid cooling and an 8U-class chassis for a high-power
node. Inference signs: 1–4 GPUs, plain PCIe, 25–100 Gb service networking, a 4U
air-cooled box, a single (high-clock) CPU socket and inference-class cards
(T4/L4/L40S/A10/L20 and consumer GeForce). What the sheet says it is for counts once.

Weights say how much a sign separates the two kinds of machine (seed 002 names the
interconnect "the core dividing line", so it weighs most; inference-class cards
weigh as much because they rule out serious training whatever surrounds them).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.findings import Value
from engine.sheet.gpus import INFERENCE_CLASS
from engine.sheet.models import ParsedSheet, Side, Signal
from engine.specs import Knowledge

TRAINING_WEIGHTS: dict[str, int] = {
    "gpu_count_8_dense": 2,
    "large_memory_gpus": 1,
    "nvlink_nvswitch": 3,
    "high_speed_nics_200g": 2,
    "infiniband": 1,
    "ram_1tb": 1,
    "nvme_array": 1,
    "liquid_cooling": 1,
    "chassis_8u": 1,
    "training_wording": 1,
}
INFERENCE_WEIGHTS: dict[str, int] = {
    "gpu_count_2_4": 1,
    "pcie_interconnect": 2,
    "nics_25_100g": 1,
    "air_cooled_4u": 1,
    "single_socket_high_clock": 1,
    "inference_class_gpu": 3,
    "inference_wording": 1,
}
DENSE_GPUS = 8
FEW_GPUS = 4
LARGE_MEMORY_GB = 80
FAST_NIC_GBPS = 200
SERVICE_NIC_GBPS = 10
RAM_1TB_GB = 1000
NVME_ARRAY = 4
TALL_CHASSIS_U = 6
COMPACT_CHASSIS_U = 4

Rule = Callable[[ParsedSheet, Knowledge], dict[str, Value] | None]


def _gpu_count_8_dense(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"gpu_count": p.gpu_count} if (p.gpu_count or 0) >= DENSE_GPUS else None


def _large_memory(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    big = (p.gpu_memory_gb or 0) >= LARGE_MEMORY_GB or "large_memory" in p.gpu_hints
    return {"gpu_memory_gb": p.gpu_memory_gb} if big else None


def _nvlink(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    if p.interconnect not in ("nvlink", "nvswitch"):
        return None
    fabric = "NVSwitch" if p.interconnect == "nvswitch" else "NVLink"
    return {"fabric": fabric, "inferred": p.interconnect_inferred}


def _fast_nics(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    fastest = p.max_nic_gbps
    if fastest is None or fastest < FAST_NIC_GBPS:
        return None
    return {"max_nic_gbps": fastest, "nic_total_gbps": p.nic_total_gbps}


def _infiniband(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    if not (p.infiniband or p.roce):
        return None
    return {"fabric": "InfiniBand" if p.infiniband else "RoCE"}


def _ram_1tb(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"ram_gb": p.ram_gb} if (p.ram_gb or 0) >= RAM_1TB_GB else None


def _nvme_array(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    if (p.nvme_count or 0) < NVME_ARRAY:
        return None
    return {"nvme_count": p.nvme_count, "nvme_tb_total": p.nvme_tb_total}


def _liquid(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"cooling": "liquid"} if p.cooling == "liquid" else None


def _tall_chassis(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"chassis_u": p.chassis_u} if (p.chassis_u or 0) >= TALL_CHASSIS_U else None


def _training_wording(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"multi_node": p.mentions_multi_node} if p.mentions_training else None


def _few_gpus(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"gpu_count": p.gpu_count} if 1 <= (p.gpu_count or 0) <= FEW_GPUS else None


def _pcie(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"inferred": p.interconnect_inferred} if p.interconnect == "pcie" else None


def _service_nics(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    fastest = p.max_nic_gbps
    if fastest is None or not SERVICE_NIC_GBPS <= fastest < FAST_NIC_GBPS:
        return None
    return {"max_nic_gbps": fastest, "nic_total_gbps": p.nic_total_gbps}


def _compact_air(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    if p.chassis_u is None or p.chassis_u > COMPACT_CHASSIS_U or p.cooling == "liquid":
        return None
    return {"chassis_u": p.chassis_u, "cooling": p.cooling}


def _single_socket(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {"high_clock": p.cpu_high_clock} if p.cpu_sockets == 1 else None


def inference_class(p: ParsedSheet, kb: Knowledge) -> bool:
    gpu = kb.gpus.get(p.gpu_model or "")
    if gpu is not None:
        return gpu.id in INFERENCE_CLASS or gpu.segment == "consumer"
    return bool({"inference_friendly", "consumer"} & set(p.gpu_hints))


def _inference_gpu(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    if not inference_class(p, kb):
        return None
    gpu = kb.gpus.get(p.gpu_model or "")
    return {"gpu": gpu.name if gpu else (p.gpu_name_raw or "GPU"), "gpu_memory_gb": p.gpu_memory_gb}


def _inference_wording(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {} if p.mentions_inference else None


RULES: dict[str, Rule] = {
    "gpu_count_8_dense": _gpu_count_8_dense,
    "large_memory_gpus": _large_memory,
    "nvlink_nvswitch": _nvlink,
    "high_speed_nics_200g": _fast_nics,
    "infiniband": _infiniband,
    "ram_1tb": _ram_1tb,
    "nvme_array": _nvme_array,
    "liquid_cooling": _liquid,
    "chassis_8u": _tall_chassis,
    "training_wording": _training_wording,
    "gpu_count_2_4": _few_gpus,
    "pcie_interconnect": _pcie,
    "nics_25_100g": _service_nics,
    "air_cooled_4u": _compact_air,
    "single_socket_high_clock": _single_socket,
    "inference_class_gpu": _inference_gpu,
    "inference_wording": _inference_wording,
}


def _side(signal_id: str) -> tuple[Side, int]:
    if signal_id in TRAINING_WEIGHTS:
        return "training", TRAINING_WEIGHTS[signal_id]
    return "inference", INFERENCE_WEIGHTS[signal_id]


def evaluate(p: ParsedSheet, kb: Knowledge) -> list[Signal]:
    """Every signal that fires, training ones first, in the order of the weight tables."""
    out: list[Signal] = []
    for signal_id, rule in RULES.items():
        values = rule(p, kb)
        if values is not None:
            side, weight = _side(signal_id)
            out.append(Signal(id=signal_id, weight=weight, side=side, values=values))
    return out
