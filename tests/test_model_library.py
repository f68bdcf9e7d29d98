"""The 2026 model and GPU library: shapes add up, names resolve to one entry, cards say what they are for."""

from __future__ import annotations

from collections import defaultdict

import pytest

from gpu_advisor.engine.architecture import find_model
from gpu_advisor.engine.specs import Knowledge, ModelArch
from gpu_advisor.reading.requirements.vocabulary import Vocabulary, canonical
from gpu_advisor.text.normalize import normalize


def _attention_params(arch: ModelArch) -> float:
    """Q/K/V/O weights of one layer; MLA factors Q and KV through low-rank latents (DeepSeek-V2 paper)."""
    h, heads = arch.hidden_size, arch.num_heads
    if arch.attention != "mla":
        return float(2 * h * heads * arch.head_dim + 2 * h * arch.num_kv_heads * arch.head_dim)
    assert arch.kv_lora_rank and arch.qk_rope_head_dim and arch.qk_nope_head_dim and arch.v_head_dim
    q_rank = arch.q_lora_rank
    q = h * q_rank + q_rank * heads * arch.head_dim if q_rank else h * heads * arch.head_dim
    kv_down = h * (arch.kv_lora_rank + arch.qk_rope_head_dim)
    kv_up = arch.kv_lora_rank * heads * (arch.qk_nope_head_dim + arch.v_head_dim)
    return float(q + kv_down + kv_up + heads * arch.v_head_dim * h)


def total_params(arch: ModelArch) -> float:
    """embeddings + layers x attention + dense layers' MLP + MoE layers x (all experts' MLPs + router).

    Every routed and shared expert counts: memory holds them all.
    """
    h, per_matrix = arch.hidden_size, 3 if arch.gated_mlp else 2
    dense_mlp = per_matrix * h * arch.intermediate_size
    expert_mlp = per_matrix * h * arch.expert_intermediate_size
    dense_layers = arch.dense_layers if arch.is_moe else arch.layers
    moe = arch.moe_layers * ((arch.num_experts + arch.shared_experts) * expert_mlp + arch.num_experts * h)
    return arch.embedding_params + arch.layers * _attention_params(arch) + dense_layers * dense_mlp + moe


def test_knowledge_holds_the_2026_library(kb: Knowledge) -> None:
    assert len(kb.models) >= 70 and len(kb.gpus) >= 33


def test_every_model_shape_adds_up_to_its_published_parameter_count(kb: Knowledge) -> None:
    # Dense models carry the exact config count; MoE models the card's total (e.g. DeepSeek-V3
    # 671B, Qwen3-30B-A3B 30.5B, gpt-oss-120b 116.8B, Llama 4 Maverick 400B), all within 3%.
    off = {m.id: round(total_params(m) / 1e9, 2) for m in kb.models.values()}
    off = {i: n for i, n in off.items() if abs(n / kb.models[i].params_b - 1) > 0.03}
    assert off == {}


@pytest.mark.parametrize(
    ("model_id", "total_b"),
    [
        ("deepseek-v3", 671.0),  # DeepSeek-V3 model card: 671B total (MTP module excluded)
        ("qwen3-30b-a3b", 30.5),  # Qwen3-30B-A3B card: 30.5B
        ("qwen3-235b-a22b", 235.0),  # Qwen3-235B-A22B card: 235B
        ("gpt-oss-120b", 116.8),  # gpt-oss model card: 116.8B total
        ("gpt-oss-20b", 20.9),  # gpt-oss model card: 20.9B total
        ("mixtral-8x7b", 46.7),  # Mixtral paper: 46.7B (47B) total
        ("llama-4-maverick", 400.0),  # Llama 4 card: 400B total
    ],
)
def test_moe_totals_count_every_expert(kb: Knowledge, model_id: str, total_b: float) -> None:
    assert total_params(kb.models[model_id]) / 1e9 == pytest.approx(total_b, rel=0.015)


def test_moe_models_activate_a_fraction_of_their_weights(kb: Knowledge) -> None:
    moe = [m for m in kb.models.values() if m.is_moe]
    assert len(moe) >= 14
    assert all(m.active_params_b is not None and m.active_params_b < m.params_b / 2 for m in moe)
    assert kb.models["deepseek-r1"].active_b == 37 and kb.models["qwen3-30b-a3b"].active_b == 3.3


def test_deepseek_models_use_mla_with_a_576_element_latent(kb: Knowledge) -> None:
    # DeepSeek-V3 config.json: kv_lora_rank 512 + qk_rope_head_dim 64 cached per token per layer.
    mla = [m for m in kb.models.values() if m.attention == "mla"]
    assert {"deepseek-v3", "deepseek-v3.1", "deepseek-r1", "kimi-k2"} <= {m.id for m in mla}
    assert all((m.kv_lora_rank or 0) + (m.qk_rope_head_dim or 0) == 576 for m in mla)


def test_attention_kind_is_derived_from_the_heads_when_not_written(kb: Knowledge) -> None:
    assert kb.models["llama-2-7b"].attention == "mha"
    assert kb.models["qwen3-8b"].attention == "gqa"


def test_low_precision_releases_say_so(kb: Knowledge) -> None:
    assert kb.models["deepseek-v3"].native_dtype == "fp8"
    oss = kb.models["gpt-oss-120b"]
    assert (oss.native_dtype, oss.native_dtype_scope) == ("mxfp4", "experts")
    assert kb.models["qwen3-32b"].native_dtype == "bf16"


def test_sliding_window_layers_follow_each_models_pattern(kb: Knowledge) -> None:
    # Gemma 2 alternates 1:1, Gemma 3 has five local layers per global one, gpt-oss alternates.
    assert kb.models["gemma-2-9b"].windowed_layers == 21
    assert kb.models["gemma-3-27b"].windowed_layers == 52
    assert kb.models["gpt-oss-120b"].windowed_layers == 18
    assert kb.models["mistral-7b"].windowed_layers == 32
    assert kb.models["qwen3-8b"].windowed_layers == 0


def _alias_owners(kb: Knowledge) -> dict[str, set[str]]:
    owners: dict[str, set[str]] = defaultdict(set)
    for model in kb.models.values():
        for alias in (model.id, *model.aliases):
            owners[canonical(alias)].add(model.id)
    return owners


def test_no_two_models_share_an_alias_once_separators_are_ignored(kb: Knowledge) -> None:
    assert {key: ids for key, ids in _alias_owners(kb).items() if len(ids) > 1} == {}


def test_every_model_alias_finds_its_own_entry(kb: Knowledge) -> None:
    wrong = [
        (alias, model.id)
        for model in kb.models.values()
        for alias in model.aliases
        if (found := find_model(alias, kb.models)) is None or found.id != model.id
    ]
    assert wrong == []


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("满血版 deepseek r1 要几张卡", "deepseek-r1"),
        ("ds r1 推理", "deepseek-r1"),
        ("deploy deepseek-ai/DeepSeek-R1", "deepseek-r1"),
        ("ollama run deepseek-r1:70b", "deepseek-r1-distill-llama-70b"),
        ("qwen3 30b a3b", "qwen3-30b-a3b"),
        ("Qwen/Qwen3-30B-A3B on a 4090", "qwen3-30b-a3b"),
        ("qwen3:30b-a3b", "qwen3-30b-a3b"),
        ("gpt-oss:20b", "gpt-oss-20b"),
        ("Llama 4 Scout", "llama-4-scout"),
        ("kimi k2 需要多少显存", "kimi-k2"),
    ],
)
def test_the_chat_parser_finds_models_as_people_type_them(kb: Knowledge, text: str, model_id: str) -> None:
    vocab = Vocabulary(
        {m.id: m.aliases for m in kb.models.values()}, {g.id: g.aliases for g in kb.gpus.values()}
    )
    assert [hit.id for hit in vocab.models.find(normalize(text))] == [model_id]


def test_every_gpu_says_what_it_is_for(kb: Knowledge) -> None:
    roles = {g.id: g.role for g in kb.gpus.values()}
    assert roles["t4"] == roles["l4"] == roles["l20"] == roles["a10"] == "inference"
    assert roles["h100-sxm"] == roles["a100-80g-sxm"] == roles["h800-sxm"] == roles["b200"] == "training"
    assert roles["rtx4090"] == roles["rtx5090"] == "general"


def test_china_variants_and_rebuilt_cards_name_a_card_we_know(kb: Knowledge) -> None:
    derived = [g for g in kb.gpus.values() if g.china_variant or g.nonstandard]
    assert len(derived) >= 9
    assert all(g.lineage in kb.gpus for g in derived)
    assert kb.gpus["h20"].lineage == "h100-sxm" and kb.gpus["rtx4090d"].lineage == "rtx4090"
    assert kb.gpus["rtx4090-48g"].nonstandard and kb.gpus["rtx4090-48g"].memory_gb == 48


def test_cards_without_cuda_say_what_they_run(kb: Knowledge) -> None:
    others = [g for g in kb.gpus.values() if g.vendor != "nvidia"]
    assert {g.id for g in others} == {"mi300x", "ascend-910b"}
    assert all(g.software_stack and g.compute_capability == 0 for g in others)
    assert "CANN" in (kb.gpus["ascend-910b"].software_stack or "")


def test_a_3090_bridge_pair_is_not_zero(kb: Knowledge) -> None:
    # GA102 whitepaper: a 2-way NVLink bridge gives 112.5 GB/s total (56.25 GB/s each way).
    g = kb.gpus["rtx3090"]
    assert (g.nvlink_gbs, g.nvlink_bridge_gbs) == (0, 112.5)


def test_fp8_and_fp4_only_where_the_hardware_computes_in_them(kb: Knowledge) -> None:
    for gpu in kb.gpus.values():
        if gpu.vendor == "nvidia" and gpu.architecture in ("turing", "volta", "ampere"):
            assert not gpu.supports("fp8"), gpu.id
        if gpu.architecture != "blackwell":
            assert not gpu.supports("fp4"), gpu.id
