"""A prompt rides in the decode steps; when prompts are rare, the steps that carry one are long.

A step lasts as long as its slower resource, step by step: a 20,000-token prompt arriving
once every hundred steps makes one long compute-bound step and leaves the others
bandwidth-bound, which costs more than spreading its compute evenly over every step would.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.queueing import ReplicaShape, closed_loop
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.throughput import ReplicaModel


def _model(kb: Knowledge, prompt: int, output: int, budget: int = 32768) -> ReplicaModel:
    rt = kb.runtimes["vllm"].model_copy(update={"max_num_batched_tokens": budget})
    return ReplicaModel(kb.models["llama-3.1-8b"], kb.gpus["h100-sxm"], rt, "bf16", "fp16", prompt, output)


def test_a_step_carrying_a_whole_long_prompt_is_many_decode_steps_long(kb: Knowledge) -> None:
    m = _model(kb, prompt=20000, output=2000)
    assert m.pass_s(16, 1.0) > 10 * m.pass_s(16, 0.0)


def test_rare_prompts_cost_their_long_steps_not_an_even_spread(kb: Knowledge) -> None:
    m = _model(kb, prompt=20000, output=2000)
    share = 16 / 2000  # steps that carry a (whole) prompt
    expected = share * m.pass_s(16, 1.0) + (1 - share) * m.pass_s(16, 0.0)
    assert m.mixed_step_s(16) == pytest.approx(expected)
    assert m.mixed_step_s(16) > m.pass_s(16, share)  # the even spread understates it


def test_a_prompt_longer_than_the_budget_comes_in_chunks(kb: Knowledge) -> None:
    m = _model(kb, prompt=20000, output=2000, budget=8192)
    chunks = 3  # 8,176 tokens beside 16 decode tokens a step
    share = 16 / 2000 * chunks
    expected = share * m.pass_s(16, 1 / chunks) + (1 - share) * m.pass_s(16, 0.0)
    assert m.mixed_step_s(16) == pytest.approx(expected)


def test_prompts_in_every_step_spread_evenly(kb: Knowledge) -> None:
    m = _model(kb, prompt=128, output=128)
    assert m.mixed_step_s(256) == pytest.approx(m.pass_s(256, 2.0))


def _shape(step: float, prefill: float, chunks: int = 1) -> ReplicaShape:
    return ReplicaShape(64, prefill, lambda b: step, 500, chunks)


def test_the_median_token_gap_is_a_plain_step_when_few_steps_carry_a_prompt() -> None:
    shape = _shape(step=0.01, prefill=0.05)
    loop = closed_loop(shape, 8)
    assert loop.itl_p50_s == pytest.approx(0.01)
    assert loop.tpot_s > loop.itl_p50_s  # the mean spreads the prompts' steps over every token


def test_the_median_token_gap_is_the_mean_when_most_steps_carry_a_prompt() -> None:
    shape = ReplicaShape(64, 0.002, lambda b: 0.01, 4, 1)  # four-token answers: a prompt every step
    loop = closed_loop(shape, 64)
    assert loop.itl_p50_s == pytest.approx(loop.tpot_s)


@pytest.mark.parametrize(("runtime", "chunks"), [("sglang", 8), ("tensorrt_llm", 1)])
def test_under_attention_dp_a_prompt_comes_in_its_ranks_share_of_the_budget(
    kb: Knowledge, runtime: str, chunks: int
) -> None:
    # a prompt belongs to one rank; SGLang gives each of 8 ranks 8,192 // 8 = 1,024 tokens a step,
    # TensorRT-LLM gives each rank the whole 8,192
    def model(budget: int) -> ReplicaModel:
        rt = kb.runtimes[runtime].model_copy(update={"max_num_batched_tokens": budget})
        args = (kb.models["deepseek-r1"], kb.gpus["h200-sxm"], rt, "fp8", "fp8", 8000, 100)
        return ReplicaModel(*args, tp=8, attention_dp=True)

    budgeted, unbounded = model(8192), model(8 * 8192)
    extra = budgeted.first_token_s(8) - unbounded.first_token_s(8)
    assert extra == pytest.approx((chunks - 1) * budgeted.step_s(8)[0], abs=1e-9)


def test_a_closed_loop_pays_the_prompt_share_of_its_own_batch() -> None:
    # a step's fixed prompt cost (0.4 s a step here) spreads over the users running, not over 64 slots
    by_batch = ReplicaShape(64, 0.4 / 64, lambda b: 0.01, 500, 1, prompt_share=lambda b: 0.4 / b)
    at_slots = ReplicaShape(64, 0.4 / 64, lambda b: 0.01, 500, 1)
    for shape, share in ((by_batch, 0.4 / 8), (at_slots, 0.4 / 64)):
        loop = closed_loop(shape, 8)
        rate = loop.output_tokens_per_s / 500
        assert loop.tpot_s == pytest.approx(0.01 / (1 - rate * share), rel=1e-6)
    assert closed_loop(by_batch, 64).tpot_s == pytest.approx(closed_loop(at_slots, 64).tpot_s)
