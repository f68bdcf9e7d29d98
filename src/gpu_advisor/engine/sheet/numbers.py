"""Per-GPU arithmetic of a sheet, against the 8-GPU training baseline.

Seed 000 §8.8 gives the hidden parameters of an 8-GPU training node: at least 64 CPU
cores and 512 GB of RAM (below that the GPUs wait for data), and 4 × 3.84 TB NVMe as
the local-storage baseline. Per GPU that is 8 cores and 64 GB of RAM.

The baselines and the NVLink sibling live in ``engine.rules.parts``, shared with the
plan's rules. Interconnect figures are achieved one-way bus bandwidth per GPU from
``engine.interconnect.link_gbs``. For a PCIe card the NVLink figure is its SXM
sibling's (same family, same memory where possible): A100 80GB PCIe is compared with
A100 80GB SXM4, H100 PCIe with H100 SXM5. An SXM board of 8 or more cards is taken to
reduce through NVSwitch, fewer cards through direct NVLink.
"""

from __future__ import annotations

from gpu_advisor.engine.interconnect import link_gbs
from gpu_advisor.engine.rules.parts import (
    nvlink_fabric,
    nvlink_sibling,
)
from gpu_advisor.engine.sheet.models import ParsedSheet, SheetNumbers
from gpu_advisor.engine.specs import GpuSpec, Knowledge


def card(p: ParsedSheet, kb: Knowledge) -> GpuSpec | None:
    return kb.gpus.get(p.gpu_model or "")


def link_figures(p: ParsedSheet, kb: Knowledge) -> tuple[float | None, float | None, float | None]:
    """(this box's link, the NVLink build's link, PCIe) in achieved one-way GB/s per GPU."""
    gpu = card(p, kb)
    if gpu is None:
        return None, None, None
    pcie = link_gbs(gpu, "pcie")
    sibling = nvlink_sibling(gpu, kb)
    nvlink = link_gbs(sibling, nvlink_fabric(p.gpu_count)) if sibling else None
    own = link_gbs(gpu, p.interconnect) if p.interconnect else None
    return own, nvlink, pcie


def _per_gpu(total: float | None, gpus: int | None) -> float | None:
    return round(total / gpus, 2) if total is not None and gpus else None


def compute(p: ParsedSheet, kb: Knowledge) -> SheetNumbers:
    own, nvlink, pcie = link_figures(p, kb)
    base = kb.node_baseline
    memory = p.gpu_memory_gb * p.gpu_count if p.gpu_memory_gb and p.gpu_count else None
    return SheetNumbers(
        total_gpu_memory_gb=memory,
        link_gbs=round(own, 1) if own is not None else None,
        nvlink_gbs=round(nvlink, 1) if nvlink is not None else None,
        pcie_gbs=round(pcie, 1) if pcie is not None else None,
        nvlink_vs_pcie=round(nvlink / pcie, 1) if nvlink and pcie else None,
        cpu_cores_per_gpu=_per_gpu(p.cpu_cores, p.gpu_count),
        ram_gb_per_gpu=_per_gpu(p.ram_gb, p.gpu_count),
        nvme_tb_total=p.nvme_tb_total,
        baseline_cores=base.cpu_cores,
        baseline_ram_gb=base.ram_gb,
        baseline_nvme=base.nvme,
        baseline_nvme_count=base.nvme_count,
        baseline_nvme_tb=round(base.nvme_count * base.nvme_drive_tb, 2),
        baseline_cores_per_gpu=base.cores_per_gpu,
        baseline_ram_gb_per_gpu=base.ram_gb_per_gpu,
    )
