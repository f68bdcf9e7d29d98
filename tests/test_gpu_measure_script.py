"""bench/gpu_measure.py stays runnable without the GPU stack it measures with (issue 19).

torch, transformers and peft are not project dependencies, so these tests never import
them: they check the script compiles, that ``--help`` works when those imports are made
to fail, that its model shapes are the public models' shapes, and that its records are
rows tests/calibration can take.
"""

from __future__ import annotations

import py_compile
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench import gpu_records
from gpu_advisor.engine.model_config import arch_from_config

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "transformers", "peft")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter of this virtualenv, from the repository root."""
    return subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120, cwd=ROOT
    )


@pytest.mark.parametrize("name", ["gpu_measure.py", "gpu_records.py"])
def test_script_compiles(name: str) -> None:
    py_compile.compile(str(ROOT / "bench" / name), doraise=True)


def test_help_runs_when_torch_transformers_and_peft_cannot_be_imported() -> None:
    # sys.modules[name] = None makes `import name` raise ImportError, as if not installed.
    block = "; ".join(f"sys.modules[{name!r}] = None" for name in HEAVY)
    code = f"import runpy, sys; {block}; sys.argv = ['gpu_measure.py', '--help']; " + (
        "runpy.run_module('bench.gpu_measure', run_name='__main__')"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert "--device" in done.stdout and "--tiny" in done.stdout


def test_importing_the_script_imports_no_gpu_library() -> None:
    done = _python(
        f"import sys, bench.gpu_measure, bench.gpu_records; print([m for m in {HEAVY!r} if m in sys.modules])"
    )
    assert done.stdout.strip() == "[]", done.stderr


# Parameter counts from the model cards / config.json of the models each preset copies:
# Qwen2.5-0.5B "0.49B", Llama-3.2-1B 1.24B, Llama-3.2-3B 3.21B (Hugging Face model pages).
@pytest.mark.parametrize(("preset", "params_b"), [("0.5b", 0.49), ("1b", 1.24), ("3b", 3.21)])
def test_each_preset_has_the_parameter_count_of_the_model_it_copies(preset: str, params_b: float) -> None:
    arch = arch_from_config(gpu_records.hf_config(preset))
    assert arch.params_b == pytest.approx(params_b, abs=0.01)


def _record() -> dict[str, Any]:
    env = {"gpu_name": "NVIDIA H200", "gpu_id": "h200-sxm", "torch": "2.x", "prompt_tokens": 128}
    settings = {"method": "lora", "gradient_checkpointing": True, "seq_len": 1024}
    config = gpu_records.hf_config("1b")
    return gpu_records.record("peak_memory_gib", "1b", config, env, settings, 4, 12.5, "GiB")


def test_a_record_carries_every_field_of_a_measurements_yaml_row() -> None:
    rows = yaml.safe_load((ROOT / "tests" / "calibration" / "measurements.yaml").read_text())
    common = set.intersection(*(set(row) for row in rows)) - {"notes"}
    assert common <= set(_record())


def test_a_record_is_a_held_out_own_measurement_on_the_resolved_card() -> None:
    rec = _record()
    assert (rec["split"], rec["source"], rec["gpu"]) == ("holdout", gpu_records.SOURCE, "h200-sxm")
    assert rec["source"] == "own measurement, bench/gpu_measure.py"


def test_a_record_keeps_the_shape_so_the_engine_can_predict_it_again() -> None:
    rec = yaml.safe_load(yaml.safe_dump([_record()]))[0]
    assert arch_from_config(rec["model_config"]).params_b == pytest.approx(1.24, abs=0.01)


def test_the_card_torch_names_resolves_to_its_knowledge_record() -> None:
    assert gpu_records.card_spec("NVIDIA H200").id == "h200-sxm"
