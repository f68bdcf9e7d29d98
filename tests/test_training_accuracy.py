"""Training at long sequences: attention FLOPs, the logits buffer and QLoRA's workspace."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.memory import TrainSetup, activations, dequant_workspace_bytes, logits_bytes
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.training import flops_per_token
from gpu_advisor.engine.workload import Workload


def test_a_65k_sequence_costs_about_three_times_the_6p_flops(kb: Knowledge) -> None:
    # PaLM (Chowdhery et al. 2022) App. B: 6N + 12·L·H·Q·T per token. Llama-3-8B:
    # 12 · 32 layers · 4096 · 65,536 = 1.03e11 against 6 · 8.03e9 = 4.8e10, ≈ 3.1× in all.
    arch = kb.models["llama-3-8b"]
    short = flops_per_token(arch, "full", False, 0)
    long = flops_per_token(arch, "full", False, 65_536)
    assert long / short == pytest.approx(3.1, rel=0.1)


def test_attention_flops_are_negligible_at_short_sequences(kb: Knowledge) -> None:
    arch = kb.models["llama-3-8b"]
    assert flops_per_token(arch, "full", False, 512) / flops_per_token(arch, "full", False) < 1.05


def test_lora_pays_the_same_attention_flops_as_full_training(kb: Knowledge) -> None:
    arch = kb.models["llama-3-8b"]
    full = flops_per_token(arch, "full", False, 32_768) - flops_per_token(arch, "full", False)
    lora = flops_per_token(arch, "lora", False, 32_768) - flops_per_token(arch, "lora", False)
    assert lora == pytest.approx(full)


def test_fused_cross_entropy_shrinks_the_logits_buffer_by_vocab_over_hidden(kb: Knowledge) -> None:
    # Unchunked: bf16 logits 2 + fp32 upcast 4 + fp32 log-softmax 4 + its fp32 gradient 4 = 14·tokens·V
    # (engine.train_terms); a fused linear cross-entropy (Liger/unsloth) ≈ 8·tokens·h.
    arch = kb.models["llama-3-8b"]
    hf = TrainSetup(method="lora", seq_len=8192)
    fused = replace(hf, fused_ce=True)
    assert logits_bytes(arch, hf, 8192) == pytest.approx(14 * 8192 * arch.vocab_size)
    assert logits_bytes(arch, hf, 8192) / logits_bytes(arch, fused, 8192) == pytest.approx(
        14 * arch.vocab_size / (8 * arch.hidden_size)
    )
    assert activations(arch, fused) < activations(arch, hf)


def test_qlora_holds_one_dequantised_matrix_and_lora_none(kb: Knowledge) -> None:
    # Llama-2-70B MLP matrix 8192 × 28672 in bf16 = 0.44 GiB (bitsandbytes dequantize_4bit).
    arch = kb.models["llama-2-70b"]
    assert dequant_workspace_bytes(arch, TrainSetup(method="qlora")) / 2**30 == pytest.approx(0.44, rel=0.02)
    assert dequant_workspace_bytes(arch, TrainSetup(method="lora")) == 0.0


def test_the_contract_turns_the_logits_buffer_off_with_fused_ce(kb: Knowledge) -> None:
    # Llama 3.1 8B at 16k tokens with recomputation (the default): unchunked, the loss buffers
    # (14 bytes x tokens x vocab) set the activation peak; fused, one recomputed layer does
    # (167,936 bytes per token: engine.memory.layer_activation_bytes for h 4096, i 14336, GQA 8).
    base = {"task": "train", "model": "llama-3.1-8b", "method": "qlora", "seq_len": 16384}
    plain = estimate(Workload.model_validate(base), kb).memory_gib["activations"]
    fused = estimate(Workload.model_validate({**base, "fused_ce": True}), kb).memory_gib["activations"]
    saved = (14 * 16384 * 128256 - 167_936 * 16384) / 2**30
    assert plain - fused == pytest.approx(saved, abs=0.05)
