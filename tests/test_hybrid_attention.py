"""Hybrid attention holds no per-token cache in its linear-attention layers (issue 29).

Qwen3-Next-80B-A3B keeps full attention in 12 of its 48 layers (full_attention_interval 4
in its config.json); the 36 Gated DeltaNet layers keep a fixed-size state per sequence.
Sized as 48 full-attention layers its KV cache would be 4× too large.
"""

from __future__ import annotations

from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.memory import kv_bytes_per_token
from gpu_advisor.engine.replica import kv_room, per_gpu
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB


def test_only_the_full_attention_layers_of_qwen3_next_hold_kv(kb: Knowledge) -> None:
    arch = kb.models["qwen3-next-80b-a3b"]
    # 12 layers × 2 KV heads × 256 head dim × (K, V) × 2 bytes = 24,576 bytes per token
    assert kv_bytes_per_token(arch, "fp16") == 12 * 2 * 256 * 2 * 2


def test_a_hybrid_model_holds_four_times_the_users_it_would_as_full_attention(kb: Knowledge) -> None:
    hybrid = kb.models["qwen3-next-80b-a3b"]
    full = hybrid.model_copy(update={"linear_attention_layers": 0})
    rt, gpu = kb.runtimes["vllm"], kb.gpus["h200-sxm"]
    s = ServeSetup(("fp8",), "fp16", 32768, 16384, 16384, 1, None, None, "vllm", 1, resident_tokens=24576)
    users = []
    for arch in (hybrid, full):
        held = per_gpu(arch, s, "fp8", 1, rt)
        users.append(held.users(kv_room(rt, gpu.usable_gib * GiB, held), 100_000))
    assert users[0] >= 3.9 * users[1]
