"""Every launch command the bot can produce runs as given (issue 46).

Over every plan the tests and benches produce (tests/eval/plans.yaml, bench/engine_bench.py's
cases, the workloads of tests/test_scenarios.py and tests/test_launch.py, and the issue's own
examples), each serving command:

- uses only flags its runtime's pinned release parses (knowledge/runtime_flags.yaml, read out of
  the runtimes' own argument parsers);
- carries the plan's numbers: parallel sizes, context, memory share, running sequences;
- loads weights that exist in the planned format: a published checkpoint of that form
  (knowledge/checkpoints.yaml), the model's own repository in its native format, a folder a
  quantize step of the same plan writes first, or on-load FP8;
- names no training placeholder (YOUR_DATASET, train.py), and HEAD_IP only across machines.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.engine_bench import CASES
from gpu_advisor import locales
from gpu_advisor.engine.launch import RELEASES, LaunchSpec, hf_repo
from gpu_advisor.engine.launch.torchtune import TORCHTUNE_CONFIGS, download
from gpu_advisor.engine.launch.training import DEEPSPEED_RELEASE
from gpu_advisor.engine.launch.weights import PUBLISHED_FORMS, SAME_SIZE
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Option, Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge import job_flags, runtime_flags

ROOT = Path(__file__).resolve().parent
# Workloads of tests/test_scenarios.py and tests/test_launch.py, and the plans issue 46 names.
SCENARIOS: list[dict[str, Any]] = [
    {"task": "infer", "params_b": 13, "always_on": True},
    {"task": "infer", "params_b": 7, "qps": 20, "gpu": "a100-40g-sxm", "gpu_count": 8, "always_on": True},
    {"task": "infer", "model": "llama-3.1-405b", "weight_dtype": "q4_k_m", "gpu": "h100-sxm", "gpu_count": 1},
    {"task": "infer", "model": "llama-3.1-70b", "weight_dtype": "bf16", "always_on": True},
    {"task": "infer", "model": "qwen2.5-14b", "qps": 3},
    {
        "task": "infer",
        "model": "llama-3.1-8b",
        "concurrency": 16,
        "context_len": 8192,
        "weight_dtype": "bf16",
    },
    {"task": "infer", "model": "llama-3.1-8b", "concurrency": 16, "runtime": "sglang"},
    {"task": "infer", "model": "llama-3.1-8b", "concurrency": 16, "max_num_batched_tokens": 4096},
    {"task": "infer", "model": "llama-3.1-8b", "weight_dtype": "fp8", "gpu": "h100-sxm"},
    {"task": "infer", "model": "deepseek-v3", "weight_dtype": "bf16"},
    {"task": "infer", "model": "deepseek-v3"},
    {"task": "infer", "model": "llama-3.1-70b", "weight_dtype": "q4_k_m", "context_len": 4096},
    {"task": "infer", "model": "qwen2.5-14b", "concurrency": 4, "weight_dtype": "bf16"},
    {"task": "infer", "params_b": 13, "concurrency": 8, "always_on": True},
    {"task": "infer", "model": "qwen2.5-14b", "concurrency": 8, "gpu": "rtx3090"},
    {"task": "infer", "model": "qwen2.5-32b", "weight_dtype": "awq"},
    {"task": "infer", "model": "llama-3-70b", "weight_dtype": "awq"},
    {"task": "infer", "model": "gpt-oss-120b", "concurrency": 4},
    {"task": "infer", "model": "qwen2.5-7b", "weight_dtype": "mxfp4"},
    {"task": "infer", "model": "qwen2.5-7b", "weight_dtype": "gptq"},
    {"task": "infer", "model": "llama-3.1-70b", "gpu": "mi300x", "gpu_count": 1, "gpu_owned": True},
    {"task": "infer", "model": "llama-3.1-8b", "concurrency": 16, "runtime": "tensorrt_llm"},
    {"task": "infer", "model": "llama-3.1-70b", "weight_dtype": "bf16", "runtime": "tensorrt_llm"},
    {"task": "infer", "model": "qwen2.5-7b", "gpu": "ascend-910b", "gpu_count": 1, "gpu_owned": True},
    {"task": "train", "model": "qwen2.5-7b", "method": "lora", "gpu": "ascend-910b", "gpu_owned": True},
    {"task": "train", "params_b": 13, "method": "full"},
    {"task": "train", "params_b": 70, "method": "full", "train_tokens": 1e9, "pretrain": True},
    {"task": "train", "model": "llama-2-7b", "method": "qlora", "duration_hours": 72},
    {
        "task": "train",
        "model": "llama-3.1-70b",
        "method": "full",
        "batch_size": 2,
        "seq_len": 4096,
        "pretrain": True,
    },
    {"task": "train", "model": "qwen2.5-7b", "method": "qlora", "lora_rank": 32, "batch_size": 4},
    {"task": "both", "params_b": 13, "method": "lora", "train_tokens": 5e7},
    {"task": "both", "model": "qwen2.5-7b", "method": "lora"},
]
TRAINING_PLACEHOLDERS = ("YOUR_DATASET", "train.py")


def workloads() -> list[dict[str, Any]]:
    rows = yaml.safe_load((ROOT / "eval" / "plans.yaml").read_text(encoding="utf-8"))
    bench = [w.model_dump(exclude_unset=True) for _, w in CASES]
    return [r["workload"] for r in rows] + bench + SCENARIOS


@pytest.fixture(scope="module")
def plans(kb: Knowledge) -> list[tuple[dict[str, Any], Plan]]:
    return [(w, recommend(Workload.model_validate(w), kb)) for w in workloads()]


def serving_commands(plan: Plan) -> list[tuple[LaunchSpec, Option]]:
    out = []
    for spec in plan.launch:
        option = plan.serving if spec.option == "serving" else plan.recommendation
        if spec.role == "serve" and option is not None:
            out.append((spec, option))
    return out


def server_args(spec: LaunchSpec) -> list[str]:
    """The arguments the server parses: after ``vllm serve MODEL``, ``python -m sglang.launch_server``."""
    return spec.argv[
        {"llama_cpp": 1, "tensorrt_llm": 2, "ms_swift": 2}.get(spec.runtime, 3) :
    ]  # ollama create NAME


def flags(argv: list[str]) -> dict[str, str]:
    """``--flag value`` pairs (a flag followed by another flag, or last, is a switch: "")."""
    out = {}
    for i, token in enumerate(argv):
        if token.startswith("-"):
            value = argv[i + 1] if i + 1 < len(argv) and not argv[i + 1].startswith("-") else ""
            out[token] = value
    return out


def test_the_plans_cover_every_serving_runtime_and_a_quantize_step(plans: list[tuple[Any, Plan]]) -> None:
    runtimes = {s.runtime for _, p in plans for s in p.launch}
    expected = {
        "vllm",
        "sglang",
        "tensorrt_llm",
        "llama_cpp",
        "ollama",
        "llm_compressor",
        "gguf_convert",
        "llama_factory",
    }
    assert expected <= runtimes


def test_every_flag_of_every_command_exists_in_its_pinned_release(plans: list[tuple[Any, Plan]]) -> None:
    table = runtime_flags.load()
    checked = set()
    for _, plan in plans:
        for spec in plan.launch:
            if not spec.release:
                continue  # LLaMA-Factory reads a YAML config; the quantize steps run a script
            checked.add(spec.runtime)
            known = table[(spec.runtime, spec.release)].flags
            unknown = sorted(set(flags(server_args(spec))) - known)
            assert not unknown, f"{spec.runtime} {spec.release} has no {unknown}: {spec.shell}"
    assert checked == {
        "vllm",
        "sglang",
        "tensorrt_llm",
        "llama_cpp",
        "ollama",
        "ms_swift",
        "llama_factory",
        "torchtune",
    }


def test_every_ollama_command_uses_names_its_release_knows_and_the_plans_numbers(
    plans: list[tuple[Any, Plan]],
) -> None:
    known = runtime_flags.load()[("ollama", RELEASES["ollama"])]
    ollama = [(s, o) for _, p in plans for s, o in serving_commands(p) if s.runtime == "ollama"]
    assert ollama
    for spec, o in ollama:
        modelfile = spec.config_files["Modelfile"].splitlines()
        parameters = dict(line.split()[1:3] for line in modelfile if line.startswith("PARAMETER "))
        assert set(parameters) <= known.choices["PARAMETER"]
        assert set(spec.env) - {"CUDA_VISIBLE_DEVICES"} <= known.choices["env"]
        assert modelfile[0] == f"FROM ./{spec.settings['weights']}"
        assert int(parameters["num_ctx"]) == spec.settings["context_len"]
        assert int(spec.env["OLLAMA_NUM_PARALLEL"]) == (o.batch or 1) * int(spec.settings["data_parallel"])
        assert spec.shell.endswith(" ".join(spec.argv)) and " ollama serve & " in spec.shell


def test_every_llama_factory_config_key_and_template_exists_in_its_pinned_release(
    plans: list[tuple[Any, Plan]],
) -> None:
    known = runtime_flags.load()[("llama_factory", RELEASES["llama_factory"])]
    for _, plan in plans:
        for spec in plan.launch:
            if "train.yaml" in spec.config_files:
                config = yaml.safe_load(spec.config_files["train.yaml"])
                assert not sorted(k for k in config if f"--{k}" not in known.flags)
                assert config["template"] in known.choices["template"]


def test_every_serving_command_carries_the_plans_parallelism_and_limits(
    plans: list[tuple[dict[str, Any], Plan]],
) -> None:
    names = {
        "vllm": ("--tensor-parallel-size", "--max-model-len", "--gpu-memory-utilization", "--max-num-seqs"),
        "sglang": ("--tp-size", "--context-length", "--mem-fraction-static", "--max-running-requests"),
        "tensorrt_llm": (
            "--tp_size",
            "--max_seq_len",
            "--kv_cache_free_gpu_memory_fraction",
            "--max_batch_size",
        ),
    }
    for w, plan in plans:
        for spec, o in serving_commands(plan):
            if spec.runtime not in names:
                continue
            f, (tp, ctx, share, seqs) = flags(spec.argv), names[spec.runtime]
            assert int(f[tp]) == (o.tensor_parallel or 1)
            assert int(f[seqs]) == (o.batch or 1)
            assert int(f[ctx]) == spec.settings["context_len"] == w.get("context_len", int(f[ctx]))
            assert float(f[share]) == spec.settings["memory_fraction"]
            pp = o.machines_per_replica or 1
            spelled = f.get("--pipeline-parallel-size") or f.get("--pp-size") or f.get("--pp_size") or "1"
            assert int(spelled) == pp


def test_a_token_budget_reaches_every_server_that_takes_one(plans: list[tuple[dict[str, Any], Plan]]) -> None:
    budget_flag = {
        "vllm": "--max-num-batched-tokens",
        "sglang": "--chunked-prefill-size",
        "tensorrt_llm": "--max_num_tokens",
    }
    for w, plan in plans:
        for spec, _ in serving_commands(plan):
            if spec.runtime in budget_flag:
                given = flags(spec.argv).get(budget_flag[spec.runtime])
                budget = w.get("max_num_batched_tokens")
                assert given == (str(budget) if budget else None)


def test_llama_server_gives_each_slot_the_plans_context(plans: list[tuple[Any, Plan]]) -> None:
    for _, plan in plans:
        for spec, o in serving_commands(plan):
            if spec.runtime == "llama_cpp":
                f = flags(spec.argv)
                assert int(f["-np"]) == (o.batch or 1)
                assert int(f["-c"]) == int(spec.settings["context_len"]) * (o.batch or 1)


def served_path(spec: LaunchSpec) -> str:
    if spec.runtime == "ollama":  # the Modelfile's FROM ./file.gguf
        return spec.config_files["Modelfile"].splitlines()[0].removeprefix("FROM ./")
    if spec.runtime in ("vllm", "tensorrt_llm"):
        return spec.argv[2 if spec.runtime == "vllm" else 1]
    return flags(spec.argv)["--model-path" if spec.runtime == "sglang" else "-m"]


def test_every_serving_command_loads_weights_that_exist_in_the_planned_format(
    plans: list[tuple[Any, Plan]], kb: Knowledge
) -> None:
    for _, plan in plans:
        made = {str(s.settings.get("output_dir") or s.settings.get("output")) for s in plan.launch}
        for spec, o in serving_commands(plan):
            path, fmt = served_path(spec), o.weight_dtype
            native = plan.model.id in kb.models and kb.models[plan.model.id].native_dtype == fmt
            if not native and fmt in SAME_SIZE:  # served as its same-size twin, and says so
                assert f"{fmt}_as_{SAME_SIZE[fmt]}" in spec.needs
                fmt = SAME_SIZE[fmt]
            published = {r.repo: r for r in kb.checkpoints.rows}
            if path in made:
                continue  # a prepare step of this plan writes it first
            if path in published and published[path].kind != "instruct":
                assert published[path].kind in PUBLISHED_FORMS[fmt], (fmt, path)
                continue
            on_load = fmt == "fp8" and flags(spec.argv).get("--quantization") == "fp8"
            assert fmt in ("bf16", "fp16") or native or on_load, f"{fmt} plan serves {path}"


def test_a_deployment_serves_the_instruct_checkpoint_where_one_is_published(
    plans: list[tuple[Any, Plan]], kb: Knowledge
) -> None:
    checked = 0
    for _, plan in plans:
        arch = kb.models.get(plan.model.id)
        instruct = kb.checkpoints.find(plan.model.id, "instruct")
        if arch is None or instruct is None:
            continue
        for spec, _ in serving_commands(plan):
            assert hf_repo(arch) not in spec.shell.split(), f"serves the base model: {spec.shell}"
            if spec.settings.get("weights_form") == "instruct":
                assert served_path(spec) == instruct.repo
                checked += 1
    assert checked


def test_serving_commands_carry_no_training_placeholders(plans: list[tuple[Any, Plan]]) -> None:
    for _, plan in plans:
        for spec, o in serving_commands(plan):
            text = "\n".join([spec.shell, *spec.config_files.values()])
            assert not [p for p in TRAINING_PLACEHOLDERS if p in text], spec.shell
            assert "HEAD_IP" not in text or (o.machines_per_replica or 1) > 1, spec.shell


def test_a_quantize_step_comes_before_the_servers_that_load_its_folder(plans: list[tuple[Any, Plan]]) -> None:
    seen = 0
    for _, plan in plans:
        for i, step in enumerate(plan.launch):
            if step.role != "prepare" or step.runtime == "torchtune_download":
                continue  # torchtune's download is checked with its tune run
            seen += 1
            out = str(step.settings.get("output_dir") or step.settings.get("output"))
            later = [served_path(s) for s in plan.launch[i + 1 :] if s.role == "serve"]
            assert out in later
            assert out in "".join(step.config_files.values())
            for name, text in step.config_files.items():
                if name.endswith(".py"):
                    compile(text, name, "exec")  # the script at least parses
                else:
                    subprocess.run(["bash", "-n"], input=text, text=True, check=True)
    assert seen


def test_training_commands_name_only_the_values_that_cannot_be_known(plans: list[tuple[Any, Plan]]) -> None:
    for _, plan in plans:
        for spec in plan.launch:
            if spec.role != "train":
                continue
            text = "\n".join([spec.shell, *spec.config_files.values()])
            assert "train.py" not in text
            assert ("HEAD_IP" in text) == (int(spec.settings["machines"]) > 1)
            if spec.runtime == "torchtune":
                continue  # trains on its config's dataset until overridden: the need says how
            if spec.runtime == "ms_swift":
                f = flags(spec.argv)
                config = {"dataset": f["--dataset"], "cutoff_len": int(f["--max_length"])}
                config["per_device_train_batch_size"] = int(f["--per_device_train_batch_size"])
                assert int(spec.env["NPROC_PER_NODE"]) == spec.settings["gpus_per_machine"]
            else:
                config = yaml.safe_load(spec.config_files["train.yaml"])
            assert config["dataset"] == "YOUR_DATASET"
            assert config["cutoff_len"] == spec.settings["seq_len"]
            assert config["per_device_train_batch_size"] == spec.settings["micro_batch"]


def test_ms_swift_runs_the_plans_method_and_zero_stage(kb: Knowledge) -> None:
    plan = recommend(Workload(task="train", model="qwen2.5-7b", method="qlora", lora_rank=32), kb)
    swift = next(s for s in plan.launch if s.runtime == "ms_swift")
    f = flags(swift.argv)
    assert f["--train_type"] == "lora" and f["--lora_rank"] == "32"
    assert (f["--quant_method"], f["--quant_bits"]) == ("bnb", "4")
    full = recommend(Workload(task="train", model="llama-3.1-70b", method="full", pretrain=True), kb)
    rec = full.recommendation
    assert rec is not None and rec.zero_stage
    swift = next(s for s in full.launch if s.runtime == "ms_swift")
    assert flags(swift.argv)["--deepspeed"] == f"zero{rec.zero_stage}"
    assert swift.env["NNODES"] == str(rec.machines) and swift.env["MASTER_ADDR"] == "HEAD_IP"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_need_and_runtime_a_plan_names_has_a_sentence_in_both_languages(
    plans: list[tuple[Any, Plan]], lang: str
) -> None:
    keys = {f"launch.need.{n}" for _, p in plans for s in p.launch for n in s.needs}
    keys |= {f"launch.runtime.{s.runtime}" for _, p in plans for s in p.launch}
    assert not sorted(k for k in keys if not locales.has(lang, k))


def test_a_16_bit_plan_of_a_model_published_in_fp8_serves_the_published_weights_and_says_so(
    kb: Knowledge,
) -> None:
    plan = recommend(Workload(task="infer", model="deepseek-v3", weight_dtype="bf16"), kb)
    vllm = next(s for s in plan.launch if s.runtime == "vllm")
    assert vllm.argv[2] == "deepseek-ai/DeepSeek-V3" and "served_as_published_fp8" in vllm.needs


def test_torchruns_own_options_exist_in_its_pinned_release(plans: list[tuple[Any, Plan]]) -> None:
    """The explicit full fine-tune line: torchrun's options (knowledge/job_flags.yaml's torchrun
    row, read from torch/distributed/run.py) and a module LLaMA-Factory 0.9.3 ships
    (llamafactory/launcher.py, the one llamafactory-cli hands torchrun)."""
    known = job_flags.load()[("torchrun", "torchrun")].flags
    lines = [s for _, p in plans for s in p.launch if s.runtime == "torchrun_deepspeed"]
    assert lines
    for spec in lines:
        module_at = spec.argv.index("-m")
        assert spec.argv[module_at + 1 : module_at + 3] == ["llamafactory.launcher", "train.yaml"]
        assert set(flags(spec.argv[1:module_at])) <= known, spec.shell


def test_every_torchtune_line_runs_a_config_its_release_ships_with_keys_it_has(
    plans: list[tuple[Any, Plan]],
) -> None:
    """Recipe and config pair from torchtune 0.6.1's registry, the config's own download line just
    before it, override keys the config has, and the plan's numbers in them."""
    known = runtime_flags.load()[("torchtune", RELEASES["torchtune"])]
    seen = 0
    for _, plan in plans:
        o = plan.recommendation
        for i, spec in enumerate(plan.launch):
            if spec.runtime != "torchtune":
                continue
            seen += 1
            config, recipe = str(spec.settings["torchtune_config"]), str(spec.settings["torchtune_recipe"])
            assert f"{recipe} {config}" in known.choices["recipe_config"]
            fetch = plan.launch[i - 1]
            assert fetch.role == "prepare" and f"{config}: {fetch.shell}" in known.choices["download"]
            overrides = dict(a.split("=", 1) for a in spec.argv if "=" in a)
            assert {f"{config} {key}" for key in overrides} <= known.choices["config_keys"], spec.shell
            assert int(overrides["batch_size"]) == spec.settings["micro_batch"]
            assert int(overrides["gradient_accumulation_steps"]) == spec.settings["grad_accumulation"]
            assert int(overrides["tokenizer.max_seq_len"]) == spec.settings["seq_len"]
            if spec.settings["method"] != "full":
                assert int(overrides["model.lora_rank"]) == spec.settings["lora_rank"]
            assert o is not None and ("--nproc_per_node" in spec.argv) == (o.count * o.machines > 1)
            assert ("--rdzv_endpoint" in spec.argv) == (o.machines > 1)
    assert seen


def test_the_engines_torchtune_downloads_are_the_pinned_configs_own(kb: Knowledge) -> None:
    known = runtime_flags.load()[("torchtune", RELEASES["torchtune"])].choices["download"]
    o = recommend(Workload(task="train", model="llama-3.1-8b", method="lora"), kb).recommendation
    assert o is not None
    assert {f"{config}: {download(config, o).shell}" for config in TORCHTUNE_CONFIGS} <= known


def test_every_deepspeed_config_uses_keys_its_release_reads_and_the_plans_numbers(
    plans: list[tuple[Any, Plan]],
) -> None:
    known = runtime_flags.load()[("deepspeed", DEEPSPEED_RELEASE)]
    configs = [
        (s, json.loads(s.config_files.get("ds_config.json", "{}"))) for _, p in plans for s in p.launch
    ]
    configs = [(s, c) for s, c in configs if c]
    assert configs
    for spec, config in configs:
        assert {f"--{key}" for key in config} <= known.flags
        assert set(config["zero_optimization"]) <= known.choices["zero_optimization"]
        assert config["zero_optimization"]["stage"] == spec.settings["zero_stage"]
        assert config["train_micro_batch_size_per_gpu"] == spec.settings["micro_batch"]
        assert config["gradient_accumulation_steps"] == spec.settings["grad_accumulation"]
