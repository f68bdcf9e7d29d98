"""Memory formulas pinned to published figures.

Sources are cited beside each golden number; a failing test here means the engine
disagrees with a paper or a vendor, not with itself.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.memory import (
    TrainSetup,
    kv_bytes_per_token,
    model_states,
    serving_weight_bytes,
    training_memory,
)
from gpu_advisor.engine.specs import Knowledge, ModelArch
from gpu_advisor.engine.units import GB, GiB


def zero_arch(params_b: float) -> ModelArch:
    """A shape-only model for the ZeRO paper's Ψ-only arithmetic."""
    return ModelArch(
        id="psi",
        name="psi",
        family="x",
        params_b=params_b,
        layers=1,
        hidden_size=4096,
        num_heads=32,
        num_kv_heads=32,
        head_dim=128,
        intermediate_size=11008,
        vocab_size=32000,
        source="ZeRO paper",
    )


def states_gb(params_b: float, stage: int, n: int) -> float:
    m = model_states(zero_arch(params_b), TrainSetup(zero_stage=stage, gpus=n))
    return (m.weights + m.gradients + m.optimizer) / GB


def test_mixed_precision_adamw_is_16_bytes_per_parameter() -> None:
    # ZeRO (Rajbhandari et al. 2020) §3.1: 2Ψ + 2Ψ + KΨ with K = 12.
    assert states_gb(1.0, 0, 1) == pytest.approx(16.0)


@pytest.mark.parametrize(
    ("stage", "expected_gb"),
    # ZeRO paper Figure 1: Ψ = 7.5B, N_d = 64 → 120 GB baseline, P_os 31.4, P_os+g 16.6, P_os+g+p 1.9 GB.
    [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)],
)
def test_zero_stages_match_the_papers_7_5b_example(stage: int, expected_gb: float) -> None:
    assert states_gb(7.5, stage, 64) == pytest.approx(expected_gb, abs=0.06)


def test_eight_bit_adam_cuts_optimizer_state_to_six_bytes_per_param() -> None:
    # bitsandbytes 8-bit Adam: m and v at 1 byte each, plus the fp32 master copy.
    m = model_states(zero_arch(1.0), TrainSetup(optimizer="adamw_8bit"))
    assert m.optimizer / 1e9 == pytest.approx(6.0)


def test_opt_13b_kv_cache_is_800_kb_per_token(kb: Knowledge) -> None:
    # vLLM paper (Kwon et al. 2023) §3: "the KV cache of a single token demands 800 KB" for OPT-13B.
    assert kv_bytes_per_token(kb.models["opt-13b"], "fp16") == 2 * 40 * 5120 * 2
    assert kv_bytes_per_token(kb.models["opt-13b"], "fp16") / 1024 == pytest.approx(800.0)


def test_llama3_8b_kv_cache_is_128_kib_per_token_thanks_to_gqa(kb: Knowledge) -> None:
    # 2 × 32 layers × 8 KV heads × 128 dims × 2 bytes = 131,072 bytes (Llama 3 config: 8 KV heads).
    assert kv_bytes_per_token(kb.models["llama-3-8b"], "fp16") == 128 * 1024


def test_gqa_kv_heads_replicate_when_tensor_parallel_exceeds_them(kb: Knowledge) -> None:
    arch = kb.models["llama-3-8b"]  # 8 KV heads
    assert kv_bytes_per_token(arch, "fp16", tp=8) == kv_bytes_per_token(arch, "fp16") / 8
    assert kv_bytes_per_token(arch, "fp16", tp=16) == kv_bytes_per_token(arch, "fp16", tp=8)


@pytest.mark.parametrize(("model", "card_gb"), [("llama-2-7b", 40), ("llama-2-7b", 80), ("llama-2-13b", 80)])
def test_full_finetunes_do_not_fit_one_40_or_80_gb_card(kb: Knowledge, model: str, card_gb: int) -> None:
    # 16 bytes/param: 7B ≈ 108 GB, 13B ≈ 208 GB of model states before activations (seeds README).
    mem = training_memory(kb.models[model], TrainSetup(method="full"))
    assert mem.total / GB > card_gb


def test_qlora_fits_65b_on_one_48_gb_card(kb: Knowledge) -> None:
    # QLoRA (Dettmers et al. 2023), abstract: 65B fine-tuned on a single 48 GB GPU (r=64, all linear layers,
    # paged AdamW). L40S: 48 GB printed, 44.4 GiB usable.
    setup = TrainSetup(method="qlora", lora_rank=64, seq_len=512, batch_size=1)
    mem = training_memory(kb.models["llama-65b"], setup)
    assert mem.total / GiB < kb.gpus["l40s"].usable_gib * 0.95
    assert mem.notes["trainable_params"] == pytest.approx(
        0.8e9, rel=0.02
    )  # Guanaco-65B adapter ≈ 800M params


def test_lora_shrinks_states_but_not_activations(kb: Knowledge) -> None:
    arch = kb.models["llama-2-7b"]
    full = training_memory(arch, TrainSetup(method="full"))
    lora = training_memory(arch, TrainSetup(method="lora"))
    assert lora.activations == full.activations
    assert lora.optimizer < full.optimizer / 100


def test_recomputation_keeps_only_layer_inputs(kb: Knowledge) -> None:
    # Korthikanti et al. 2022: full recompute stores 2·s·b·h per layer instead of ~34·s·b·h.
    arch = kb.models["llama-2-7b"]
    on = training_memory(arch, TrainSetup(gradient_checkpointing=True)).activations
    off = training_memory(arch, TrainSetup(gradient_checkpointing=False)).activations
    assert off / on > 5


def test_attention_scores_are_counted_only_without_flash_attention(kb: Knowledge) -> None:
    arch = kb.models["llama-3-8b"]
    flash = training_memory(
        arch, TrainSetup(seq_len=8192, flash_attention=True, gradient_checkpointing=False)
    )
    eager = training_memory(
        arch, TrainSetup(seq_len=8192, flash_attention=False, gradient_checkpointing=False)
    )
    # Eager attention keeps a·s² softmax outputs per layer: 32 heads × 8192² × 2 bytes × 32 layers = 128 GiB.
    assert (eager.activations - flash.activations) / GiB == pytest.approx(128.0, rel=0.01)


def test_large_vocabulary_logits_buffer_is_counted(kb: Knowledge) -> None:
    # fp32 logits + their gradient: 8 bytes × 2048 tokens × 128,256 vocab ≈ 1.96 GiB for Llama 3.
    m = training_memory(kb.models["llama-3-8b"], TrainSetup(seq_len=2048))
    assert m.activations / GiB > 1.9


@pytest.mark.parametrize(
    ("fmt", "bits"),
    # Q4_0 = 18 bytes / 32 weights; Q8_0 = 34 bytes / 32 weights (ggml block layouts).
    [("bf16", 16.0), ("int8", 8.0), ("q8_0", 8.5), ("q4_0", 4.5), ("q4_k_m", 4.85)],
)
def test_weights_use_the_formats_real_bits(kb: Knowledge, fmt: str, bits: float) -> None:
    arch = kb.models["llama-2-7b"]
    got = serving_weight_bytes(arch, fmt)
    body = arch.params_b * 1e9
    if fmt == "int8":  # GPU weight-only/W8A8 formats keep embeddings in fp16
        body -= arch.embedding_params
        got -= arch.embedding_params * 2
    assert got == pytest.approx(body * bits / 8)


def test_llama_405b_at_4_bits_needs_about_228_gb(kb: Knowledge) -> None:
    # Seeds README: 405B at ~4.5 bits ≈ 228 GB of weights alone — not one 80 GB H100.
    weights = serving_weight_bytes(kb.models["llama-3.1-405b"], "q4_0") / GB
    assert weights == pytest.approx(228, rel=0.02)
