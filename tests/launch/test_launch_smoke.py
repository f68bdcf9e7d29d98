"""bench/launch_smoke.py checks the command before it starts anything, and finds local weights.

The start itself needs a CUDA machine (issue 46); these are the parts that run anywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import launch_smoke
from gpu_advisor.engine.launch import LaunchSpec


@pytest.fixture(scope="module")
def vllm_command() -> LaunchSpec:
    return launch_smoke.plan_command("h100-sxm", "vllm")


def test_the_small_plans_command_passes_its_own_check(vllm_command: LaunchSpec) -> None:
    assert launch_smoke.flag_problems(vllm_command) == []


def test_a_flag_the_pinned_release_lacks_is_reported(vllm_command: LaunchSpec) -> None:
    bad = vllm_command.model_copy(update={"argv": [*vllm_command.argv, "--max-batch-size", "4"]})
    assert launch_smoke.flag_problems(bad) == ["vllm 0.11.0 has no --max-batch-size"]


def test_a_command_that_drops_the_plans_context_is_reported(vllm_command: LaunchSpec) -> None:
    argv = [a if a != "4096" else "2048" for a in vllm_command.argv]
    assert launch_smoke.flag_problems(vllm_command.model_copy(update={"argv": argv})) == [
        "--max-model-len is not 4096"
    ]


def test_weights_are_found_in_the_hugging_face_cache(
    vllm_command: LaunchSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = tmp_path / "hub" / "models--Qwen--Qwen2.5-0.5B-Instruct" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("GPU_ADVISOR_SMOKE_MODEL", raising=False)
    assert launch_smoke.local_weights(vllm_command, None) == snapshot


def test_no_local_weights_means_a_skip_not_a_download(
    vllm_command: LaunchSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("GPU_ADVISOR_SMOKE_MODEL", raising=False)
    monkeypatch.setattr(launch_smoke, "installed", lambda runtime: True)
    assert launch_smoke.local_weights(vllm_command, None) is None
    assert launch_smoke.why_skipped(vllm_command, "h100-sxm", None).startswith("no local weights for Qwen/")
