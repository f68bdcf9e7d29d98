"""Launch commands: every number in them is the plan's, and they are valid shell."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest
import yaml

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.launch import LaunchSpec
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload


def plan_for(kb: Knowledge, **w: object) -> Plan:
    return recommend(Workload.model_validate(w), kb)


def spec(plan: Plan, runtime: str) -> LaunchSpec:
    return next(s for s in plan.launch if s.runtime == runtime)


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


@pytest.fixture(scope="module")
def serve_8b(kb: Knowledge) -> Plan:
    return plan_for(
        kb, task="infer", model="llama-3.1-8b", concurrency=16, context_len=8192, weight_dtype="bf16"
    )


def test_vllm_command_carries_the_plans_parallelism_context_and_concurrency(
    serve_8b: Plan, kb: Knowledge
) -> None:
    rec = serve_8b.recommendation
    assert rec is not None and rec.runtime == "vllm"
    vllm = serve_8b.launch[0]
    assert vllm.runtime == "vllm" and vllm.primary
    argv = vllm.argv
    assert argv[:3] == ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]  # serves the chat model
    assert int(flag(argv, "--tensor-parallel-size")) == rec.tensor_parallel
    assert int(flag(argv, "--max-model-len")) == 8192
    assert int(flag(argv, "--max-num-seqs")) == rec.batch
    assert float(flag(argv, "--gpu-memory-utilization")) == kb.runtimes["vllm"].memory_utilization
    assert "--quantization" not in argv  # bf16 is served as it ships


def test_sglang_alternative_uses_the_same_numbers(serve_8b: Plan, kb: Knowledge) -> None:
    rec = serve_8b.recommendation
    assert rec is not None
    argv = spec(serve_8b, "sglang").argv
    assert argv[:3] == ["python", "-m", "sglang.launch_server"]
    assert flag(argv, "--model-path") == "meta-llama/Llama-3.1-8B-Instruct"
    assert int(flag(argv, "--tp-size")) == rec.tensor_parallel
    assert int(flag(argv, "--context-length")) == 8192
    assert int(flag(argv, "--max-running-requests")) == rec.batch
    assert float(flag(argv, "--mem-fraction-static")) == kb.runtimes["vllm"].memory_utilization
    assert not spec(serve_8b, "sglang").primary


def test_an_sglang_pick_claims_the_share_sglang_takes_on_that_card(kb: Knowledge) -> None:
    plan = plan_for(kb, task="infer", model="llama-3.1-8b", concurrency=16, runtime="sglang")
    rec = plan.recommendation
    assert rec is not None and rec.runtime == "sglang"
    share = kb.runtimes["sglang"].memory_share(kb.gpus[rec.gpu], rec.tensor_parallel or 1)
    assert share != kb.runtimes["vllm"].memory_utilization
    assert float(flag(spec(plan, "sglang").argv, "--mem-fraction-static")) == share
    assert float(flag(spec(plan, "vllm").argv, "--gpu-memory-utilization")) == share


def test_a_token_budget_the_user_set_is_passed_to_both_servers(kb: Knowledge) -> None:
    budget = {"max_num_batched_tokens": 4096}
    plan = plan_for(kb, task="infer", model="llama-3.1-8b", concurrency=16, weight_dtype="bf16", **budget)
    assert flag(spec(plan, "vllm").argv, "--max-num-batched-tokens") == "4096"
    assert flag(spec(plan, "sglang").argv, "--chunked-prefill-size") == "4096"


def test_without_a_token_budget_the_servers_keep_their_own(serve_8b: Plan) -> None:
    assert "--max-num-batched-tokens" not in spec(serve_8b, "vllm").argv


def test_every_command_survives_a_shell_round_trip(serve_8b: Plan, kb: Knowledge) -> None:
    train = plan_for(kb, task="train", model="llama-3.1-70b", method="full")
    for s in [*serve_8b.launch, *train.launch]:
        env = [f"{k}={v}" for k, v in s.env.items()]
        assert shlex.split(s.shell) == [*env, *s.argv]


def test_fp8_pick_with_a_published_fp8_checkpoint_loads_it_without_quantizing_again(kb: Knowledge) -> None:
    plan = plan_for(kb, task="infer", model="llama-3.1-8b", weight_dtype="fp8", gpu="h100-sxm")
    vllm = spec(plan, "vllm")
    assert vllm.argv[2] == "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8" and "--quantization" not in vllm.argv


def test_fp8_pick_without_a_published_checkpoint_asks_vllm_to_quantize_on_load(kb: Knowledge) -> None:
    plan = plan_for(kb, task="infer", model="qwen2.5-14b", weight_dtype="fp8", gpu="h100-sxm")
    vllm = spec(plan, "vllm")
    assert vllm.argv[2] == "Qwen/Qwen2.5-14B-Instruct" and flag(vllm.argv, "--quantization") == "fp8"


def test_a_multi_machine_deepseek_plan_runs_pipeline_stages_over_ray(kb: Knowledge) -> None:
    plan = plan_for(kb, task="infer", model="deepseek-v3", weight_dtype="bf16")
    rec = plan.recommendation
    assert rec is not None and rec.machines_per_replica and rec.machines_per_replica > 1
    argv = spec(plan, "vllm").argv
    assert int(flag(argv, "--pipeline-parallel-size")) == rec.machines_per_replica
    assert int(flag(argv, "--tensor-parallel-size")) == rec.tensor_parallel
    assert flag(argv, "--distributed-executor-backend") == "ray"
    assert "ray_cluster" in spec(plan, "vllm").needs
    assert int(flag(spec(plan, "sglang").argv, "--nnodes")) == rec.machines_per_replica


def test_llama_cpp_on_two_gpus_splits_layers_and_gives_each_slot_the_full_context(kb: Knowledge) -> None:
    plan = plan_for(kb, task="infer", model="llama-3.1-70b", weight_dtype="q4_k_m", context_len=4096)
    rec = plan.recommendation
    assert rec is not None and rec.runtime == "llama_cpp" and rec.count == 2
    convert, server = plan.launch[:2]
    assert convert.role == "prepare" and server.runtime == "llama_cpp" and server.primary
    assert flag(server.argv, "-m") == convert.settings["output"] == "Llama-3.1-70B-Instruct-Q4_K_M.gguf"
    argv = server.argv
    assert flag(argv, "--split-mode") == "layer"
    assert int(flag(argv, "-np")) == rec.batch
    # llama-server shares -c among its -np slots (ggml-org/llama.cpp#11681)
    assert int(flag(argv, "-c")) == 4096 * (rec.batch or 1)
    assert flag(argv, "-ngl") == "99"
    assert server.env["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_full_finetune_deepspeed_config_matches_the_plan(kb: Knowledge) -> None:
    # Pretraining keeps full training across machines (a fine-tune of 70B would go LoRA on one).
    plan = plan_for(
        kb, task="train", model="llama-3.1-70b", method="full", batch_size=2, seq_len=4096, pretrain=True
    )
    rec = plan.recommendation
    assert rec is not None and rec.machines > 1
    run = spec(plan, "torchrun_deepspeed")
    assert int(flag(run.argv, "--nproc_per_node")) == rec.count
    assert int(flag(run.argv, "--nnodes")) == rec.machines
    ds = json.loads(run.config_files["ds_config.json"])
    assert ds["zero_optimization"]["stage"] == rec.zero_stage
    assert ds["train_micro_batch_size_per_gpu"] == 2
    assert ds["gradient_accumulation_steps"] == 8  # engine.defaults: 16 sequences per step / micro-batch 2
    assert ds["bf16"] == {"enabled": True}
    assert run.argv[-3:] == ["-m", "llamafactory.launcher", "train.yaml"]
    config = yaml.safe_load(run.config_files["train.yaml"])
    assert config["cutoff_len"] == 4096 and config["deepspeed"] == "ds_config.json"
    assert ("disable_gradient_checkpointing" in config) == (not rec.gradient_checkpointing)


def test_a_qlora_plan_yields_a_llama_factory_config_with_4_bit_quantization(kb: Knowledge) -> None:
    plan = plan_for(kb, task="train", model="qwen2.5-7b", method="qlora", lora_rank=32, batch_size=4)
    factory = plan.launch[0]
    assert factory.runtime == "llama_factory" and factory.primary
    config = yaml.safe_load(factory.config_files["train.yaml"])
    assert config["model_name_or_path"] == "Qwen/Qwen2.5-7B"
    assert config["finetuning_type"] == "lora"
    assert config["quantization_bit"] == 4
    assert config["lora_rank"] == 32
    assert config["per_device_train_batch_size"] == 4
    assert config["gradient_accumulation_steps"] == 4


def test_a_lora_plan_is_not_quantized(kb: Knowledge) -> None:
    plan = plan_for(kb, task="train", model="qwen2.5-7b", method="lora")
    config = yaml.safe_load(plan.launch[0].config_files["train.yaml"])
    assert config["finetuning_type"] == "lora" and "quantization_bit" not in config


def test_train_and_serve_plan_launches_both(kb: Knowledge) -> None:
    plan = plan_for(kb, task="both", model="qwen2.5-7b", method="lora")
    assert {s.option for s in plan.launch} == {"pick", "serving"}
    roles = {s.role for s in plan.launch}  # and torchtune's download before its tune run
    assert {"train", "serve"} <= roles <= {"train", "serve", "prepare"}


def test_the_json_plan_carries_launch() -> None:
    payload = json.dumps({"task": "infer", "model": "qwen2.5-7b"})
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", "recommend", "--json", "-"],
        input=payload,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    launch = json.loads(proc.stdout)["launch"]
    # the plan picks INT8 on a T4: the published W8A8 release of the instruct model
    assert launch[0]["runtime"] == "vllm"
    assert launch[0]["shell"].startswith("vllm serve neuralmagic-ent/Qwen2.5-7B-Instruct-quantized.w8a8")


@pytest.mark.parametrize(("lang", "words"), [("zh", "按此方案"), ("en", "as planned")])
def test_cmd_answers_with_the_commands_in_either_language(dialog: Dialog, lang: str, words: str) -> None:
    state = ConversationState(lang=lang, lang_locked=True)
    answer, state = dialog.handle(
        state, "deploy Qwen2.5-7B 24/7 for 4 users" if lang == "en" else "部署 7B，7×24，并发 4"
    )
    if answer.kind != "answer":
        answer, state = dialog.handle(state, "/plan")
    assert "/cmd" in [b.payload for b in answer.buttons]
    reply, _ = dialog.press(state, "/cmd")
    assert reply.kind == "answer" and words in reply.text
    assert any(s.code and s.lines[-1].startswith("vllm serve") for s in reply.sections)
    alias, _ = dialog.handle(state, "/命令")
    assert alias.text == reply.text


def test_cmd_before_any_plan_says_there_is_none_yet(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "/cmd")
    assert reply.kind == "info"


def test_a_library_model_is_launched_by_its_published_repository_id(kb: Knowledge) -> None:
    plan = plan_for(kb, task="infer", model="qwen2.5-14b", concurrency=4, weight_dtype="bf16")
    repos = {s.runtime: s.argv for s in plan.launch}
    # models.yaml cites the base model's config; a deployment serves its instruct checkpoint
    assert repos["vllm"][2] == "Qwen/Qwen2.5-14B-Instruct"
    assert flag(repos["sglang"], "--model-path") == "Qwen/Qwen2.5-14B-Instruct"
    assert all("model_repo" not in s.needs for s in plan.launch)


def test_a_model_known_only_by_its_size_is_launched_as_your_model_with_a_note_to_replace_it(
    kb: Knowledge,
) -> None:
    plan = plan_for(kb, task="infer", params_b=13, concurrency=8, always_on=True)
    files = [f for s in plan.launch for f in s.config_files.values()]
    text = "\n".join([s.shell for s in plan.launch] + files)
    assert plan.launch and all(s.needs[0] == "model_repo" for s in plan.launch)
    assert "YOUR_MODEL" in text and "custom" not in text and "Llama-2-13b" not in text


def test_cmd_tells_the_user_to_replace_your_model(dialog: Dialog) -> None:
    state = ConversationState(lang="en", lang_locked=True)
    answer, state = dialog.handle(state, "deploy a 13B chatbot 24/7 for 8 users")
    if answer.kind != "answer":
        answer, state = dialog.handle(state, "/plan")
    reply, _ = dialog.press(state, "/cmd")
    assert any("YOUR_MODEL" in line for line in reply.sections[0].lines)
    assert any("Replace YOUR_MODEL" in line for line in reply.summary)
