"""How much of a card a serving runtime fills with weights and KV cache.

vLLM claims ``gpu_memory_utilization`` (0.9) of every card. SGLang's ``mem_fraction_static``
default keeps a reserve sized from the card, its prefill chunk, its CUDA graphs, the TP
group and attention DP (python/sglang/srt/server_args.py, ``_handle_gpu_memory_settings``),
and under attention DP it divides its scheduler limits among the ranks. Golden shares are
that rule's arithmetic on the card's reported memory (``GpuSpec.usable_gib``).
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine import replica
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload


def _share(total_gib: float, reserve_mib: float) -> float:
    return round((total_gib * 1024 - reserve_mib) / (total_gib * 1024), 3)


def test_vllm_claims_the_same_share_of_every_card(kb: Knowledge) -> None:
    rt = kb.runtimes["vllm"]
    assert {rt.memory_share(kb.gpus[g], tp) for g in ("t4", "h100-sxm", "b200") for tp in (1, 8)} == {0.9}


def test_sglang_on_one_h100_keeps_its_chunk_graphs_and_metadata_outside_the_pool(kb: Knowledge) -> None:
    gpu = kb.gpus["h100-sxm"]
    # 512 MiB metadata + 8,192-token chunk x 1.5 MiB + 256 graph sequences x 2 MiB + 1/8 GiB per rank
    reserve = 512 + 8192 * 1.5 + 256 * 2 + 128
    assert kb.runtimes["sglang"].memory_share(gpu) == _share(gpu.usable_gib, reserve)


def test_sglang_on_a_large_card_reserves_for_its_larger_chunk(kb: Knowledge) -> None:
    gpu = kb.gpus["b200"]
    reserve = 512 + 16384 * 1.5 + 512 * 2 + 8 * 128
    assert kb.runtimes["sglang"].memory_share(gpu, 8) == _share(gpu.usable_gib, reserve)


def test_attention_dp_pads_every_ranks_graphs(kb: Knowledge) -> None:
    gpu, rt = kb.gpus["h200-sxm"], kb.runtimes["sglang"]
    plain = 512 + 8192 * 1.5 + 512 * 2 + 8 * 128
    padded = plain + 512 * 8 * (3 + 1.5)  # graphs past 300 sequences pad 4.5 MiB per sequence per rank
    assert rt.memory_share(gpu, 8) == _share(gpu.usable_gib, plain)
    assert rt.memory_share(gpu, 8, attention_dp=True) == _share(gpu.usable_gib, padded)


def test_a_card_over_60_gib_keeps_at_least_10_gib(kb: Knowledge) -> None:
    gpu = kb.gpus["h100-sxm"]
    small_chunk = kb.runtimes["sglang"].model_copy(
        update={"max_num_batched_tokens": 2048, "card_token_budgets": []}
    )
    assert small_chunk.memory_share(gpu) == _share(gpu.usable_gib, 10240)


def test_the_users_prefill_chunk_sets_the_reserve(kb: Knowledge) -> None:
    arch, gpu = kb.models["llama-3.1-8b"], kb.gpus["h100-sxm"]
    s, _ = serve_setup(Workload(task="infer", model="llama-3.1-8b", max_num_batched_tokens=16384), arch)
    rt = s.configured(kb.runtimes["sglang"], gpu)
    assert rt.memory_share(gpu) == _share(gpu.usable_gib, 512 + 16384 * 1.5 + 256 * 2 + 128)


def test_a_pasted_share_replaces_the_rule(kb: Knowledge) -> None:
    rt = kb.runtimes["sglang"].model_copy(update={"memory_utilization": 0.85, "static_reserve": None})
    assert rt.memory_share(kb.gpus["h100-sxm"], 4) == 0.85


@pytest.mark.parametrize(("runtime", "per_rank"), [("sglang", (32, 1024)), ("tensorrt_llm", (2048, 8192))])
def test_attention_dp_ranks_share_sglangs_limits_but_not_tensorrt_llms(
    kb: Knowledge, runtime: str, per_rank: tuple[int, int]
) -> None:
    rt = kb.runtimes[runtime].model_copy(update={"max_batch": 256 if runtime == "sglang" else 2048})
    assert rt.model_copy(update={"max_num_batched_tokens": 8192}).step_limits(8) == per_rank


def test_dp_attention_on_sglang_runs_no_more_sequences_than_its_global_limit(kb: Knowledge) -> None:
    arch, gpu = kb.models["deepseek-r1"], kb.gpus["h200-sxm"]
    w = Workload(
        task="infer",
        model="deepseek-r1",
        gpu="h200-sxm",
        gpu_count=8,
        tensor_parallel=8,
        weight_dtype="fp8",
        attention_dp=True,
        prompt_tokens=128,
        output_tokens=128,
        context_len=256,
    )
    s, _ = serve_setup(w, arch)
    rt = s.configured(kb.runtimes["sglang"], gpu)
    got = replica.place(arch, s, (gpu, rt, "fp8", 8), gpu.usable_gib * GiB, "nvswitch")
    assert got is not None and got.slots <= rt.max_batch


def test_the_rule_gives_the_share_sglang_printed_on_a_287_gib_card(kb: Knowledge) -> None:
    # sgl-project/sglang PR #18263's log: Qwen3-30B-A3B at TP 1, avail mem 230.20 GB + mem usage
    # 56.98 GB, "mem_fraction_static 0.911"
    assert kb.runtimes["sglang"].memory_share(kb.gpus["mi300x"], 1, total_gib=230.20 + 56.98) == 0.911
