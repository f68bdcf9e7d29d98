"""How many requests a replica runs at once: the runtime's admission rule and the user's limits.

TensorRT-LLM's default scheduler (GUARANTEED_NO_EVICT) admits a request only once the KV
pool holds its prompt and its whole answer; vLLM's paged cache holds what a request has
written so far. A user who sets ``max_num_seqs`` / ``max_num_batched_tokens`` (vLLM's flags,
TensorRT-LLM's max_batch_size / max_num_tokens) gets plans under those limits.
"""

from __future__ import annotations

import json

import pytest

from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.engine import replica
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.specs import Knowledge, RuntimeProfile
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload

LONG = {"prompt_tokens": 1000, "output_tokens": 1000, "context_len": 2000}


def _slots(kb: Knowledge, rt: RuntimeProfile, **more: object) -> int:
    w = Workload(task="infer", model="llama-3.1-8b", gpu="h100-sxm", weight_dtype="fp8", **LONG, **more)
    arch, gpu = kb.models["llama-3.1-8b"], kb.gpus["h100-sxm"]
    s, _ = serve_setup(w, arch)
    got = replica.place(arch, s, (gpu, s.configured(rt, gpu), "fp8", 1), gpu.usable_gib * GiB, "nvswitch")
    assert got is not None
    return got.slots


def test_a_paged_runtime_holds_the_prompt_and_half_the_answer_on_average(kb: Knowledge) -> None:
    s, _ = serve_setup(Workload(task="infer", model="llama-3.1-8b", **LONG), kb.models["llama-3.1-8b"])
    assert replica.admitted_tokens(kb.runtimes["vllm"], s) == 1500


def test_tensorrt_llm_reserves_the_prompt_and_the_whole_answer(kb: Knowledge) -> None:
    s, _ = serve_setup(Workload(task="infer", model="llama-3.1-8b", **LONG), kb.models["llama-3.1-8b"])
    assert replica.admitted_tokens(kb.runtimes["tensorrt_llm"], s) == 2000


def test_reserving_whole_requests_runs_three_quarters_as_many_at_once(kb: Knowledge) -> None:
    paged = kb.runtimes["vllm"].model_copy(update={"max_batch": 4096})
    whole = paged.model_copy(update={"admission": "whole_request"})
    assert _slots(kb, whole, concurrency=1) == pytest.approx(0.75 * _slots(kb, paged, concurrency=1), abs=1)


def test_the_users_max_num_seqs_caps_the_running_batch(kb: Knowledge) -> None:
    assert _slots(kb, kb.runtimes["vllm"], max_num_seqs=8) == 8


def test_the_users_token_budget_caps_sequences_by_their_share_of_a_step(kb: Knowledge) -> None:
    # each running sequence brings 1 + 1000/1000 tokens a step: 600 tokens carry 300 of them
    rt = kb.runtimes["vllm"].model_copy(update={"max_batch": 4096})
    assert _slots(kb, rt, max_num_batched_tokens=600) == 300


def test_without_limits_the_runtime_is_its_shipped_profile(kb: Knowledge) -> None:
    s, _ = serve_setup(Workload(task="infer", model="llama-3.1-8b"), kb.models["llama-3.1-8b"])
    assert s.configured(kb.runtimes["vllm"], kb.gpus["h100-sxm"]) is kb.runtimes["vllm"]


def test_a_zero_sequence_limit_is_refused_by_name() -> None:
    body = {"task": "infer", "model": "llama-3.1-8b", "gpu": "h100-sxm", "max_num_seqs": 0}
    with pytest.raises(ContractError) as err:
        parse_workload(json.dumps(body))
    assert err.value.payload["error"]["errors"][0]["field"] == "max_num_seqs"


def _budget(kb: Knowledge, runtime: str, gpu: str, **more: object) -> int:
    s, _ = serve_setup(Workload(task="infer", model="llama-3.1-8b", **more), kb.models["llama-3.1-8b"])
    return s.configured(kb.runtimes[runtime], kb.gpus[gpu]).max_num_batched_tokens


@pytest.mark.parametrize(
    ("gpu", "tokens"),
    [("h100-sxm", 8192), ("a100-80g-sxm", 2048), ("rtx4090", 2048), ("l40s", 2048)],
)
def test_vllm_serve_steps_fewer_tokens_on_cards_under_70_gib_and_on_any_a100(
    kb: Knowledge, gpu: str, tokens: int
) -> None:
    # vllm/engine/arg_utils.py get_batch_defaults, OPENAI_API_SERVER context
    assert _budget(kb, "vllm", gpu) == tokens


@pytest.mark.parametrize(
    ("gpu", "tokens"), [("rtx4090", 2048), ("l40s", 4096), ("h200-sxm", 8192), ("b200", 16384)]
)
def test_sglang_sizes_its_prefill_chunk_by_the_cards_memory(kb: Knowledge, gpu: str, tokens: int) -> None:
    # sglang/srt/server_args.py _handle_gpu_memory_settings: under 35, 60, 160 GiB, above
    assert _budget(kb, "sglang", gpu) == tokens


def test_the_users_token_budget_wins_over_the_cards_default(kb: Knowledge) -> None:
    assert _budget(kb, "vllm", "a100-80g-sxm", max_num_batched_tokens=8192) == 8192
