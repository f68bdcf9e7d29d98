"""The facts gathered while reading a sheet, and how they settle into a ``ParsedSheet``.

Readers fill a ``Draft`` segment by segment; the first value a field receives wins
(a sheet names its GPU once, and a later line is more likely a note than a correction),
except the GPU count, where a count written next to the card's name beats an
"8 卡" phrase in a positioning line. ``finish`` then derives what the sheet implies:

- per-card memory from the knowledge base when the sheet does not print it;
- the interconnect from the form factor when the sheet does not name it: an SXM board
  of 8 or more cards is an HGX baseboard with NVSwitch, fewer SXM cards are wired
  with direct NVLink, PCIe cards talk over PCIe;
- total CPU cores from the model table (``cpus.py``) × sockets, or from a written core
  count, read per CPU unless the sheet says it is a total ("共", "total").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_advisor.engine.sheet.models import Cooling, Fabric, FormFactor, Nic, ParsedSheet
from gpu_advisor.engine.specs import GpuSpec
from gpu_advisor.reading.sheet.cpus import CpuModel

HGX_NVSWITCH_GPUS = 8


@dataclass
class Draft:
    gpu: GpuSpec | None = None
    gpu_name_raw: str | None = None
    gpu_count: int | None = None
    gpu_count_rank: int = 0
    gpu_memory_written: float | None = None
    gpu_hints: set[str] = field(default_factory=set)
    form_factor: FormFactor | None = None
    fabrics: set[Fabric] = field(default_factory=set)
    cpu_sockets: int | None = None
    cpu_model_raw: str | None = None
    cpu: CpuModel | None = None
    cpu_cores_written: int | None = None
    cpu_cores_are_total: bool = False
    cpu_high_clock: bool = False
    ram_gb: float | None = None
    storage_listed: bool = False
    nvme: list[tuple[int, float | None]] = field(default_factory=list)
    system_disks: int | None = None
    nics: list[Nic] = field(default_factory=list)
    infiniband: bool = False
    roce: bool = False
    power_w: float | None = None
    redundant_power: bool = False
    cooling: set[Cooling] = field(default_factory=set)
    chassis_u: int | None = None
    mentions_training: bool = False
    mentions_inference: bool = False
    mentions_multi_node: bool = False

    def set_gpu_count(self, count: int, rank: int) -> None:
        if rank > self.gpu_count_rank:
            self.gpu_count, self.gpu_count_rank = count, rank


def _form_factor(d: Draft) -> FormFactor | None:
    if d.form_factor is not None:
        return d.form_factor
    if d.gpu is None:
        return None
    return "sxm" if d.gpu.form_factor in ("sxm", "oam") else "pcie"


def _interconnect(d: Draft, form: FormFactor | None) -> tuple[Fabric | None, bool]:
    for fabric in ("nvswitch", "nvlink", "pcie"):
        if fabric in d.fabrics:
            return fabric, False
    if form == "sxm":
        dense = (d.gpu_count or 0) >= HGX_NVSWITCH_GPUS
        return ("nvswitch" if dense else "nvlink"), True
    if form == "pcie":
        return "pcie", True
    return None, False


def _cpu_cores(d: Draft) -> int | None:
    sockets = d.cpu_sockets or 1
    if d.cpu is not None:
        return d.cpu.cores * sockets
    if d.cpu_cores_written is None:
        return None
    return d.cpu_cores_written if d.cpu_cores_are_total else d.cpu_cores_written * sockets


def _nvme(d: Draft) -> tuple[int | None, float | None]:
    if not d.nvme:
        return (0 if d.storage_listed else None), None
    count = sum(n for n, _ in d.nvme)
    sizes = [n * tb for n, tb in d.nvme if tb is not None]
    total = round(sum(sizes), 2) if len(sizes) == len(d.nvme) else None
    return count, total


def finish(d: Draft) -> ParsedSheet:
    form = _form_factor(d)
    interconnect, inferred = _interconnect(d, form)
    nvme_count, nvme_tb = _nvme(d)
    memory = d.gpu_memory_written or (d.gpu.memory_gb if d.gpu else None)
    cooling: Cooling | None = "liquid" if "liquid" in d.cooling else ("air" if d.cooling else None)
    return ParsedSheet(
        gpu_model=d.gpu.id if d.gpu else None,
        gpu_name_raw=d.gpu_name_raw,
        gpu_count=d.gpu_count,
        gpu_memory_gb=memory,
        gpu_hints=sorted(d.gpu_hints),
        form_factor=form,
        interconnect=interconnect,
        interconnect_inferred=inferred,
        cpu_sockets=d.cpu_sockets,
        cpu_model_raw=d.cpu_model_raw,
        cpu_model=d.cpu.name if d.cpu else None,
        cpu_cores=_cpu_cores(d),
        cpu_high_clock=d.cpu_high_clock or bool(d.cpu and d.cpu.high_clock),
        ram_gb=d.ram_gb,
        nvme_count=nvme_count,
        nvme_tb_total=nvme_tb,
        system_disks=d.system_disks,
        nics=list(d.nics),
        nic_total_gbps=sum(n.count * n.gbps for n in d.nics) if d.nics else None,
        infiniband=d.infiniband,
        roce=d.roce,
        power_w=d.power_w,
        redundant_power=d.redundant_power,
        cooling=cooling,
        chassis_u=d.chassis_u,
        mentions_training=d.mentions_training,
        mentions_inference=d.mentions_inference,
        mentions_multi_node=d.mentions_multi_node,
    )
