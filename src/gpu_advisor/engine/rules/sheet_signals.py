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
A card's class is its ``role`` in ``knowledge/gpus.yaml``. Each signal is one ``Rule``
in ``RULES`` with its side, weight and a sheet that shows it (layout:
``engine/rules/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_advisor.engine.findings import Value
from gpu_advisor.engine.rules import parts
from gpu_advisor.engine.rules.declaration import Rule, Scenario, Side
from gpu_advisor.engine.sheet.models import ParsedSheet, Signal
from gpu_advisor.engine.specs import Knowledge

DENSE_GPUS = 8
FEW_GPUS = 4
LARGE_MEMORY_GB = 80
FAST_NIC_GBPS = 200
SERVICE_NIC_GBPS = 10
RAM_1TB_GB = 1000
NVME_ARRAY = 4
TALL_CHASSIS_U = 6
COMPACT_CHASSIS_U = 4

SignalCheck = Callable[[ParsedSheet, Knowledge], dict[str, Value] | None]


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
        return parts.reads_as_inference_card(gpu)
    return bool({"inference_friendly", "consumer"} & set(p.gpu_hints))


def _inference_gpu(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    if not inference_class(p, kb):
        return None
    gpu = kb.gpus.get(p.gpu_model or "")
    return {"gpu": gpu.name if gpu else (p.gpu_name_raw or "GPU"), "gpu_memory_gb": p.gpu_memory_gb}


def _inference_wording(p: ParsedSheet, kb: Knowledge) -> dict[str, Value] | None:
    return {} if p.mentions_inference else None


TRAINING_BOX = "训练用 8 × H100 SXM5 80GB, NVSwitch, 2TB, 8 × 3.84TB NVMe, 8 × 400G IB, 液冷, 8U"
INFERENCE_BOX = "推理用 4 × L4 24GB, PCIe, 1 × EPYC 9354P 高频, 256GB, 2 × 25GbE, 4U 风冷"


def _signal(id_: str, check: SignalCheck, side: Side, weight: int, sheet: str) -> Rule[SignalCheck]:
    return Rule(id=id_, check=check, side=side, weight=weight, scenarios=(Scenario(sheet=sheet),))


RULES: tuple[Rule[SignalCheck], ...] = (
    _signal("gpu_count_8_dense", _gpu_count_8_dense, "training", 2, TRAINING_BOX),
    _signal("large_memory_gpus", _large_memory, "training", 1, TRAINING_BOX),
    _signal("nvlink_nvswitch", _nvlink, "training", 3, TRAINING_BOX),
    _signal("high_speed_nics_200g", _fast_nics, "training", 2, TRAINING_BOX),
    _signal("infiniband", _infiniband, "training", 1, TRAINING_BOX),
    _signal("ram_1tb", _ram_1tb, "training", 1, TRAINING_BOX),
    _signal("nvme_array", _nvme_array, "training", 1, TRAINING_BOX),
    _signal("liquid_cooling", _liquid, "training", 1, TRAINING_BOX),
    _signal("chassis_8u", _tall_chassis, "training", 1, TRAINING_BOX),
    _signal("training_wording", _training_wording, "training", 1, TRAINING_BOX),
    _signal("gpu_count_2_4", _few_gpus, "inference", 1, INFERENCE_BOX),
    _signal("pcie_interconnect", _pcie, "inference", 2, INFERENCE_BOX),
    _signal("nics_25_100g", _service_nics, "inference", 1, INFERENCE_BOX),
    _signal("air_cooled_4u", _compact_air, "inference", 1, INFERENCE_BOX),
    _signal("single_socket_high_clock", _single_socket, "inference", 1, INFERENCE_BOX),
    _signal("inference_class_gpu", _inference_gpu, "inference", 3, INFERENCE_BOX),
    _signal("inference_wording", _inference_wording, "inference", 1, INFERENCE_BOX),
)


def evaluate(p: ParsedSheet, kb: Knowledge) -> list[Signal]:
    """Every signal that fires, training ones first, in the order of ``RULES``."""
    out: list[Signal] = []
    for rule in RULES:
        values = rule.check(p, kb)
        if values is not None:
            assert rule.side is not None
            out.append(Signal(id=rule.id, weight=rule.weight, side=rule.side, values=values))
    return out
