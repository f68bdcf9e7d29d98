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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.findings import Finding, finding
from engine.interconnect import link_gbs
from engine.sheet.gpus import TRAINING_FAMILIES, family
from engine.sheet.models import ParsedSheet, Verdict
from engine.sheet.numbers import (
    BASELINE_GPUS,
    BASELINE_NVME,
    BASELINE_NVME_COUNT,
    CORES_PER_GPU,
    RAM_GB_PER_GPU,
    card,
    nvlink_card,
    nvlink_fabric,
)
from engine.sheet.signals import FAST_NIC_GBPS
from engine.specs import Knowledge

# The card each China-market variant was derived from (same die, cut interconnect or compute).
CHINA_REFERENCE = {"a800-80g-sxm": "a100-80g-sxm", "h800-sxm": "h100-sxm", "h20": "h100-sxm", "l20": "l40s"}
MIG_MAX_INSTANCES = 7
MULTI_NODE_NIC_GBPS = 100


@dataclass(frozen=True)
class Context:
    p: ParsedSheet
    kb: Knowledge
    verdict: Verdict
    training_score: int
    inference_score: int


Rule = Callable[[Context], Finding | None]


def pcie_sold_as_training_node(c: Context) -> Finding | None:
    p, gpu = c.p, card(c.p, c.kb)
    n = p.gpu_count or 0
    if gpu is None or p.interconnect != "pcie" or family(gpu.id) not in TRAINING_FAMILIES:
        return None
    if not (n >= BASELINE_GPUS or (n >= 2 and p.mentions_training and not p.mentions_inference)):
        return None
    sibling = nvlink_card(gpu, c.kb)
    if sibling is None:
        return None
    pcie, nvlink = link_gbs(gpu, "pcie"), link_gbs(sibling, nvlink_fabric(n))
    return finding(
        "pcie_sold_as_training_node",
        "high",
        gpu=gpu.name,
        gpus=n,
        pcie_gbs=round(pcie, 1),
        nvlink_gbs=round(nvlink, 1),
        sxm_gpu=sibling.name,
        ratio=round(nvlink / pcie, 1),
    )


def consumer_cards_multi_node_training(c: Context) -> Finding | None:
    p, gpu = c.p, card(c.p, c.kb)
    if gpu is None or gpu.segment != "consumer":
        return None
    fat_nic = (p.max_nic_gbps or 0) >= MULTI_NODE_NIC_GBPS or p.infiniband or p.roce
    if not (fat_nic or (p.mentions_multi_node and p.mentions_training)):
        return None
    return finding(
        "consumer_cards_multi_node_training",
        "high",
        gpu=gpu.name,
        gpus=p.gpu_count,
        memory_gb=gpu.memory_gb,
        nvlink_gbs=gpu.nvlink_gbs,
        pcie_gbs=round(link_gbs(gpu, "pcie"), 1),
        max_nic_gbps=p.max_nic_gbps,
    )


def ram_starves_gpus(c: Context) -> Finding | None:
    p = c.p
    if c.verdict == "inference" or p.ram_gb is None or not p.gpu_count:
        return None
    per_gpu = p.ram_gb / p.gpu_count
    if per_gpu >= RAM_GB_PER_GPU:
        return None
    return finding(
        "ram_starves_gpus",
        "warn",
        ram_gb=p.ram_gb,
        gpus=p.gpu_count,
        ram_gb_per_gpu=round(per_gpu, 1),
        baseline_ram_gb_per_gpu=RAM_GB_PER_GPU,
        need_ram_gb=RAM_GB_PER_GPU * p.gpu_count,
    )


def cpu_starves_gpus(c: Context) -> Finding | None:
    p = c.p
    if c.verdict == "inference" or p.cpu_cores is None or not p.gpu_count:
        return None
    per_gpu = p.cpu_cores / p.gpu_count
    if per_gpu >= CORES_PER_GPU:
        return None
    return finding(
        "cpu_starves_gpus",
        "warn",
        cpu_cores=p.cpu_cores,
        gpus=p.gpu_count,
        cores_per_gpu=round(per_gpu, 1),
        baseline_cores_per_gpu=CORES_PER_GPU,
        need_cores=round(CORES_PER_GPU * p.gpu_count),
    )


def no_nvme_for_training(c: Context) -> Finding | None:
    if c.verdict != "training" or (c.p.nvme_count or 0) > 0:
        return None
    return finding(
        "no_nvme_for_training",
        "warn",
        nvme_count=0,
        storage_listed=c.p.nvme_count is not None,
        baseline_nvme=BASELINE_NVME,
        baseline_nvme_count=BASELINE_NVME_COUNT,
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
    ref = c.kb.gpus.get(CHINA_REFERENCE.get(gpu.id, "")) if gpu and gpu.china_variant else None
    if gpu is None or ref is None:
        return None
    return finding(
        "china_variant",
        "info",
        gpu=gpu.name,
        ref_gpu=ref.name,
        nvlink_gbs=gpu.nvlink_gbs,
        ref_nvlink_gbs=ref.nvlink_gbs,
        bf16_tflops=gpu.tflops("bf16"),
        ref_bf16_tflops=ref.tflops("bf16"),
        compute_share=round(gpu.tflops("bf16") / ref.tflops("bf16"), 3),
        memory_gb=gpu.memory_gb,
        bandwidth_gbs=gpu.bandwidth_gbs,
    )


def mig_slicing_possible(c: Context) -> Finding | None:
    gpu = card(c.p, c.kb)
    if c.verdict == "training" or gpu is None or not gpu.mig_profiles:
        return None
    return finding(
        "mig_slicing_possible",
        "info",
        gpu=gpu.name,
        smallest=gpu.mig_profiles[0],
        profiles=list(gpu.mig_profiles),
        instances=MIG_MAX_INSTANCES,
    )


RULES: tuple[Rule, ...] = (
    pcie_sold_as_training_node,
    consumer_cards_multi_node_training,
    ram_starves_gpus,
    cpu_starves_gpus,
    no_nvme_for_training,
    fat_nic_on_inference_box,
    labelled_training_reads_inference,
    labelled_inference_reads_training,
    china_variant,
    mig_slicing_possible,
)
# A label contradiction is not worth a line of its own when a sharper rule already explains it.
SUBSUMES_LABEL = frozenset({"pcie_sold_as_training_node", "consumer_cards_multi_node_training"})
LABEL_RULES = frozenset({"labelled_training_reads_inference", "labelled_inference_reads_training"})


def find(c: Context) -> list[Finding]:
    found = [f for f in (rule(c) for rule in RULES) if f is not None]
    if any(f.id in SUBSUMES_LABEL for f in found):
        found = [f for f in found if f.id not in LABEL_RULES]
    return found


def rule_ids() -> list[str]:
    return [rule.__name__ for rule in RULES]
