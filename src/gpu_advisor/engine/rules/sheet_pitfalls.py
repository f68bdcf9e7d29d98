"""Mismatches inside one sheet: parts that do not fit the job the rest of the box is for.

Each rule returns a ``Finding`` carrying the numbers that make the point, or None.

- ``pcie_sold_as_training_node``: eight training-class cards (A100/H100 family) joined
  only by PCIe; the classic trap of seed 000 (pitfall 5). Figures are achieved one-way
  GB/s from ``engine.interconnect.link_gbs`` for the card and its SXM sibling.
- ``ram_starves_gpus`` / ``cpu_starves_gpus``: below seed 000 §8.8's 8-GPU baseline of
  512 GB and 64 cores, i.e. 64 GB and 8 cores per GPU, the cards wait for data.
- ``no_nvme_for_training``: a training box without NVMe data drives (baseline 4 × 3.84 TB).
- ``consumer_cards_multi_node_training``: GeForce cards (no NVLink, no peer-to-peer)
  dressed up with 100 Gb-class NICs or sold for multi-node training.
- ``fat_nic_on_inference_box``: a 200 Gb-class NIC on a box that reads as inference;
  seed 002's "training thinking applied to an inference purchase".
- ``labelled_training_reads_inference`` / ``labelled_inference_reads_training``: the
  sheet's own label contradicts its hardware.
- ``china_variant``: A800/H800/H20/L20 against the card they were cut from.
- ``mig_slicing_possible``: a card with MIG on a box that is not a training node can
  be sliced into up to seven isolated instances (NVIDIA MIG user guide).

Each rule is declared in ``RULES`` with a sheet per branch (layout:
``engine/rules/__init__.py``); the arithmetic the plan shares (its twins
``pcie_card_sold_as_nvlink_trainer``, ``cpu_ram_storage_starve_gpus``,
``consumer_card_limits``, ``china_variant_limits``) is in ``engine/rules/parts.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.rules import parts
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.sheet_signals import FAST_NIC_GBPS
from gpu_advisor.engine.sheet.models import ParsedSheet, Verdict
from gpu_advisor.engine.sheet.numbers import card
from gpu_advisor.engine.specs import Knowledge

MIG_MAX_INSTANCES = 7
MULTI_NODE_NIC_GBPS = 100


@dataclass(frozen=True)
class Context:
    p: ParsedSheet
    kb: Knowledge
    verdict: Verdict
    training_score: int
    inference_score: int


SheetCheck = Callable[[Context], Finding | None]


def pcie_sold_as_training_node(c: Context) -> Finding | None:
    p, gpu = c.p, card(c.p, c.kb)
    n = p.gpu_count or 0
    if gpu is None or p.interconnect != "pcie" or gpu.role != "training":
        return None
    if not (n >= c.kb.node_baseline.gpus or (n >= 2 and p.mentions_training and not p.mentions_inference)):
        return None
    gap = parts.link_gap(gpu, n, c.kb)
    if gap is None:
        return None
    return finding(
        "pcie_sold_as_training_node",
        "high",
        gpu=gpu.name,
        gpus=n,
        pcie_gbs=round(gap.pcie_gbs, 1),
        nvlink_gbs=round(gap.nvlink_gbs, 1),
        sxm_gpu=gap.reference.name,
        ratio=round(gap.nvlink_gbs / gap.pcie_gbs, 1),
    )


def consumer_cards_multi_node_training(c: Context) -> Finding | None:
    p, gpu = c.p, card(c.p, c.kb)
    limits = parts.consumer_limits(gpu) if gpu else None
    if limits is None:
        return None
    fat_nic = (p.max_nic_gbps or 0) >= MULTI_NODE_NIC_GBPS or p.infiniband or p.roce
    if not (fat_nic or (p.mentions_multi_node and p.mentions_training)):
        return None
    return finding(
        "consumer_cards_multi_node_training", "high", gpus=p.gpu_count, max_nic_gbps=p.max_nic_gbps, **limits
    )


def ram_starves_gpus(c: Context) -> Finding | None:
    p = c.p
    if c.verdict == "inference" or p.ram_gb is None or not p.gpu_count:
        return None
    feed = parts.Feed(p.gpu_count, p.cpu_cores, p.ram_gb, c.kb.node_baseline)
    if not feed.ram_short:
        return None
    return finding(
        "ram_starves_gpus",
        "warn",
        ram_gb=p.ram_gb,
        gpus=p.gpu_count,
        ram_gb_per_gpu=round(p.ram_gb / p.gpu_count, 1),
        baseline_ram_gb_per_gpu=c.kb.node_baseline.ram_gb_per_gpu,
        need_ram_gb=feed.need_ram_gb,
    )


def cpu_starves_gpus(c: Context) -> Finding | None:
    p = c.p
    if c.verdict == "inference" or p.cpu_cores is None or not p.gpu_count:
        return None
    feed = parts.Feed(p.gpu_count, p.cpu_cores, p.ram_gb, c.kb.node_baseline)
    if not feed.cpu_short:
        return None
    return finding(
        "cpu_starves_gpus",
        "warn",
        cpu_cores=p.cpu_cores,
        gpus=p.gpu_count,
        cores_per_gpu=round(p.cpu_cores / p.gpu_count, 1),
        baseline_cores_per_gpu=c.kb.node_baseline.cores_per_gpu,
        need_cores=feed.need_cores,
    )


def no_nvme_for_training(c: Context) -> Finding | None:
    if c.verdict != "training" or (c.p.nvme_count or 0) > 0:
        return None
    return finding(
        "no_nvme_for_training",
        "warn",
        nvme_count=0,
        storage_listed=c.p.nvme_count is not None,
        baseline_nvme=c.kb.node_baseline.nvme,
        baseline_nvme_count=c.kb.node_baseline.nvme_count,
    )


def fat_nic_on_inference_box(c: Context) -> Finding | None:
    fastest = c.p.max_nic_gbps
    if c.verdict != "inference" or fastest is None or fastest < FAST_NIC_GBPS:
        return None
    return finding(
        "fat_nic_on_inference_box",
        "warn",
        max_nic_gbps=fastest,
        nic_total_gbps=c.p.nic_total_gbps,
        gpus=c.p.gpu_count,
    )


def labelled_training_reads_inference(c: Context) -> Finding | None:
    p = c.p
    if not (p.mentions_training and not p.mentions_inference and c.verdict == "inference"):
        return None
    return finding(
        "labelled_training_reads_inference",
        "warn",
        training_score=c.training_score,
        inference_score=c.inference_score,
    )


def labelled_inference_reads_training(c: Context) -> Finding | None:
    p = c.p
    if not (p.mentions_inference and not p.mentions_training and c.verdict == "training"):
        return None
    return finding(
        "labelled_inference_reads_training",
        "warn",
        training_score=c.training_score,
        inference_score=c.inference_score,
    )


def china_variant(c: Context) -> Finding | None:
    gpu = card(c.p, c.kb)
    cut = parts.china_cut(gpu, c.kb) if gpu else None
    return finding("china_variant", "info", **cut) if cut else None


MIG_SLICING = "mig_slicing_possible"  # the verdict lists slicing among what the box is good for


def mig_slicing_possible(c: Context) -> Finding | None:
    gpu = card(c.p, c.kb)
    if c.verdict == "training" or gpu is None or not gpu.mig_profiles:
        return None
    return finding(
        MIG_SLICING,
        "info",
        gpu=gpu.name,
        smallest=gpu.mig_profiles[0],
        profiles=list(gpu.mig_profiles),
        instances=MIG_MAX_INSTANCES,
    )


def _sheet(text: str) -> tuple[Scenario, ...]:
    return (Scenario(sheet=text),)


RULES: tuple[Rule[SheetCheck], ...] = (
    Rule(
        id="pcie_sold_as_training_node",
        check=pcie_sold_as_training_node,
        scenarios=_sheet("8×A100 80G PCIe, 2×EPYC 7763, 1TB, 2×25GbE"),
        twin="pcie_card_sold_as_nvlink_trainer",
    ),
    Rule(
        id="consumer_cards_multi_node_training",
        check=consumer_cards_multi_node_training,
        scenarios=_sheet("8×RTX 4090 24G, 2×EPYC 7543, 512GB, 2×100G NIC, for multi-node training"),
        twin="consumer_card_limits",
    ),
    Rule(
        id="ram_starves_gpus",
        check=ram_starves_gpus,
        scenarios=_sheet("8 x H100 SXM5 80GB, 2 x Xeon 8480+, 128GB DDR5, 4 x 3.84TB NVMe, 8 x 400G IB"),
        twin="cpu_ram_storage_starve_gpus",
    ),
    Rule(
        id="cpu_starves_gpus",
        check=cpu_starves_gpus,
        scenarios=_sheet("8 × H100 SXM5 80GB, 1 × Xeon Silver 4314, 1TB DDR5, 4 × 3.84TB NVMe, 8 × 400G IB"),
        twin="cpu_ram_storage_starve_gpus",
    ),
    Rule(
        id="no_nvme_for_training",
        check=no_nvme_for_training,
        scenarios=_sheet("8 × A100 SXM4 80GB, NVSwitch, 2 × EPYC 7763, 1TB, 2 × 960GB SATA SSD, 2 × 200G IB"),
        twin="cpu_ram_storage_starve_gpus",
    ),
    Rule(
        id="fat_nic_on_inference_box",
        check=fat_nic_on_inference_box,
        scenarios=_sheet(
            "4 × NVIDIA L40S 48GB PCIe\n2 × Xeon Gold 6330\n512GB DDR4\n2 × 200Gb ConnectX-7 网卡\n4U 风冷"
        ),
    ),
    Rule(
        id="labelled_training_reads_inference",
        check=labelled_training_reads_inference,
        scenarios=_sheet("用途：模型训练\nGPU：4 × T4 16G\n网络：2 × 25GbE\n机箱：2U 风冷"),
    ),
    Rule(
        id="labelled_inference_reads_training",
        check=labelled_inference_reads_training,
        scenarios=_sheet(
            "Purpose: inference serving\nGPU: 8 x H100 SXM5 80GB\nFabric: NVSwitch\nNetwork: 8 x 400G IB"
        ),
    ),
    Rule(
        id="china_variant",
        check=china_variant,
        scenarios=_sheet("8 × H20 96GB, NVSwitch, 2 × EPYC 9654, 2TB, 4 × 3.84TB NVMe, 4 × 200G RoCE"),
        twin="china_variant_limits",
    ),
    Rule(
        id="mig_slicing_possible",
        check=mig_slicing_possible,
        scenarios=_sheet("1 × A100 80G PCIe, 1 × EPYC 9124, 256GB, 1 × 25GbE"),
    ),
)
# A label contradiction is not worth a line of its own when a sharper rule already explains it.
SUBSUMES_LABEL = frozenset({"pcie_sold_as_training_node", "consumer_cards_multi_node_training"})
LABEL_RULES = frozenset({"labelled_training_reads_inference", "labelled_inference_reads_training"})


def find(c: Context) -> list[Finding]:
    found = [f for f in (rule.check(c) for rule in RULES) if f is not None]
    if any(f.id in SUBSUMES_LABEL for f in found):
        found = [f for f in found if f.id not in LABEL_RULES]
    return found


def rule_ids() -> list[str]:
    return [rule.id for rule in RULES]
