"""The engine sizes the models people deploy in 2026 with their real physics (issue 16).

Mixture of experts (all experts resident, the routed ones read per batch), multi-head
latent attention, sliding windows, native FP8/MXFP4 weights, serving across machines,
and a config.json of a model the library does not know. Golden numbers cite the
model's own config.json or model card.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpu_advisor.engine.defaults import serve_setup, serving_formats
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.memory import kv_bytes_per_sequence, kv_bytes_per_token, serving_weight_bytes
from gpu_advisor.engine.model_config import arch_from_config
from gpu_advisor.engine.param_count import routed_expert_params
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.serving_search import layouts
from gpu_advisor.engine.specs import Catalog, Knowledge, Offer
from gpu_advisor.engine.throughput import serving_point
from gpu_advisor.engine.units import GB, GiB
from gpu_advisor.engine.workload import Workload

CONFIGS = Path(__file__).parent / "calibration" / "configs"


def deepseek_config() -> dict[str, Any]:
    return dict(json.loads((CONFIGS / "deepseek_v3.json").read_text()))


def test_deepseek_v3_kv_cache_per_token_is_its_mla_latent_not_128_heads() -> None:
    # DeepSeek-V3 config.json: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64, bf16 cache.
    arch = arch_from_config(deepseek_config())
    assert arch.attention == "mla"
    assert kv_bytes_per_token(arch, "fp16") == 61 * (512 + 64) * 2  # 70,272 B ≈ 69 KiB
    # The latent has no head axis: tensor parallelism replicates it on every GPU.
    assert kv_bytes_per_token(arch, "fp16", tp=8) == kv_bytes_per_token(arch, "fp16")


def test_deepseek_v3_config_gives_671b_total_and_37b_active() -> None:
    # DeepSeek-V3 technical report (arXiv:2412.19437) §1: 671B total, 37B activated per token.
    arch = arch_from_config(deepseek_config())
    assert arch.params_b == pytest.approx(671, rel=0.01)
    assert arch.active_b == pytest.approx(37, rel=0.03)
    assert arch.native_dtype == "fp8"


def test_deepseek_v3_fp8_weights_take_one_byte_per_weight_with_bf16_embeddings(kb: Knowledge) -> None:
    # HF checkpoint: 688.6 GB with the 14B multi-token-prediction module the engine does not
    # serve; 671B main-model weights at 1 B each plus 2 × 0.93B embeddings kept at 2 B.
    weights = serving_weight_bytes(kb.models["deepseek-v3"], "fp8")
    assert weights / GB == pytest.approx(671 + 2 * 0.9267, rel=0.01)
    assert serving_formats(kb.models["deepseek-r1"])[0] == "fp8"


def test_mixtral_decodes_about_six_times_faster_than_a_dense_70b(kb: Knowledge) -> None:
    # Mistral AI, "Mixtral of experts" (https://mistral.ai/news/mixtral-of-experts/):
    # "outperforms Llama 2 70B ... with 6x faster inference". 12.9B of 46.7B are read per token.
    rt, gpu = kb.runtimes["vllm"], kb.gpus["a100-80g-sxm"]
    moe = serving_point(kb.models["mixtral-8x7b"], gpu, rt, "bf16", "fp16", 1, 128, 128)
    dense = serving_point(kb.models["llama-2-70b"], gpu, rt, "bf16", "fp16", 1, 128, 128)
    assert 4.5 <= moe.tokens_per_s_per_seq / dense.tokens_per_s_per_seq <= 7.0


def test_qwen3_30b_a3b_on_a_3090_decodes_about_four_times_a_dense_30b(kb: Knowledge) -> None:
    # Issue 16: sized as a dense 30B it got 24 tok/s on a 3090; it reads 3.3B per token.
    rt, gpu = kb.runtimes["llama_cpp"], kb.gpus["rtx3090"]
    moe = serving_point(kb.models["qwen3-30b-a3b"], gpu, rt, "q4_k_m", "fp16", 1, 128, 128)
    dense = serving_point(kb.models["qwen3-32b"], gpu, rt, "q4_k_m", "fp16", 1, 128, 128)
    assert moe.tokens_per_s_per_seq >= 3 * dense.tokens_per_s_per_seq
    assert moe.tokens_per_s_per_seq >= 3.5 * 24


def test_moe_per_stream_speed_falls_faster_with_batch_than_dense(kb: Knowledge) -> None:
    # A batch of B reads E·(1−(1−k/E)^B) experts: at 64 streams Qwen3-30B-A3B reads ~98 % of them.
    rt, gpu = kb.runtimes["vllm"], kb.gpus["a100-80g-sxm"]

    def slowdown(model: str) -> float:
        arch = kb.models[model]
        one = serving_point(arch, gpu, rt, "bf16", "fp16", 1, 128, 128).tokens_per_s_per_seq
        many = serving_point(arch, gpu, rt, "bf16", "fp16", 64, 128, 128).tokens_per_s_per_seq
        return one / many

    assert slowdown("qwen3-30b-a3b") > 2 * slowdown("qwen3-32b")


def test_gpt_oss_120b_fits_one_80gb_card_in_mxfp4(kb: Knowledge) -> None:
    # gpt-oss model card (arXiv:2508.10925): MXFP4 expert weights, "fits on a single 80GB GPU";
    # the checkpoint is 60.8 GiB.
    arch = kb.models["gpt-oss-120b"]
    assert serving_formats(arch) == ("mxfp4",)
    assert serving_weight_bytes(arch, "mxfp4") / GiB == pytest.approx(60.8, rel=0.05)
    e = estimate(Workload(task="infer", model="gpt-oss-120b", gpu="h100-sxm", concurrency=1), kb)
    assert e.fits and next(r for r in e.fits if r.gpu == "h100-sxm").count == 1


def test_sliding_window_layers_keep_at_most_the_window(kb: Knowledge) -> None:
    # gpt-oss config.json: 18 of 36 layers attend over a 128-token window.
    arch = kb.models["gpt-oss-120b"]
    long, short = kv_bytes_per_sequence(arch, "fp16", 100_000), kv_bytes_per_sequence(arch, "fp16", 128)
    per_layer_token = 2 * 8 * 64 * 2
    assert long == per_layer_token * (18 * 100_000 + 18 * 128)
    assert short == kv_bytes_per_token(arch, "fp16") * 128


def _catalog(kb: Knowledge, network_gbps: float) -> Catalog:
    offers = [
        Offer(id="h200x8", gpu="h200-sxm", count=8, interconnect="nvswitch", price_month=160000,
              network_gbps=network_gbps, source="test offer"),
        Offer(id="h100x8", gpu="h100-sxm", count=8, interconnect="nvswitch", price_month=80000,
              network_gbps=network_gbps, source="test offer"),
        Offer(id="h20x8", gpu="h20-141g", count=8, interconnect="nvswitch", price_month=70000,
              network_gbps=network_gbps, source="test offer"),
    ]  # fmt: skip
    return kb.catalog.model_copy(update={"offers": offers})


def test_full_deepseek_r1_on_h200_h20_one_machine_and_h100_two(kb: Knowledge) -> None:
    # ~630 GiB of FP8 weights: 8 × 141 GB holds them, 8 × 80 GB × 0.9 (≈ 570 GiB) does not.
    # DGX H100 datasheet: 8 × 400 Gb/s ConnectX-7 per machine for the pipeline between them.
    custom = kb.model_copy(update={"catalog": _catalog(kb, 3200)})
    p = recommend(Workload(task="infer", model="DeepSeek-R1", concurrency=8), custom)
    arch = kb.models["deepseek-r1"]
    s, _ = serve_setup(Workload(task="infer", model="deepseek-r1", concurrency=8), arch)
    found = {(lay.offer.id, lay.fmt): lay for lay in layouts(arch, s, custom, custom.catalog.offers)}
    assert found[("h200x8", "fp8")].pp == 1 and found[("h20x8", "fp8")].pp == 1
    assert found[("h100x8", "fp8")].pp == 2
    assert p.model.attention == "mla" and p.model.kv_bytes_per_token == 61 * 576 * 2
    assert p.recommendation is not None and p.recommendation.cost.amount > 0


def test_qwen3_30b_a3b_fits_one_24gb_card(kb: Knowledge) -> None:
    e = estimate(Workload(task="infer", model="qwen3-30b-a3b", weight_dtype="q4_k_m", concurrency=1), kb)
    assert next(r for r in e.fits if r.gpu == "rtx3090").count == 1
    assert e.model.active_params_b == pytest.approx(3.3)


def test_qwen3_235b_a22b_in_fp8_on_one_h100_machine(kb: Knowledge) -> None:
    p = recommend(Workload(task="infer", model="qwen3-235b-a22b", weight_dtype="fp8", concurrency=4), kb)
    assert p.recommendation is not None and p.recommendation.weight_dtype == "fp8"
    assert p.recommendation.gpu == "h100-sxm" and p.recommendation.machines == 1
    assert p.recommendation.cost.amount > 0


def test_a_config_json_sizes_a_model_the_library_does_not_know(kb: Knowledge) -> None:
    config = {
        "model_type": "qwen3_moe", "num_hidden_layers": 24, "hidden_size": 2048,
        "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 128,
        "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 64,
        "num_experts_per_tok": 8, "vocab_size": 151936, "max_position_embeddings": 32768,
    }  # fmt: skip
    w = Workload.model_validate({"task": "infer", "model": "my-moe", "model_config": config})
    p = recommend(w, kb)
    assert p.recommendation is not None
    assert p.model.num_experts == 64 and p.model.active_params_b < p.model.params_b / 3
    assert any(f.id == "model_from_config" for f in p.assumptions)


def test_a_config_json_missing_a_field_names_it() -> None:
    config = {**deepseek_config()}
    del config["num_hidden_layers"]
    with pytest.raises(EngineError) as err:
        arch_from_config(config)
    assert err.value.field == "model_config.num_hidden_layers"


def test_routed_experts_use_the_expert_intermediate_size(kb: Knowledge) -> None:
    # Qwen3-30B-A3B config.json: 48 layers × 128 experts × 3 × 2048 × 768.
    arch = kb.models["qwen3-30b-a3b"]
    assert routed_expert_params(arch) == 48 * 128 * 3 * 2048 * 768


def test_a_replica_over_two_h100_machines_says_so_and_warns_that_10_gbps_is_short(kb: Knowledge) -> None:
    # DeepSeek-R1 FP8 (~630 GiB) needs 2 × 8 × H100 80 GB; the shipped offer states 10 Gbit/s.
    p = recommend(Workload(task="infer", model="DeepSeek-R1", weight_dtype="fp8", concurrency=8), kb)
    assert p.recommendation is not None and p.recommendation.machines_per_replica == 2
    f = next(f for f in p.pitfalls if f.id == "multi_node_replica_network_short")
    # Expert all-to-all (DeepEP: FP8 dispatch + bf16 combine), config.json: 58 MoE layers,
    # 8 experts per token, hidden 7168; half of it leaves the machine over 2 machines.
    per_token = 58 * 8 * 7168 * 3 * (2 - 1) / 2
    expected = 2 * per_token * f.values["tokens_per_s"] * 8 / 1e9  # link kept at ≤ 50 % load
    assert f.values["need_gbps"] == pytest.approx(expected, rel=0.01)
    assert f.values["need_gbps"] > f.values["network_gbps"] == 10


def test_a_dense_405b_pipeline_over_four_machines_needs_little_bandwidth(kb: Knowledge) -> None:
    # Llama 3.1 405B bf16 (~810 GB) on 4 × 8 × A100 40 GB joined by 200 Gbit/s: one bf16
    # hidden state (16384 · 2 bytes) per token per boundary is well under 1 Gbit/s.
    p = recommend(Workload(task="infer", model="llama-3.1-405b", weight_dtype="bf16", concurrency=8), kb)
    assert p.recommendation is not None and p.recommendation.machines_per_replica == 4
    f = next(f for f in p.pitfalls if f.id == "multi_node_replica")
    assert f.severity == "info" and f.values["need_gbps"] < 1 < f.values["network_gbps"]


def test_a_replica_inside_one_machine_reports_one_stage_and_no_network_finding(kb: Knowledge) -> None:
    p = recommend(Workload(task="infer", model="qwen2.5-7b", concurrency=8), kb)
    assert p.recommendation is not None and p.recommendation.machines_per_replica == 1
    assert not [f for f in p.pitfalls if f.id.startswith("multi_node_replica")]
