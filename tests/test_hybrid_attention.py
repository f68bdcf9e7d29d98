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
        users.append(held.users(kv_room(rt, gpu.usable_gib * GiB, held, (gpu, 1, False)), 100_000))
    assert users[0] >= 3.9 * users[1]


def _kv_per_sequence(kb: Knowledge, model: str, runtime: str) -> float:
    s = ServeSetup(("fp16",), "fp16", 22000, 20000, 2000, 1, None, None, runtime, 1, resident_tokens=22000)
    return per_gpu(kb.models[model], s, "fp16", 1, kb.runtimes[runtime]).kv_seq


def test_tensorrt_llm_caches_a_model_wide_window_in_full_unless_told(kb: Knowledge) -> None:
    # Mistral 7B v0.1 windows all 32 layers at 4,096 tokens; TensorRT-LLM applies that only with
    # --max_attention_window_size (its Mistral example), and its v0.17 perf overview runs Mistral
    # at 20,000/2,000 no faster than Llama 3.1 8B (1,822.69 vs 1,804.1 tok/s on H200)
    full = 32 * 8 * 128 * 2 * 2 * 22000
    assert _kv_per_sequence(kb, "mistral-7b", "tensorrt_llm") == full
    assert _kv_per_sequence(kb, "mistral-7b", "vllm") == full * 4096 / 22000


def test_every_runtime_keeps_windows_a_model_sets_on_some_layers(kb: Knowledge) -> None:
    # gpt-oss alternates 128-token windows with full attention: the window is the model itself
    assert _kv_per_sequence(kb, "gpt-oss-20b", "tensorrt_llm") == _kv_per_sequence(kb, "gpt-oss-20b", "vllm")
    assert _kv_per_sequence(kb, "gpt-oss-20b", "vllm") < 0.6 * 24 * 8 * 64 * 2 * 2 * 22000
