"""The public shape of a configuration-sheet analysis (a JSON contract: keep the names).

Every field is a number, a stable id or the sheet's own words (``*_raw``); nothing here
is prose. ``locales/<lang>/sheet.yaml`` holds one template per id:
``sheet.signal.<id>``, ``sheet.pitfall.<id>``, ``sheet.stress.<id>`` and so on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.findings import Finding, Value

Side = Literal["training", "inference"]
Verdict = Literal["training", "inference", "mixed"]
FormFactor = Literal["sxm", "pcie"]
Fabric = Literal["nvswitch", "nvlink", "pcie"]
Cooling = Literal["air", "liquid"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class Nic(_Frozen):
    """One group of identical network ports: ``count`` × ``gbps``."""

    count: int
    gbps: float


class ParsedSheet(_Frozen):
    """What the sheet says, field by field; None where the sheet is silent.

    ``gpu_model`` is a knowledge-base id. ``gpu_memory_gb`` is per card: the figure
    written on the sheet, else the knowledge card's. ``interconnect`` is what the sheet
    writes or, when it is silent, what the card's form factor implies
    (``interconnect_inferred``). ``cpu_cores`` is the total over all sockets.
    ``ram_gb`` counts 1 TB as 1024 GB (DIMMs come in powers of two); drive sizes are
    decimal TB as vendors print them. ``power_w`` is the installed supply rating
    (count × rating). Where the sheet offers alternatives ("256GB / 512GB") the first
    is read.
    """

    gpu_model: str | None = None
    gpu_name_raw: str | None = None
    gpu_count: int | None = None
    gpu_memory_gb: float | None = None
    gpu_hints: list[str] = Field(default_factory=list)
    form_factor: FormFactor | None = None
    interconnect: Fabric | None = None
    interconnect_inferred: bool = False
    cpu_sockets: int | None = None
    cpu_model_raw: str | None = None
    cpu_model: str | None = None
    cpu_cores: int | None = None
    cpu_high_clock: bool = False
    ram_gb: float | None = None
    nvme_count: int | None = None
    nvme_tb_total: float | None = None
    system_disks: int | None = None
    nics: list[Nic] = Field(default_factory=list)
    nic_total_gbps: float | None = None
    infiniband: bool = False
    roce: bool = False
    power_w: float | None = None
    redundant_power: bool = False
    cooling: Cooling | None = None
    chassis_u: int | None = None
    mentions_training: bool = False
    mentions_inference: bool = False
    mentions_multi_node: bool = False

    @property
    def max_nic_gbps(self) -> float | None:
        return max((n.gbps for n in self.nics), default=None)


class Signal(_Frozen):
    """One seed-004 sign that a box leans one way, with the weight it adds to that side."""

    id: str
    weight: int
    side: Side
    values: dict[str, Value] = Field(default_factory=dict)


class StressTests(_Frozen):
    first: list[str] = Field(default_factory=list)
    second: list[str] = Field(default_factory=list)


class SheetNumbers(_Frozen):
    """The arithmetic behind the verdict, against the seed-000 §8.8 8-GPU training baseline.

    Link figures are achieved one-way GB/s per GPU (``engine.interconnect.link_gbs``):
    ``link_gbs`` for the fabric this box has, ``nvlink_gbs`` for the NVLink/NVSwitch
    build of the same card (its SXM sibling when the sheet's card is PCIe), ``pcie_gbs``
    over PCIe.
    """

    total_gpu_memory_gb: float | None = None
    link_gbs: float | None = None
    nvlink_gbs: float | None = None
    pcie_gbs: float | None = None
    nvlink_vs_pcie: float | None = None
    cpu_cores_per_gpu: float | None = None
    ram_gb_per_gpu: float | None = None
    nvme_tb_total: float | None = None
    baseline_cores: int
    baseline_ram_gb: int
    baseline_nvme: str
    baseline_nvme_count: int
    baseline_nvme_tb: float
    baseline_cores_per_gpu: float
    baseline_ram_gb_per_gpu: float


class SheetAnalysis(_Frozen):
    """Everything ``reading.sheet.analyze`` says about one sheet.

    ``score`` is ``training_score - inference_score`` (each the sum of the fired
    signals' weights on that side); see ``engine.sheet.verdict`` for the margin.
    ``understood_fields`` counts parsed fields with a value, so a caller can tell an
    empty or junk sheet from a genuinely balanced one.
    """

    parsed: ParsedSheet
    unparsed_lines: list[str] = Field(default_factory=list)
    truncated: bool = False
    understood_fields: int = 0
    verdict: Verdict
    score: int
    training_score: int
    inference_score: int
    signals: list[Signal] = Field(default_factory=list)
    good_for: list[str] = Field(default_factory=list)
    bad_for: list[str] = Field(default_factory=list)
    fears: list[str] = Field(default_factory=list)
    stress_tests: StressTests = Field(default_factory=StressTests)
    vendor_questions: list[str] = Field(default_factory=list)
    pitfalls: list[Finding] = Field(default_factory=list)
    numbers: SheetNumbers
