"""The public JSON contract on the command line: field names, exit codes, errors that name fields."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def run(command: str, payload: Any, *options: str, after: tuple[str, ...] = ()) -> tuple[int, dict[str, Any]]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", *options, command, "--json", "-", *after],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_estimate_prints_memory_breakdown_and_fits() -> None:
    code, out = run(
        "estimate", {"task": "infer", "model": "llama-3-8b", "context_len": 8192, "concurrency": 4}
    )
    assert code == 0
    assert set(out["memory_gib"]) == {
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "kv_cache",
        "overhead",
        "total",
    }
    row = next(r for r in out["fits"] if r["gpu"] == "t4")
    assert set(row) >= {"gpu", "count", "fits", "total_gib", "capacity_gib"}
    # 4 sequences × 8192 tokens × 128 KiB = 4 GiB of KV cache.
    assert out["memory_gib"]["kv_cache"] == pytest.approx(4.0, abs=0.01)


def test_estimate_with_a_gpu_reports_speed() -> None:
    code, out = run("estimate", {"task": "infer", "model": "llama-3-8b", "gpu": "a100-80g-sxm"})
    assert code == 0 and out["decode_tokens_per_s"] > 0 and out["ttft_ms"] > 0 and out["requests_per_s"] > 0


def test_training_estimate_reports_gpu_hours_when_tokens_are_given() -> None:
    code, out = run(
        "estimate",
        {
            "task": "train",
            "model": "llama-2-7b",
            "method": "lora",
            "train_tokens": 1e8,
            "gpu": "a100-80g-sxm",
        },
    )
    assert code == 0 and out["training_gpu_hours"] > 0
    assert out["memory_gib"]["gradients"] < 1


def test_recommend_prints_a_plan_with_the_contracts_fields() -> None:
    code, out = run(
        "recommend",
        {
            "task": "infer",
            "params_b": 13,
            "always_on": True,
            "budget": {"amount": 2000, "currency": "CNY", "per": "month"},
        },
    )
    assert code == 0
    assert {"recommendation", "alternatives", "reasoning", "pitfalls", "assumptions"} <= set(out)
    rec = out["recommendation"]
    assert {"offer", "gpu", "count", "cost", "memory_gib"} <= set(rec)
    assert set(rec["cost"]) >= {"amount", "currency", "per"}
    assert all({"id", "values"} <= set(step) for step in out["reasoning"])


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"task": "infer", "model": "gpt-99"}, "model"),
        ({"task": "infer", "params_b": 1_000_000}, "params_b"),
        ({"task": "infer", "params_b": 7, "context_len": -4096}, "context_len"),
        ({"task": "infer", "params_b": 7, "gpu": "tpu-v5"}, "gpu"),
        ({"task": "infer", "params_b": "seven"}, "params_b"),
        ({"task": "infer", "params_b": 7, "concurrency": "16"}, "concurrency"),
        ({"task": "infer", "params_b": 7, "always_on": "yes"}, "always_on"),
        ({"task": "dance", "params_b": 7}, "task"),
        ({"task": "infer"}, "model"),
        ({"task": "infer", "params_b": 7, "colour": "blue"}, "colour"),
        ({"task": "train", "params_b": 7, "budget": {"amount": -5}}, "budget.amount"),
        ({"task": "infer", "params_b": 7, "context_len": "3 GB"}, "context_len"),  # a size, not tokens
    ],
)
def test_bad_input_exits_2_with_an_error_naming_the_field(payload: dict[str, Any], field: str) -> None:
    for command in ("estimate", "recommend"):
        code, out = run(command, payload)
        assert code == 2
        assert out["error"]["field"] == field


def test_quantities_with_units_give_the_plan_their_numbers_give() -> None:
    asked = {"task": "infer", "model": "llama-3-8b"}
    written = asked | {"context_len": "32k tokens", "budget": "2000 CNY/month"}
    numbers = asked | {"context_len": 32000, "budget": {"amount": 2000, "currency": "CNY", "per": "month"}}
    assert run("recommend", written) == run("recommend", numbers)


def test_a_bad_catalog_exits_2_naming_file_row_and_field(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text("gpu,count,interconnect,price_month\nt4,1,none,900\ntpu-v5,1,none,900\n")
    code, out = run("recommend", {"task": "infer", "params_b": 7}, "--catalog", str(path))
    assert code == 2 and out["error"]["code"] == "bad_catalog"
    assert (out["error"]["file"], out["error"]["row"], out["error"]["field"]) == (str(path), 2, "gpu")


def test_malformed_json_exits_2() -> None:
    code, out = run("recommend", "{not json")
    assert code == 2 and out["error"]["code"] == "invalid_json"


def test_a_json_array_is_not_a_workload() -> None:
    code, out = run("recommend", "[1, 2]")
    assert code == 2 and out["error"]["code"] == "invalid_json"


def test_analyze_prints_the_sheet_contract() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", "analyze", "--json", "-"],
        input="8×H100 SXM, NVSwitch, 2×Xeon 8480+, 2TB, 8×NVMe, 8×400G IB",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(proc.stdout)
    assert {
        "parsed",
        "unparsed_lines",
        "verdict",
        "signals",
        "stress_tests",
        "vendor_questions",
        "pitfalls",
    } <= set(out)
    assert out["verdict"] == "training"
    assert all({"id", "weight", "values"} <= set(s) for s in out["signals"])


def test_analyze_text_mode_answers_in_the_sheets_language() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", "analyze", "-"],
        input="4 × T4，PCIe，256GB 内存",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "推理" in proc.stdout


CONFIGS = Path(__file__).parent / "calibration" / "configs"


def test_model_config_file_sizes_a_model_the_library_does_not_know() -> None:
    # DeepSeek-V3's own config.json: 671B total, ~37B active, MLA cache 61 × 576 × 2 bytes per token.
    config = str(CONFIGS / "deepseek_v3.json")
    workload = {"task": "infer", "model": "my-deepseek", "concurrency": 4}
    for command in ("estimate", "recommend"):
        code, out = run(command, workload, after=("--model-config", config))
        assert code == 0, out
        assert out["model"]["num_experts"] == 256 and out["model"]["attention"] == "mla"
        assert out["model"]["kv_bytes_per_token"] == 61 * 576 * 2


def test_an_unreadable_model_config_file_exits_2_naming_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "config.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    code, out = run("recommend", {"task": "infer", "model": "x"}, after=("--model-config", str(bad)))
    assert code == 2 and out["error"]["field"] == "model_config"


def test_recommend_json_carries_tail_latency_break_point_and_cost_per_million_tokens() -> None:
    payload = {
        "task": "infer",
        "model": "llama-3.1-8b",
        "qps": 10,
        "prompt_tokens": 1000,
        "output_tokens": 300,
        "ttft_ms_p99": "1 s",
        "itl_ms_p99": 50,
    }
    code, out = run("recommend", payload)
    assert code == 0
    option = out["recommendation"]
    for field in ("ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "break_qps"):
        assert option[field] > 0, field
    assert option["ttft_ms_p99"] <= 1000 and option["tpot_ms_p99"] <= 50
    assert option["break_qps"] >= 10
    assert option["tokens_per_s_replica_under_load"] > 0
    assert set(option["cost_per_million_output_tokens"]) == {"amount", "currency"}


def test_estimate_json_answers_for_exactly_the_requested_hardware() -> None:
    payload = {"task": "train", "params_b": 13, "method": "full", "gpu": "a100-80g-sxm", "gpu_count": 1}
    code, out = run("estimate", payload)
    assert code == 0
    assert set(out["requested"]) >= {"gpu", "count", "fits", "total_gib", "capacity_gib", "shortfall_gib"}
    assert out["requested"]["fits"] is False and out["requested"]["shortfall_gib"] > 100


def test_estimate_json_carries_tail_latency_at_the_qps_for_the_requested_hardware() -> None:
    payload = {
        "task": "infer",
        "model": "llama-3.1-8b",
        "gpu": "h100-sxm",
        "gpu_count": 1,
        "qps": 2,
        "prompt_tokens": 1000,
        "output_tokens": 300,
    }
    code, out = run("estimate", payload)
    assert code == 0
    requested = out["requested"]
    assert requested["fits"] is True
    for field in ("ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50", "tpot_ms_p99", "break_qps"):
        assert requested[field] > 0, field
    assert requested["ttft_ms_p50"] <= requested["ttft_ms_p99"]
    assert requested["tpot_ms_p50"] <= requested["tpot_ms_p99"]
    assert requested["break_qps"] > 2
