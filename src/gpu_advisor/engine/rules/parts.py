"""What a machine's parts say, wherever they were read: a plan's offer or a pasted sheet.

The plan (``engine/rules/hardware.py``) and the sheet analyser (``engine/sheet/pitfalls.py``)
warn about the same mistakes under the ids of their own JSON contracts; the arithmetic
behind each warning lives here once.

The feeding baseline (CPU cores, RAM and NVMe an 8-GPU training node needs so the GPUs
never wait for data) is knowledge with its source: ``knowledge/node_baseline.yaml``
(``Knowledge.node_baseline``). Link figures are achieved one-way GB/s per GPU from
``engine.interconnect.link_gbs``; a PCIe card is held against its own NVLink sibling
(same family, closest memory: A100 80GB PCIe against A100 80GB SXM4), on NVSwitch from
8 cards up. A GPU's role and lineage come from ``knowledge/gpus.yaml``, never a list here.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.engine.findings import Value
from gpu_advisor.engine.interconnect import link_gbs
from gpu_advisor.engine.specs import GpuSpec, Interconnect, Knowledge, NodeBaseline

NVSWITCH_FROM_GPUS = 8  # HGX/DGX boards of 8 SXM cards connect them through NVSwitch
# The card a PCIe board is compared with when it has no NVLink sibling (consumer cards).
NVLINK_REFERENCE = "a100-80g-sxm"


@dataclass(frozen=True)
class Feed:
    """CPU cores and RAM against the per-GPU baseline; None means the figure is unknown."""

    gpus: int
    cpu_cores: float | None
    ram_gb: float | None
    baseline: NodeBaseline

    @property
    def need_cores(self) -> int:
        return self.baseline.cores_per_gpu * self.gpus

    @property
    def need_ram_gb(self) -> int:
        return self.baseline.ram_gb_per_gpu * self.gpus

    @property
    def cpu_short(self) -> bool:
        return self.cpu_cores is not None and self.cpu_cores < self.need_cores

    @property
    def ram_short(self) -> bool:
        return self.ram_gb is not None and self.ram_gb < self.need_ram_gb


def reads_as_inference_card(gpu: GpuSpec) -> bool:
    """Built for serving (``role: inference``) or a consumer card: no serious training on it."""
    return gpu.role == "inference" or gpu.segment == "consumer"


def _family(gpu_id: str) -> str:
    return gpu_id.removeprefix("rtx").split("-")[0]


def nvlink_sibling(gpu: GpuSpec, kb: Knowledge) -> GpuSpec | None:
    """The card itself if it has NVLink, else its NVLink sibling with the closest memory."""
    if gpu.nvlink_gbs > 0:
        return gpu
    siblings = [g for g in kb.gpus.values() if _family(g.id) == _family(gpu.id) and g.nvlink_gbs > 0]
    return min(siblings, key=lambda g: abs(g.memory_gb - gpu.memory_gb), default=None)


def nvlink_fabric(gpu_count: int | None) -> Interconnect:
    return "nvswitch" if (gpu_count or NVSWITCH_FROM_GPUS) >= NVSWITCH_FROM_GPUS else "nvlink"


@dataclass(frozen=True)
class LinkGap:
    """What PCIe gives a card against what NVLink would."""

    pcie_gbs: float
    nvlink_gbs: float
    reference: GpuSpec


def link_gap(gpu: GpuSpec, gpus: int, kb: Knowledge, fallback: bool = False) -> LinkGap | None:
    """PCIe against the card's NVLink sibling; ``fallback`` compares sibling-less cards with A100 SXM."""
    ref = nvlink_sibling(gpu, kb) or (kb.gpus.get(NVLINK_REFERENCE) if fallback else None)
    if ref is None:
        return None
    return LinkGap(link_gbs(gpu, "pcie"), link_gbs(ref, nvlink_fabric(gpus)), ref)


def china_cut(gpu: GpuSpec, kb: Knowledge) -> dict[str, Value] | None:
    """A China-market variant against the card of its lineage: what was cut, what was kept."""
    ref = kb.gpus.get(gpu.lineage or "") if gpu.china_variant else None
    if ref is None:
        return None
    return {
        "gpu": gpu.name,
        "ref_gpu": ref.name,
        "nvlink_gbs": gpu.nvlink_gbs,
        "ref_nvlink_gbs": ref.nvlink_gbs,
        "bf16_tflops": gpu.tflops("bf16"),
        "ref_bf16_tflops": ref.tflops("bf16"),
        "compute_share": round(gpu.tflops("bf16") / ref.tflops("bf16"), 3),
        "memory_gb": gpu.memory_gb,
        "bandwidth_gbs": gpu.bandwidth_gbs,
    }


def consumer_limits(gpu: GpuSpec) -> dict[str, Value] | None:
    """A GeForce card: its memory, no NVLink, and the PCIe link it talks over."""
    if gpu.segment != "consumer":
        return None
    return {
        "gpu": gpu.name,
        "memory_gb": gpu.memory_gb,
        "nvlink_gbs": gpu.nvlink_gbs,
        "pcie_gbs": round(link_gbs(gpu, "pcie"), 1),
    }
