"""The training-memory terms of engine.train_terms, one behaviour each, against hand arithmetic."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpu_advisor.engine.memory import (
    TrainSetup,
    activations,
    layer_activation_bytes,
    model_states,
    training_memory,
)
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.train_terms import (
    dequant_workspace_bytes,
    gathered_layer_bytes,
    loss_buffer_bytes,
)
from gpu_advisor.engine.units import GiB

PURE = TrainSetup(master_weights=False)


def _states_per_param(kb: Knowledge, setup: TrainSetup) -> float:
    arch = kb.models["llama-3-8b"]
    m = model_states(arch, setup)
    return (m.weights + m.gradients + m.optimizer) / (arch.params_b * 1e9)


def test_pure_bf16_adamw_keeps_eight_bytes_per_parameter(kb: Knowledge) -> None:
    # torchtune full fine-tune: bf16 weights 2 + bf16 gradients 2 + AdamW moments in bf16 2 + 2.
    assert _states_per_param(kb, PURE) == pytest.approx(8.0)


def test_eight_bit_adam_in_pure_bf16_keeps_one_byte_per_moment(kb: Knowledge) -> None:
    # bitsandbytes AdamW8bit: m and v at 1 byte each beside bf16 weights and gradients: 2 + 2 + 2.
    assert _states_per_param(kb, replace(PURE, optimizer="adamw_8bit")) == pytest.approx(6.0)


def test_a_paged_optimizer_keeps_its_states_off_the_card(kb: Knowledge) -> None:
    m = model_states(kb.models["llama-3-8b"], replace(PURE, optimizer="paged_adamw_8bit"))
    assert m.optimizer == 0.0
    assert m.notes["paged_optimizer_bytes"] == pytest.approx(2.0 * 8.03e9)


def test_qlora_with_fp32_masters_still_pages_as_the_paper_does(kb: Knowledge) -> None:
    assert model_states(kb.models["llama-3-8b"], TrainSetup(method="qlora")).optimizer == 0.0


def test_a_pure_bf16_qlora_recipe_with_plain_adamw_holds_its_adapter_states(kb: Knowledge) -> None:
    # torchtune QLoRA: torch AdamW, moments in the adapters' bf16: 4 bytes per trainable parameter.
    m = model_states(kb.models["llama-3-8b"], TrainSetup(method="qlora", master_weights=False))
    assert m.optimizer == pytest.approx(4.0 * m.notes["trainable_params"])


def test_the_optimizer_step_in_backward_keeps_only_the_largest_gradient(kb: Knowledge) -> None:
    # Llama 3 8B: the 128,256 x 4,096 embedding in bf16 = 1.05 GB is the only gradient alive.
    m = model_states(kb.models["llama-3-8b"], replace(PURE, optimizer_in_backward=True))
    assert m.gradients == pytest.approx(2 * 128_256 * 4_096)


def test_an_unchunked_loss_holds_fourteen_bytes_per_logit(kb: Knowledge) -> None:
    # bf16 logits 2 + fp32 upcast 4 + saved fp32 log-softmax 4 + its fp32 gradient 4; 4,096 tokens of Llama 3.
    got = loss_buffer_bytes(kb.models["llama-3-8b"], TrainSetup(), 4096)
    assert got == pytest.approx(14 * 4096 * 128_256)


def test_a_compiled_chunked_loss_holds_the_bf16_logits_and_one_chunks_gradient(kb: Knowledge) -> None:
    # torchtune CEWithChunkedOutputLoss, 8 chunks: 2 + 2/8 bytes per logit.
    got = loss_buffer_bytes(kb.models["llama-3-8b"], TrainSetup(chunked_ce=True), 4096)
    assert got == pytest.approx(2.25 * 4096 * 128_256)


def test_under_recomputation_the_loss_and_the_recomputed_layer_do_not_add(kb: Knowledge) -> None:
    arch, s = kb.models["llama-3-8b"], TrainSetup(seq_len=4096)
    inputs = arch.layers * 2.0 * arch.hidden_size * 4096
    loss, layer = loss_buffer_bytes(arch, s, 4096), layer_activation_bytes(arch, s, 4096)
    assert activations(arch, s) == pytest.approx(inputs + max(loss, layer))


def test_without_recomputation_every_layer_is_alive_beside_the_loss(kb: Knowledge) -> None:
    arch, s = kb.models["llama-3-8b"], TrainSetup(seq_len=4096, gradient_checkpointing=False)
    layers = arch.layers * layer_activation_bytes(arch, s, 4096)
    assert activations(arch, s) == pytest.approx(layers + loss_buffer_bytes(arch, s, 4096))


def test_selective_op_checkpointing_saves_every_second_matmul_and_attention(kb: Knowledge) -> None:
    # torchtitan 'op' policy on a Llama 3 8B block: input 2h + q 2q + v 2kv + attention 2q + w1 2i + w2 2h
    # = 8,192 + 8,192 + 2,048 + 8,192 + 28,672 + 8,192 = 63,488 bytes per token (vs 167,936 unsaved).
    arch, s = kb.models["llama-3-8b"], TrainSetup(seq_len=8192, gradient_checkpointing=False)
    full = activations(arch, s) - loss_buffer_bytes(arch, s, 8192)
    sac = activations(arch, replace(s, selective_checkpointing=True)) - loss_buffer_bytes(arch, s, 8192)
    assert (full - sac) / (arch.layers * 8192) == pytest.approx(167_936 - 63_488)


def test_activation_offloading_leaves_two_checkpoints_on_the_card(kb: Knowledge) -> None:
    # Llama 3 8B, 8,192 tokens: 32 layer inputs of 2·h bytes per token → 2 in flight.
    arch, s = kb.models["llama-3-8b"], TrainSetup(seq_len=8192, chunked_ce=True)
    saved = activations(arch, s) - activations(arch, replace(s, activation_offloading=True))
    assert saved == pytest.approx((32 - 2) * 2 * 4096 * 8192)


def test_qlora_dequantises_one_llama3_8b_mlp_matrix_at_a_time(kb: Knowledge) -> None:
    # 4,096 x 14,336 in bf16 = 117 MB (bitsandbytes dequantize_4bit / torchao NF4).
    assert dequant_workspace_bytes(kb.models["llama-3-8b"], TrainSetup(method="qlora")) == 2 * 4096 * 14336


def test_fsdp_holds_two_unsharded_layers(kb: Knowledge) -> None:
    # Llama 3.1 70B: (70.55e9 - 2.10e9 embedding) / 80 layers x 2 bytes x 2 layers ≈ 3.42 GB.
    assert gathered_layer_bytes(kb.models["llama-3.1-70b"], "bf16", 8, 3) == pytest.approx(3.42e9, rel=0.01)


def test_nothing_is_gathered_on_one_gpu_or_below_zero_3(kb: Knowledge) -> None:
    arch = kb.models["llama-3.1-70b"]
    assert gathered_layer_bytes(arch, "bf16", 1, 3) == gathered_layer_bytes(arch, "bf16", 8, 2) == 0.0


def test_the_framework_overhead_is_one_gib_of_context_and_five_percent_fragmentation(kb: Knowledge) -> None:
    m = training_memory(kb.models["llama-3-8b"], PURE)
    assert m.notes["cuda_context_bytes"] == 1.0 * GiB
    assert m.notes["fragmentation_bytes"] == pytest.approx(0.05 * (m.total - m.overhead))


def test_a_pure_bf16_recipe_holds_no_autocast_copy_of_the_weights(kb: Knowledge) -> None:
    arch = kb.models["llama-3-8b"]
    mixed, pure = training_memory(arch, TrainSetup()), training_memory(arch, PURE)
    copy = mixed.overhead - mixed.notes["fragmentation_bytes"] - GiB
    assert copy == pytest.approx(2.0 * arch.params_b * 1e9)
    assert pure.overhead - pure.notes["fragmentation_bytes"] == pytest.approx(GiB)


def _train_total(kb: Knowledge, **fields: object) -> float:
    from gpu_advisor.engine.estimate import estimate
    from gpu_advisor.engine.workload import Workload

    base = {"task": "train", "model": "llama-3.1-8b", "method": "full", "gpu": "a100-80g-sxm", "gpu_count": 1}
    return float(estimate(Workload.model_validate({**base, **fields}), kb).memory_gib["total"])


def test_the_contract_takes_a_pure_bf16_recipe(kb: Knowledge) -> None:
    # 8.03B parameters: 16 -> 8 bytes each saves ~60 GiB, and the 2-byte autocast copy goes too.
    assert _train_total(kb) - _train_total(kb, master_weights=False) > 60


def test_recipe_fields_left_unset_keep_the_default_answer(kb: Knowledge) -> None:
    explicit = {"master_weights": True, "chunked_ce": False, "optimizer_in_backward": False}
    assert _train_total(kb, activation_offloading=False, **explicit) == _train_total(kb)


def test_the_contract_accepts_paged_optimizers(kb: Knowledge) -> None:
    assert _train_total(kb, optimizer="paged_adamw_8bit") < _train_total(kb, optimizer="adamw_8bit")
