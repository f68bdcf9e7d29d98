"""The configuration-sheet analyser reads a pasted sheet and says what the box is for.

The two seed-004 sheets are restated here in our own words with the same facts; the
other sheets are the shapes people paste (one-liners, English, traditional Chinese,
markdown tables, junk). Link figures come from engine.interconnect.link_gbs:
A100 80GB PCIe = 1.969 GB/s × 16 lanes × 0.6 ≈ 18.9 GB/s one way; A100 SXM4 on
NVSwitch = 600 / 2 × 0.8 = 240 GB/s; H100 SXM5 on NVSwitch = 900 / 2 × 1.05 = 472.5.
"""

from __future__ import annotations

import re
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_advisor import locales
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.rules import sheet_pitfalls, sheet_signals
from gpu_advisor.engine.sheet import ParsedSheet, SheetAnalysis, SheetNumbers
from gpu_advisor.engine.sheet import verdict as sheet_verdict
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.sheet import MAX_CHARS, analyze

# Seed 004, case 1, in our words: 8 big cards on NVLink/NVSwitch, 1 TB, 2 × 200 Gb, 8U.
SEED_TRAINING = """用途：8 卡训练节点
- 处理器：2 路 Xeon 或 EPYC
- 内存：1TB DDR5
- 加速卡：8 × 数据中心级大显存 GPU
- 卡间互联：NVLink + NVSwitch
- 存储：
  - 系统盘 SSD × 2
  - NVMe 数据盘 × 4
- 网络：200Gb 网卡 × 2
- 电源：高功率，冗余
- 散热：风冷或液冷
- 机箱：8U 高密度
"""

# Seed 004, case 2, in our words: 4 cards on plain PCIe, 256/512 GB, 2 × 25/100 Gb, 4U air.
SEED_INFERENCE = """定位：4 卡推理部署服务器
CPU：1 路高频，或 2 路中端
内存：256GB（可选 512GB）
GPU：4 × 推理型 GPU（中高端）
互联：PCIe
系统盘 × 2，NVMe 缓存盘 × 2
网卡：25Gb / 100Gb × 2
电源：冗余
散热：风冷，4U 机箱
"""

A100_PCIE_ONE_LINER = "8×A100 80G PCIe, 2×EPYC 7763, 1TB, 2×25GbE"

H100_STARVED_RAM = """GPU: 8 x NVIDIA H100 SXM5 80GB
CPU: 2 x Intel Xeon Platinum 8480+
Memory: 128GB DDR5
Storage: 2 x 960GB SATA SSD (OS) + 4 x 3.84TB NVMe U.2
Network: 8 x 400G NDR InfiniBand, 2 x 25GbE
Power: 4 x 3000W (2+2 redundant)
"""

RTX4090_CLUSTER = "8×RTX 4090 24G, 2×EPYC 7543, 512GB, 2×100G NIC, for multi-node training"

L40S_FAT_NIC = """4 × NVIDIA L40S 48GB PCIe
2 × Xeon Gold 6330
512GB DDR4
2 × 200Gb ConnectX-7 网卡
4U 风冷
"""

ENGLISH = """Model: 4-GPU inference server
Processor: single-socket AMD EPYC 9354P, 32 cores
RAM: 384 GB DDR5 ECC
GPUs: 4x NVIDIA L4 24GB
Interconnect: PCIe Gen4
Drives: 2x 480GB M.2 boot, 2x 3.84TB NVMe
NICs: dual-port 25GbE
PSU: 2x 1600W redundant
Form factor: 2U, air-cooled
"""

TRADITIONAL = """機型定位：8 卡訓練伺服器
處理器：雙路 AMD EPYC 9654
記憶體：2TB DDR5
顯示卡：8 × H800 SXM5 80GB
GPU 互連：NVSwitch
儲存：4 × 7.68TB NVMe 資料碟，2 × 960GB 系統碟
網路：4 × 400Gb InfiniBand 網卡
散熱：液冷
機箱：8U
"""

MARKDOWN = """| 部件 | 配置 |
|---|---|
| GPU | 8 × H100 SXM5 80GB |
| CPU | 2 × Xeon Platinum 8468 |
| 内存 | 2TB DDR5 |
| 存储 | 8 × 3.84TB NVMe |
| 网络 | 8 × 400G IB + 2 × 100G |
| 机箱 | 6U |
"""

JUNK = """asdf qwer zxcv
!!!@@@###
价格：¥80,000/月
GPU: lots
内存：很大
{}{}[]
8×A100
"""

H20 = "8 × H20 96GB, NVSwitch, 2 × EPYC 9654, 2TB, 4 × 3.84TB NVMe, 4 × 200G RoCE"

TWO_T4 = "2 × T4 16G, 1 × Xeon Silver 4314, 128GB, 2 × 10GbE, 1U"

H100_ONE_SMALL_CPU = "8 × H100 SXM5 80GB, 1 × Xeon Silver 4314, 1TB DDR5, 4 × 3.84TB NVMe, 8 × 400G IB"

A100_NO_NVME = "8 × A100 SXM4 80GB, NVSwitch, 2 × EPYC 7763, 1TB, 2 × 960GB SATA SSD, 2 × 200G IB"

LABELLED_TRAINING_T4 = """用途：模型训练
GPU：4 × T4 16G
网络：2 × 25GbE
机箱：2U 风冷
"""

LABELLED_INFERENCE_H100 = """Purpose: inference serving
GPU: 8 x H100 SXM5 80GB
Fabric: NVSwitch
Network: 8 x 400G IB
"""

ONE_L4 = "1 × L4 24GB, 1 × EPYC 9124, 64GB, 1 × 25GbE, 1U"

FULL_WIDTH = "ＧＰＵ：８×Ｈ１００　ＳＸＭ，ＣＰＵ：２×８４８０＋，内存：１ＴＢ"

ALL_SHEETS = {
    "seed_training": SEED_TRAINING,
    "seed_inference": SEED_INFERENCE,
    "a100_pcie_one_liner": A100_PCIE_ONE_LINER,
    "h100_starved_ram": H100_STARVED_RAM,
    "rtx4090_cluster": RTX4090_CLUSTER,
    "l40s_fat_nic": L40S_FAT_NIC,
    "english": ENGLISH,
    "traditional": TRADITIONAL,
    "markdown": MARKDOWN,
    "junk": JUNK,
    "empty": "",
    "h20": H20,
    "two_t4": TWO_T4,
    "h100_one_small_cpu": H100_ONE_SMALL_CPU,
    "a100_no_nvme": A100_NO_NVME,
    "labelled_training_t4": LABELLED_TRAINING_T4,
    "labelled_inference_h100": LABELLED_INFERENCE_H100,
    "one_l4": ONE_L4,
    "full_width": FULL_WIDTH,
}

EXPECTED_VERDICTS = {
    "seed_training": "training",
    "seed_inference": "inference",
    "a100_pcie_one_liner": "mixed",
    "h100_starved_ram": "training",
    "rtx4090_cluster": "inference",
    "l40s_fat_nic": "inference",
    "english": "inference",
    "traditional": "training",
    "markdown": "training",
    "empty": "mixed",
    "h20": "training",
    "two_t4": "inference",
    "h100_one_small_cpu": "training",
    "a100_no_nvme": "training",
    "labelled_training_t4": "inference",
    "labelled_inference_h100": "training",
    "one_l4": "inference",
    "full_width": "training",
}


@pytest.fixture(scope="module")
def results(kb: Knowledge) -> dict[str, SheetAnalysis]:
    return {name: analyze(text, kb) for name, text in ALL_SHEETS.items()}


def _signal_ids(a: SheetAnalysis) -> set[str]:
    return {s.id for s in a.signals}


def _pitfall(a: SheetAnalysis, pitfall_id: str) -> Finding:
    found = [f for f in a.pitfalls if f.id == pitfall_id]
    assert found, f"{pitfall_id} not in {[f.id for f in a.pitfalls]}"
    return found[0]


# -- verdicts -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), sorted(EXPECTED_VERDICTS.items()))
def test_each_sheet_gets_the_expected_verdict(
    results: dict[str, SheetAnalysis], name: str, expected: str
) -> None:
    assert results[name].verdict == expected


def test_score_is_training_minus_inference_and_the_margin_decides(results: dict[str, SheetAnalysis]) -> None:
    for a in results.values():
        assert a.score == a.training_score - a.inference_score
        assert a.training_score == sum(s.weight for s in a.signals if s.side == "training")
        margin = sheet_verdict.MIXED_MARGIN
        expected = "training" if a.score > margin else "inference" if a.score < -margin else "mixed"
        assert a.verdict == expected


# -- the two seed-004 sheets ------------------------------------------------------------


def test_seed_training_node_reads_every_training_signal(results: dict[str, SheetAnalysis]) -> None:
    a = results["seed_training"]
    p = a.parsed
    assert (p.gpu_count, p.ram_gb, p.cpu_sockets, p.chassis_u) == (8, 1024, 2, 8)
    assert p.interconnect == "nvswitch" and not p.interconnect_inferred
    assert [(n.count, n.gbps) for n in p.nics] == [(2, 200)]
    assert p.nic_total_gbps == 400
    assert (p.nvme_count, p.system_disks) == (4, 2)
    assert p.cooling == "liquid" and p.redundant_power
    assert "large_memory" in p.gpu_hints
    assert {
        "gpu_count_8_dense",
        "large_memory_gpus",
        "nvlink_nvswitch",
        "high_speed_nics_200g",
        "ram_1tb",
        "nvme_array",
        "liquid_cooling",
        "chassis_8u",
    } <= _signal_ids(a)
    assert all(s.side == "training" for s in a.signals)
    assert a.unparsed_lines == []


def test_seed_training_node_gets_the_training_lists(results: dict[str, SheetAnalysis]) -> None:
    a = results["seed_training"]
    assert a.stress_tests.first == [
        "gpu_burn_in",
        "nccl_allreduce",
        "multi_gpu_scaling_efficiency",
        "multi_node_network",
    ]
    assert a.stress_tests.second == ["cpu_memory_feed", "nvme_read", "checkpoint_write"]
    assert a.fears == ["comm_not_tuned", "long_run_instability", "data_feed_bottleneck"]
    assert "large_model_training" in a.good_for and a.bad_for == ["small_inference_rental"]
    assert a.vendor_questions[:2] == ["interconnect_topology", "nccl_8gpu_results"]
    assert a.pitfalls == []  # generic cards: nothing to compute a mismatch from


def test_seed_inference_node_reads_every_inference_signal(results: dict[str, SheetAnalysis]) -> None:
    a = results["seed_inference"]
    p = a.parsed
    assert (p.gpu_count, p.ram_gb, p.cpu_sockets, p.chassis_u) == (4, 256, 1, 4)
    assert p.interconnect == "pcie" and p.cooling == "air" and p.cpu_high_clock
    assert [(n.count, n.gbps) for n in p.nics] == [(2, 25)]  # "25Gb / 100Gb": the first option is read
    assert (p.nvme_count, p.system_disks) == (2, 2)
    assert {
        "gpu_count_2_4",
        "pcie_interconnect",
        "nics_25_100g",
        "air_cooled_4u",
        "single_socket_high_clock",
        "inference_class_gpu",
    } <= _signal_ids(a)
    assert a.training_score == 0
    assert a.stress_tests.first == [
        "single_card_throughput",
        "concurrent_throughput",
        "ttft",
        "p95_p99_latency",
        "long_run_service_stability",
    ]
    assert a.stress_tests.second == ["model_load_time", "cpu_scheduling", "cache_disk"]
    assert "poor_tail_latency" in a.fears and a.bad_for == ["heavy_multi_node_training"]
    assert a.vendor_questions[0] == "single_card_throughput"


# -- mismatches -------------------------------------------------------------------------


def test_8x_a100_pcie_is_mixed_and_flags_the_missing_nvlink(results: dict[str, SheetAnalysis]) -> None:
    # Training bulk (8 big cards, 1 TB) without the training fabric (PCIe, 25GbE): 4 vs 3.
    a = results["a100_pcie_one_liner"]
    p = a.parsed
    assert (p.gpu_model, p.gpu_count, p.gpu_memory_gb, p.form_factor) == ("a100-80g-pcie", 8, 80, "pcie")
    assert (p.cpu_sockets, p.cpu_cores, p.ram_gb, p.nic_total_gbps) == (2, 128, 1024, 50)
    assert (a.training_score, a.inference_score) == (4, 3)
    f = _pitfall(a, "pcie_sold_as_training_node")
    assert f.severity == "high"
    assert f.values["pcie_gbs"] == pytest.approx(18.9, abs=0.1)
    assert f.values["nvlink_gbs"] == pytest.approx(240.0)
    assert f.values["sxm_gpu"] == "NVIDIA A100 80GB SXM4"
    assert a.numbers.nvlink_vs_pcie == pytest.approx(12.7, abs=0.1)
    assert "mig_slice_rental" in a.good_for


def test_8x_h100_with_128gb_ram_starves_the_gpus(results: dict[str, SheetAnalysis]) -> None:
    # Seed 000 §8.8: 512 GB for 8 GPUs = 64 GB per GPU; 128 GB gives 16.
    a = results["h100_starved_ram"]
    p = a.parsed
    assert (p.gpu_model, p.ram_gb, p.cpu_cores, p.power_w) == ("h100-sxm", 128, 112, 12000)
    assert (p.nvme_count, p.nvme_tb_total, p.system_disks) == (4, 15.36, 2)
    assert p.infiniband and p.nic_total_gbps == 8 * 400 + 2 * 25
    f = _pitfall(a, "ram_starves_gpus")
    assert f.values == {
        "ram_gb": 128.0,
        "gpus": 8,
        "ram_gb_per_gpu": 16.0,
        "baseline_ram_gb_per_gpu": 64.0,
        "need_ram_gb": 512.0,
    }
    assert a.numbers.link_gbs == pytest.approx(472.5)


def test_one_silver_cpu_starves_eight_h100s(results: dict[str, SheetAnalysis]) -> None:
    a = results["h100_one_small_cpu"]
    assert a.parsed.cpu_cores == 16
    f = _pitfall(a, "cpu_starves_gpus")
    assert (f.values["cores_per_gpu"], f.values["need_cores"]) == (2.0, 64)


def test_training_box_without_nvme_is_flagged(results: dict[str, SheetAnalysis]) -> None:
    a = results["a100_no_nvme"]
    assert a.parsed.nvme_count == 0 and a.parsed.system_disks is None
    f = _pitfall(a, "no_nvme_for_training")
    assert f.values["storage_listed"] is True and f.values["baseline_nvme"] == "4×3.84TB"


def test_4090s_with_100g_for_multi_node_training_are_flagged(results: dict[str, SheetAnalysis]) -> None:
    a = results["rtx4090_cluster"]
    p = a.parsed
    assert (p.gpu_model, p.gpu_count, p.cpu_cores, p.ram_gb, p.nic_total_gbps) == ("rtx4090", 8, 64, 512, 200)
    assert p.mentions_multi_node and p.mentions_training
    f = _pitfall(a, "consumer_cards_multi_node_training")
    assert f.values["nvlink_gbs"] == 0 and f.values["pcie_gbs"] == pytest.approx(11.0, abs=0.1)
    # The sharper rule already says the label is wrong; no second line for it.
    assert all(not f.id.startswith("labelled_") for f in a.pitfalls)


def test_200g_nic_on_an_l40s_inference_box_is_flagged(results: dict[str, SheetAnalysis]) -> None:
    a = results["l40s_fat_nic"]
    assert (a.parsed.gpu_model, a.parsed.gpu_count, a.parsed.cpu_cores) == ("l40s", 4, 56)
    f = _pitfall(a, "fat_nic_on_inference_box")
    assert (f.values["max_nic_gbps"], f.values["nic_total_gbps"]) == (200, 400)
    assert "high_speed_nics_200g" in _signal_ids(a)  # counted, but outweighed


def test_h20_is_a_china_variant_with_a_fraction_of_h100_compute(results: dict[str, SheetAnalysis]) -> None:
    a = results["h20"]
    assert (a.parsed.gpu_model, a.parsed.gpu_memory_gb, a.parsed.roce) == ("h20", 96, True)
    f = _pitfall(a, "china_variant")
    # Knowledge base: H20 148 dense BF16 TFLOPS, H100 SXM5 989.5.
    assert (f.values["bf16_tflops"], f.values["ref_bf16_tflops"]) == (148.0, 989.5)
    assert f.values["compute_share"] == pytest.approx(0.15, abs=0.01)


def test_labels_that_contradict_the_hardware_are_flagged(results: dict[str, SheetAnalysis]) -> None:
    assert _pitfall(results["labelled_training_t4"], "labelled_training_reads_inference")
    assert _pitfall(results["labelled_inference_h100"], "labelled_inference_reads_training")


# -- input shapes -----------------------------------------------------------------------


def test_english_sheet_is_read_field_by_field(results: dict[str, SheetAnalysis]) -> None:
    p = results["english"].parsed
    assert (p.gpu_model, p.gpu_count, p.cpu_model, p.cpu_sockets, p.cpu_cores) == (
        "l4",
        4,
        "AMD EPYC 9354P",
        1,
        32,
    )
    assert (p.ram_gb, p.nvme_count, p.nvme_tb_total, p.system_disks) == (384, 2, 7.68, 2)
    assert (p.nic_total_gbps, p.power_w, p.redundant_power, p.chassis_u, p.cooling) == (
        50,
        3200,
        True,
        2,
        "air",
    )
    assert results["english"].unparsed_lines == []


def test_traditional_chinese_sheet_reads_like_simplified(results: dict[str, SheetAnalysis]) -> None:
    a = results["traditional"]
    p = a.parsed
    assert (p.gpu_model, p.gpu_count, p.cpu_cores, p.ram_gb) == ("h800-sxm", 8, 192, 2048)
    assert (p.nvme_count, p.nvme_tb_total, p.system_disks, p.nic_total_gbps) == (4, 30.72, 2, 1600)
    assert (p.cooling, p.chassis_u, p.interconnect) == ("liquid", 8, "nvswitch")
    f = _pitfall(a, "china_variant")
    assert (f.values["nvlink_gbs"], f.values["ref_nvlink_gbs"]) == (400, 900)
    assert a.unparsed_lines == []


def test_markdown_table_is_read_cell_by_cell(results: dict[str, SheetAnalysis]) -> None:
    a = results["markdown"]
    p = a.parsed
    assert (p.gpu_model, p.gpu_count, p.cpu_cores, p.ram_gb) == ("h100-sxm", 8, 96, 2048)
    assert (p.nvme_count, p.nvme_tb_total, p.nic_total_gbps, p.chassis_u) == (8, 30.72, 3400, 6)
    assert a.unparsed_lines == []  # the header row and the |---| rule are not content


def test_full_width_characters_are_folded(results: dict[str, SheetAnalysis]) -> None:
    p = results["full_width"].parsed
    assert (p.gpu_model, p.gpu_count, p.cpu_sockets, p.cpu_cores, p.ram_gb) == ("h100-sxm", 8, 2, 112, 1024)


def test_junk_lines_are_reported_and_the_rest_still_read(results: dict[str, SheetAnalysis]) -> None:
    a = results["junk"]
    assert a.unparsed_lines == [
        "asdf qwer zxcv",
        "!!!@@@###",
        "价格：¥80,000/月",
        "GPU: lots",
        "内存：很大",
        "{}{}[]",
    ]
    assert a.parsed.gpu_count == 8 and a.parsed.gpu_model == "a100-40g-sxm"
    assert a.verdict in ("training", "inference", "mixed")


def test_a_lone_surrogate_is_echoed_as_a_replacement_character(kb: Knowledge) -> None:
    """Half a UTF-16 pair cannot be encoded; the unparsed line we quote back must be."""
    a = analyze("GPU：8 × A100\n\ud800junk\udfff", kb)
    assert a.unparsed_lines == ["\ufffdjunk\ufffd"]
    assert a.parsed.gpu_count == 8


def test_runs_of_spaces_and_tabs_read_like_single_ones(kb: Knowledge) -> None:
    """Whitespace runs are collapsed within a line (issue 14); tabs still separate cells."""
    wide = analyze("GPU：8 ×" + " " * 300 + "A100\u3000\u3000 80G\n内存\t\t \t1TB DDR5", kb).parsed
    narrow = analyze("GPU：8 × A100 80G\n内存\t1TB DDR5", kb).parsed
    assert wide == narrow and (wide.gpu_count, wide.ram_gb) == (8, 1024)


def test_a_network_speed_is_read_across_one_long_vendor_word(kb: Knowledge) -> None:
    """The word between "200G" and the NIC word is bounded, not dropped (issue 14)."""
    nics = analyze("200g mellanox-connectx7-ocp3-dualport 网卡", kb).parsed.nics
    assert [(n.count, n.gbps) for n in nics] == [(1, 200.0)]


def test_empty_sheet_returns_an_empty_mixed_analysis(results: dict[str, SheetAnalysis]) -> None:
    a = results["empty"]
    assert (a.verdict, a.score, a.understood_fields) == ("mixed", 0, 0)
    assert a.signals == [] and a.pitfalls == [] and a.unparsed_lines == []
    assert a.parsed == ParsedSheet()


def test_two_t4_box_is_inference(results: dict[str, SheetAnalysis]) -> None:
    a = results["two_t4"]
    p = a.parsed
    assert (p.gpu_model, p.gpu_count, p.cpu_cores, p.ram_gb, p.nic_total_gbps) == ("t4", 2, 16, 128, 20)
    assert "inference_class_gpu" in _signal_ids(a)
    assert a.numbers.total_gpu_memory_gb == 32


def test_single_gpu_box_skips_tests_that_need_two_cards(results: dict[str, SheetAnalysis]) -> None:
    a = results["one_l4"]
    assert a.parsed.gpu_count == 1
    assert not {"nccl_allreduce", "multi_gpu_scaling_efficiency"} & set(a.stress_tests.first)


def test_counts_written_in_words_and_glued_to_names(kb: Knowledge) -> None:
    p = analyze("八卡 A100 80G SXM，双路 8358，1T 内存，双口 100G IB", kb).parsed
    assert (p.gpu_count, p.cpu_sockets, p.cpu_cores, p.ram_gb, p.nic_total_gbps) == (8, 2, 64, 1024, 200)
    p = analyze("A100*4 40G PCIe 服务器 2U", kb).parsed
    assert (p.gpu_model, p.gpu_count, p.chassis_u) == ("a100-40g-pcie", 4, 2)
    assert analyze("H100 PCIe x8", kb).parsed.gpu_count == 8
    assert analyze("GPU: 8 × H100, PCIe 5.0 x16", kb).parsed.gpu_count == 8  # lane width is not a count
    assert analyze("GPU 数量：8\nGPU 型号：H100 SXM5", kb).parsed.gpu_count == 8


def test_long_input_is_cut_at_the_cap(kb: Knowledge) -> None:
    a = analyze(A100_PCIE_ONE_LINER + "\n" + "x" * (MAX_CHARS + 50), kb)
    assert MAX_CHARS == 20_000 and a.truncated
    assert a.parsed.gpu_count == 8


def test_numbers_carry_the_8_gpu_baseline(results: dict[str, SheetAnalysis]) -> None:
    n = results["a100_pcie_one_liner"].numbers
    assert (n.baseline_cores, n.baseline_ram_gb, n.baseline_nvme) == (64, 512, "4×3.84TB")
    assert (n.cpu_cores_per_gpu, n.ram_gb_per_gpu, n.total_gpu_memory_gb) == (16, 128, 640)


def test_analysis_is_json_serialisable(results: dict[str, SheetAnalysis]) -> None:
    for a in results.values():
        assert SheetAnalysis.model_validate_json(a.model_dump_json()) == a


# -- robustness -------------------------------------------------------------------------

_WORDS = [
    "GPU", "8", "×", "x", "A100", "H20", "4090", "T4", "80G", "PCIe", "SXM", "NVLink", "NVSwitch", "EPYC",
    "7763", "8480+", "双路", "1TB", "DDR5", "NVMe", "3.84TB", "200Gb", "IB", "25GbE", "8U", "液冷", "风冷",
    "内存", "网卡", ":", "：", ",", "|", "\n", "\t", "-", "*", "/", "+", "训练", "推理", "记憶體", "十六卡",
]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_analyze_never_raises_on_arbitrary_text(text: str) -> None:
    from gpu_advisor import knowledge

    a = analyze(text, knowledge.load())
    assert a.verdict in ("training", "inference", "mixed")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=40).map(" ".join))
def test_analyze_never_raises_on_sheet_like_word_salad(text: str) -> None:
    from gpu_advisor import knowledge

    a = analyze(text, knowledge.load())
    assert set(a.unparsed_lines) <= {ln.strip() for ln in text.splitlines()}


# -- locales ----------------------------------------------------------------------------

FIELD = re.compile(r"{(\w+)(?::[^}]*)?}")
CJK = re.compile(r"[\u3400-\u9fff]")


def _emitted(results: dict[str, SheetAnalysis]) -> dict[str, dict[str, Any]]:
    """Values each signal and pitfall id was emitted with somewhere in the corpus."""
    out: dict[str, dict[str, Any]] = {}
    for a in results.values():
        for s in a.signals:
            out.setdefault(f"signal.{s.id}", dict(s.values))
        for f in a.pitfalls:
            out.setdefault(f"pitfall.{f.id}", dict(f.values))
    return out


def _all_keys() -> list[str]:
    keys = [f"signal.{r.id}" for r in sheet_signals.RULES]
    keys += [f"pitfall.{i}" for i in sheet_pitfalls.rule_ids()]
    for sub_map, ids in sheet_verdict.all_ids().items():
        keys += [f"{sub_map}.{i}" for i in sorted(ids)]
    keys += [f"field.{name}" for name in ParsedSheet.model_fields]
    keys += [f"number.{name}" for name in SheetNumbers.model_fields]
    return keys


def test_every_signal_and_pitfall_fires_somewhere_in_the_corpus(results: dict[str, SheetAnalysis]) -> None:
    emitted = _emitted(results)
    missing = [k for k in _all_keys() if k.split(".")[0] in ("signal", "pitfall") and k not in emitted]
    assert missing == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_emittable_id_has_a_template(lang: str) -> None:
    missing = [k for k in _all_keys() if not locales.has(lang, f"sheet.{k}")]
    assert missing == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_signals_and_pitfalls_render_with_the_values_they_carry(
    results: dict[str, SheetAnalysis], lang: str
) -> None:
    for key, values in _emitted(results).items():
        template = locales.messages(lang)[f"sheet.{key}"]
        used = set(FIELD.findall(template))
        assert used <= {k for k, v in values.items() if v is not None}, (lang, key, used)
        text = locales.t(lang, f"sheet.{key}", **values)
        assert "{" not in text and "}" not in text, (lang, key, text)
        assert text.count("?") == FIELD.sub("", template).count("?"), (lang, key, text)  # no value missing


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_other_template_renders(results: dict[str, SheetAnalysis], lang: str) -> None:
    a = results["seed_training"]
    scores = {"training_score": a.training_score, "inference_score": a.inference_score, "score": a.score}
    for key in _all_keys():
        if key.split(".")[0] in ("signal", "pitfall"):
            continue
        template = locales.messages(lang)[f"sheet.{key}"]
        text = locales.t(lang, f"sheet.{key}", value=12.5, max_chars=MAX_CHARS, **scores)
        assert text and "{" not in text, (lang, key, text)
        assert text.count("?") == FIELD.sub("", template).count("?"), (lang, key, text)


def test_both_languages_define_the_same_sheet_keys() -> None:
    zh = {k for k in locales.messages("zh") if k.startswith("sheet.")}
    en = {k for k in locales.messages("en") if k.startswith("sheet.")}
    assert zh == en


@pytest.mark.parametrize("key", _all_keys())
def test_chinese_is_chinese_and_english_is_not(key: str) -> None:
    zh, en = locales.messages("zh")[f"sheet.{key}"], locales.messages("en")[f"sheet.{key}"]
    prose = FIELD.sub("", zh)
    latin_only = set(prose) <= set(string.printable) | {"×", "/"}
    assert CJK.search(zh) or latin_only, key  # "InfiniBand", "RoCE" stay as written
    assert not CJK.search(en), key
