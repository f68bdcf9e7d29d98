"""The knowledge launch commands rest on: published checkpoints and the runtimes' own flag lists.

Both are data with a source per row, validated at load, so a wrong row is refused by name
instead of becoming a command that fails on the rented machine.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.launch import RELEASES
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge import KnowledgeError, published, runtime_flags

ROW = {
    "model": "qwen2.5-14b",
    "kind": "awq",
    "repo": "Qwen/Qwen2.5-14B-Instruct-AWQ",
    "source": "https://huggingface.co/Qwen/Qwen2.5-14B-Instruct-AWQ",
}


def test_a_checkpoint_row_must_cite_its_own_repository_page() -> None:
    wrong = {**ROW, "source": "https://huggingface.co/Qwen/Qwen2.5-14B-Instruct"}
    with pytest.raises(KnowledgeError, match=r"checkpoints\.yaml"):
        published.table([wrong], {"qwen2.5-14b"})


def test_a_checkpoint_row_for_a_model_the_engine_does_not_know_is_refused_by_name() -> None:
    with pytest.raises(KnowledgeError, match=r"unknown model 'qwen2\.5-14b'"):
        published.table([ROW], {"llama-3.1-8b"})


def test_two_rows_of_one_kind_for_one_model_are_refused() -> None:
    with pytest.raises(KnowledgeError, match="two awq rows"):
        published.table([ROW, {**ROW}], {"qwen2.5-14b"})


def test_the_shipped_table_names_the_issues_examples(kb: Knowledge) -> None:
    # issue 46: an INT8 plan for Qwen2.5-14B, AWQ plans for 32B and Llama 3 70B
    assert kb.checkpoints.find("qwen2.5-14b", "w8a8") is not None
    assert kb.checkpoints.find("qwen2.5-32b", "awq") is not None
    assert kb.checkpoints.find("llama-3-70b", "awq") is not None
    assert kb.checkpoints.find("qwen2.5-14b", "instruct") is not None


def test_python_flags_are_the_option_strings_of_add_argument_and_frontend_fields() -> None:
    source = """
parser.add_argument("--tensor-parallel-size", "-tp", type=int)
parser.add_argument("model_tag")
other("--not-a-flag")

class FrontendArgs:
    host: str = "0.0.0.0"
    enable_ssl_refresh: bool = False
"""
    found = runtime_flags.python_flags(source)
    assert found == {
        "--tensor-parallel-size",
        "-tp",
        "--host",
        "--enable-ssl-refresh",
        "--no-enable-ssl-refresh",
    }


def test_cpp_flags_are_the_spellings_in_each_common_arg_list() -> None:
    source = 'add_opt(common_arg({"-c", "--ctx-size"}, "N", "size", [](auto &p, int v) {}));\nputs("--nope");'
    assert runtime_flags.cpp_flags(source) == {"-c", "--ctx-size"}


def test_every_pinned_release_has_its_flag_list() -> None:
    table = runtime_flags.load()
    for runtime, release in RELEASES.items():
        assert (runtime, release) in table
        # a server, a trainer, ollama create (ollama serve takes no flags) or tune run
        assert {"--host", "--output_dir", "--file", "--config"} & table[(runtime, release)].flags


def test_an_ascend_plan_is_served_by_vllm_ascend_and_says_so(kb: Knowledge) -> None:
    w = Workload(task="infer", model="qwen2.5-7b", gpu="ascend-910b", gpu_count=1, gpu_owned=True)
    plan = recommend(w, kb)
    assert plan.recommendation is not None and plan.recommendation.gpu == "ascend-910b"
    assert {s.runtime for s in plan.launch if s.role == "serve"} == {"vllm"}
    assert all({"cann_toolkit", "vllm_ascend"} <= set(s.needs) for s in plan.launch)


def test_training_on_an_ascend_card_says_the_commands_are_for_nvidia_cards(kb: Knowledge) -> None:
    w = Workload(
        task="train", model="qwen2.5-7b", method="lora", gpu="ascend-910b", gpu_count=1, gpu_owned=True
    )
    plan = recommend(w, kb)
    assert plan.recommendation is not None and plan.recommendation.gpu == "ascend-910b"
    assert plan.launch and all("nvidia_only" in s.needs for s in plan.launch)


def test_a_plan_on_amd_cards_says_its_commands_run_on_the_rocm_builds(kb: Knowledge) -> None:
    w = Workload(task="infer", model="llama-3.1-70b", gpu="mi300x", gpu_count=1, gpu_owned=True)
    plan = recommend(w, kb)
    assert plan.recommendation is not None and plan.recommendation.gpu == "mi300x"
    assert plan.launch and all("rocm_build" in s.needs for s in plan.launch)


def _ascend_plans(kb: Knowledge, formats: tuple[str | None, ...]) -> list[tuple[str | None, Plan]]:
    """Every model in each format on one 910B, where the plan stays on the Ascend card."""
    out: list[tuple[str | None, Plan]] = []
    for model in kb.models:
        for fmt in formats:
            w = {"task": "infer", "model": model, "gpu": "ascend-910b", "gpu_count": 1, "gpu_owned": True}
            plan = recommend(Workload.model_validate({**w, **({"weight_dtype": fmt} if fmt else {})}), kb)
            if plan.recommendation is not None and plan.recommendation.gpu == "ascend-910b":
                out.append((plan.recommendation.weight_dtype, plan))
    return out


def test_every_ascend_serving_plan_runs_vllm_ascend_and_a_quantized_one_says_it_is_for_nvidia(
    kb: Knowledge,
) -> None:
    plans = _ascend_plans(kb, (None, "bf16", "int8", "awq", "gptq", "fp8", "mxfp4"))
    assert {dtype for dtype, _ in plans} >= {"bf16", "int8"}
    for dtype, plan in plans:
        serving = [s for s in plan.launch if s.role == "serve"]
        published = any(n.startswith("served_as_published") for s in serving for n in s.needs)
        sixteen_bit = dtype in ("fp16", "bf16") and not published
        assert serving and {s.runtime for s in serving} == {"vllm"}
        assert all({"cann_toolkit", "vllm_ascend"} <= set(s.needs) for s in serving)
        assert all(("ascend_format" in s.needs) != sixteen_bit for s in serving), (dtype, serving[0].shell)


def test_a_16_bit_ascend_plan_does_not_say_its_command_is_for_nvidia(kb: Knowledge) -> None:
    w = Workload(task="infer", model="qwen2.5-7b", weight_dtype="bf16", gpu="ascend-910b", gpu_owned=True)
    plan = recommend(w, kb)
    assert plan.recommendation is not None and plan.recommendation.gpu == "ascend-910b"
    assert plan.launch and not [s for s in plan.launch if "ascend_format" in s.needs]
