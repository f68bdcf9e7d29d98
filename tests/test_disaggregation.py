"""Prefill/decode disaggregation stated through the contract (``Workload.prefill_gpus``).

The example deployment throughout: Llama 3.1 70B in FP8 on 8× H100 under SGLang, prompts
of 4000 tokens and answers of 500, decode instances at TP 2.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.engine import disaggregation
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.disaggregation import Disaggregated, Split
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload

BASE: dict[str, Any] = {
    "task": "infer",
    "model": "llama-3.1-70b",
    "gpu": "h100-sxm",
    "gpu_count": 8,
    "weight_dtype": "fp8",
    "kv_dtype": "fp8",
    "runtime": "sglang",
    "prompt_tokens": 4000,
    "output_tokens": 500,
    "tensor_parallel": 2,
    "prefill_tensor_parallel": 2,
}


def _placed(kb: Knowledge, prefill: int, **over: Any) -> Disaggregated:
    w = Workload(**(BASE | {"prefill_gpus": prefill} | over))
    arch, gpu = kb.models[BASE["model"]], kb.gpus[BASE["gpu"]]
    s, _ = serve_setup(w, arch)
    split = disaggregation.split_for(w, arch)
    assert split is not None
    rt = s.configured(kb.runtimes["sglang"], gpu)
    got = disaggregation.place(arch, s, (gpu, rt, "fp8"), split, gpu.usable_gib * GiB)
    assert got is not None
    return got


def test_tpot_is_the_decode_only_step_with_no_prompt_work(kb: Knowledge) -> None:
    d = _placed(kb, 2)
    users = 24
    _, tpot, _ = d.closed_loop(users)
    per = users // d.split.decode_instances
    assert tpot == d.decode.model.step_s(per)[0]
    assert tpot < d.decode.model.mixed_step_s(per)  # a colocated step carrying prompt chunks is slower


def test_tpot_under_poisson_load_has_no_prefill_stalls(kb: Knowledge) -> None:
    d = _placed(kb, 4)
    lat = d.latency(0.5 * d.max_rps())
    assert lat is not None
    steps = {d.decode.model.step_s(b)[0] for b in range(1, d.decode.slots + 1)}
    assert lat.tpot_p99_s in steps


def test_capacity_is_the_smaller_pool(kb: Knowledge) -> None:
    for prefill in (2, 6):
        d = _placed(kb, prefill)
        assert d.max_rps() == min(d.prefill_rps(), d.decode_rps())
    assert _placed(kb, 2).limiting() == "prefill"
    assert _placed(kb, 6).limiting() == "decode"


def test_moving_gpus_from_the_limiting_pool_raises_capacity(kb: Knowledge) -> None:
    prefill_bound = _placed(kb, 2)
    assert prefill_bound.limiting() == "prefill"
    assert _placed(kb, 4).max_rps() > prefill_bound.max_rps()
    decode_bound = _placed(kb, 6, prompt_tokens=500)  # short prompts: answers limit
    assert decode_bound.limiting() == "decode"
    assert _placed(kb, 4, prompt_tokens=500).max_rps() > decode_bound.max_rps()


def test_kv_transfer_grows_with_the_prompt_and_adds_to_ttft(kb: Knowledge) -> None:
    short, long = _placed(kb, 2, prompt_tokens=1000), _placed(kb, 2, prompt_tokens=16000)
    assert long.prefill.transfer_s > 10 * short.prefill.transfer_s
    lat = long.latency(1e-3 * long.max_rps())
    assert lat is not None
    assert lat.ttft_p50_s >= long.prefill.own_s + long.prefill.transfer_s


def test_kv_transfer_between_machines_is_slower_than_over_nvlink(kb: Knowledge) -> None:
    arch, gpu = kb.models[BASE["model"]], kb.gpus[BASE["gpu"]]
    s, _ = serve_setup(Workload(**(BASE | {"prefill_gpus": 2})), arch)
    board = disaggregation.transfer_s(arch, s, gpu, Split(2, 2, 6, 2))
    across = disaggregation.transfer_s(arch, s, gpu, Split(8, 2, 8, 2))  # 16 GPUs: two machines
    assert across > 3 * board


def test_the_balanced_split_serves_more_than_a_lopsided_one(kb: Knowledge) -> None:
    d = _placed(kb, 2)
    best, rps = disaggregation.balanced(d)
    assert best != 2
    assert _placed(kb, best).max_rps() >= 0.9 * rps > d.max_rps()


@pytest.mark.parametrize(
    ("change", "field", "code"),
    [
        ({"prefill_gpus": 8}, "prefill_gpus", "prefill_gpus_exceed_gpu_count"),
        ({"prefill_gpus": 2, "gpu_count": None}, "prefill_gpus", "prefill_gpus_exceed_gpu_count"),
        ({"prefill_gpus": 3}, "prefill_tensor_parallel", "prefill_gpus_not_whole_instances"),
        ({"prefill_gpus": 2, "tensor_parallel": 4}, "tensor_parallel", "decode_gpus_not_whole_instances"),
        ({"prefill_gpus": None}, "prefill_tensor_parallel", "prefill_tp_without_prefill_gpus"),
        ({"prefill_gpus": 2, "runtime": "llama_cpp"}, "runtime", "runtime_cannot_disaggregate"),
    ],
)
def test_an_impossible_split_is_refused_naming_its_field(
    change: dict[str, Any], field: str, code: str
) -> None:
    body = {k: v for k, v in (BASE | change).items() if v is not None}
    with pytest.raises(ContractError) as err:
        parse_workload(json.dumps(body))
    first = err.value.payload["error"]["errors"][0]
    assert (first["field"], first["type"]) == (field, code)


def test_estimate_states_the_splits_figures(kb: Knowledge) -> None:
    e = estimate(Workload(**(BASE | {"prefill_gpus": 2, "qps": 1.0})), kb)
    got, d = e.requested, _placed(kb, 2, qps=1.0)
    assert got is not None and got.fits
    assert got.replicas == 3 and got.prefill_instances == 1
    assert got.limiting_pool == "prefill"
    assert got.max_output_tokens_per_s == pytest.approx(d.max_rps() * 500, abs=0.01)
    assert got.prefill_pool_requests_per_s == pytest.approx(d.prefill_rps(), abs=0.01)
    assert got.decode_pool_requests_per_s == pytest.approx(d.decode_rps(), abs=0.01)
    assert got.ttft_ms_p99 is not None and got.tpot_ms_p99 is not None
    assert e.settings["prefill_gpus"] == 2 and e.settings["decode_gpus"] == 6


def test_estimate_without_a_split_reports_no_pools(kb: Knowledge) -> None:
    body = {k: v for k, v in BASE.items() if k != "prefill_tensor_parallel"}
    e = estimate(Workload(**body), kb)
    assert e.requested is not None and e.requested.limiting_pool is None
    assert e.findings == [] and "prefill_gpus" not in e.settings


def test_unstated_tp_degrees_divide_the_pools_and_the_heads(kb: Knowledge) -> None:
    body = {k: v for k, v in BASE.items() if k not in ("tensor_parallel", "prefill_tensor_parallel")}
    split = disaggregation.split_for(Workload(**(body | {"prefill_gpus": 2})), kb.models["llama-3.1-70b"])
    assert split == Split(2, 2, 6, 2)  # 64 heads: six decode GPUs run as three TP-2 instances


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_balance_finding_renders_with_its_numbers(kb: Knowledge, lang: str) -> None:
    e = estimate(Workload(**(BASE | {"prefill_gpus": 2})), kb)
    (found,) = e.findings
    assert found.id == "disaggregation_prefill_bound"
    text = locales.render_finding(lang, found.id, found.values)
    assert "{" not in text and found.id not in text
    assert str(found.values["balanced_prefill_gpus"]) in text


def test_the_finding_compares_with_the_same_gpus_colocated(kb: Knowledge) -> None:
    (found,) = estimate(Workload(**(BASE | {"prefill_gpus": 2})), kb).findings
    body = {k: v for k, v in BASE.items() if k != "prefill_tensor_parallel"}
    colocated = estimate(Workload(**body), kb).requested
    assert colocated is not None and colocated.max_requests_per_s is not None
    assert found.values["colocated_rps"] == pytest.approx(colocated.max_requests_per_s, abs=0.01)


def test_dynamos_single_node_recipe_is_expressible(kb: Knowledge) -> None:
    # recipes/llama-3-70b/vllm/disagg-single-node: 2× TP2 prefill + 1× TP4 decode, 8192/1024, 128 users
    w = BASE | {"model": "llama-3.3-70b", "runtime": "vllm", "prompt_tokens": 8192, "output_tokens": 1024}
    w |= {"prefill_gpus": 4, "tensor_parallel": 4, "concurrency": 128}
    got = estimate(Workload(**w), kb).requested
    assert got is not None and got.fits
    assert (got.prefill_instances, got.replicas) == (2, 1)
    assert got.closed_loop_output_tokens_per_s is not None and got.closed_loop_output_tokens_per_s > 0


def test_a_plan_says_it_sizes_colocated_replicas_when_a_split_was_stated(kb: Knowledge) -> None:
    plan = recommend(Workload(**(BASE | {"prefill_gpus": 2})), kb)
    said = [f for f in plan.assumptions if f.id == "assumed_colocated_plan"]
    assert [f.values["prefill_gpus"] for f in said] == [2]
