"""Start the launch command of a small plan on a real GPU and see it answer (issue 46).

The engine's tests check every flag of every command against the runtime's pinned argument list
(tests/test_launch_commands.py); only a real start shows the command comes up. This script plans
a 0.5B model (Qwen2.5-0.5B-Instruct, BF16, one card, 4 running sequences, 4,096 tokens), takes the
plan's own serving command (vLLM by default; ``--runtime sglang`` or ``llama_cpp`` for the others)
and, on a CUDA machine:

1. points the command at a local copy of the weights (no hub download is possible there):
   ``--model-dir``, ``$GPU_ADVISOR_SMOKE_MODEL``, or the Hugging Face cache's snapshot of the
   repository the command names; for llama.cpp a ``.gguf`` file;
2. starts it with ``HF_HUB_OFFLINE=1`` and polls ``/health`` until it answers or ``--timeout``
   seconds pass;
3. asks ``/v1/completions`` for 8 tokens, and prints one JSON record: the command, seconds to
   come up, the HTTP status and the text.

Without a GPU, the runtime's program, or local weights it prints ``SKIP: <why>`` and exits 0 —
nothing is started. ``--tiny`` (CI, any CPU) only builds the plan, prints the command it would run
and checks that every flag is in the runtime's pinned release (knowledge/runtime_flags.yaml) and
carries the plan's numbers; it exits 1 when one is not.

Run: ``python -m bench.launch_smoke`` on the GPU machine; ``--out result.json`` keeps the record.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from gpu_advisor import knowledge
from gpu_advisor.engine.launch import LaunchSpec
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge import runtime_flags

MODEL = "qwen2.5-0.5b"
CONTEXT = 4096
SEQUENCES = 4
# The part of argv the server parses (after ``vllm serve MODEL``, ``python -m sglang.launch_server``).
ARGS_FROM = {"vllm": 3, "sglang": 3, "llama_cpp": 1}
# What each runtime is started as, to see whether this machine has it (SGLang: its module).
PROGRAM = {"vllm": "vllm", "sglang": "sglang", "llama_cpp": "llama-server"}
# nvidia-smi's card name -> the catalog's id (the plan's memory share is the card's).
CARD_IDS = {"H100": "h100-sxm", "H200": "h200-sxm", "A100": "a100-80g-sxm", "L40S": "l40s", "A10": "a10"}


def plan_command(gpu: str, runtime: str) -> LaunchSpec:
    """The plan's serving command for the small model on ``gpu`` under ``runtime``."""
    workload = {
        "task": "infer",
        "model": MODEL,
        "gpu": gpu,
        "gpu_count": 1,
        "gpu_owned": True,
        "concurrency": SEQUENCES,
        "context_len": CONTEXT,
        "weight_dtype": "bf16",
    }
    plan = recommend(Workload.model_validate(workload), knowledge.load())
    found = [s for s in plan.launch if s.role == "serve" and s.runtime == runtime]
    if not found:
        raise SystemExit(f"the plan has no {runtime} command: {[s.runtime for s in plan.launch]}")
    return found[0]


def flag_problems(spec: LaunchSpec) -> list[str]:
    """Flags the pinned release lacks, and plan numbers the command does not carry."""
    known = runtime_flags.load()[(spec.runtime, spec.release)].flags
    args = spec.argv[ARGS_FROM[spec.runtime] :]
    problems = [
        f"{spec.runtime} {spec.release} has no {a}" for a in args if a.startswith("-") and a not in known
    ]
    wanted = {
        "vllm": ("--max-model-len", "--max-num-seqs"),
        "sglang": ("--context-length", "--max-running-requests"),
    }
    for flag, value in zip(wanted.get(spec.runtime, ()), (CONTEXT, SEQUENCES), strict=False):
        if flag not in args or args[args.index(flag) + 1] != str(value):
            problems.append(f"{flag} is not {value}")
    return problems


def local_weights(spec: LaunchSpec, model_dir: str | None) -> Path | None:
    """A local copy of the weights the command names: given, or in the Hugging Face cache."""
    given = model_dir or os.environ.get("GPU_ADVISOR_SMOKE_MODEL")
    if given:
        return Path(given) if Path(given).exists() else None
    repo = str(spec.settings.get("weights", ""))
    hub = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub"
    snapshots = sorted((hub / f"models--{repo.replace('/', '--')}" / "snapshots").glob("*/config.json"))
    return snapshots[-1].parent if snapshots else None


def gpu_card() -> str | None:
    """The catalog id of this machine's first NVIDIA card, or None where there is none."""
    if shutil.which("nvidia-smi") is None:
        return None
    done = subprocess.run(
        ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    )
    name = done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout.strip() else ""
    if not name:
        return None
    return next((cid for key, cid in CARD_IDS.items() if key in name), "h100-sxm")


def installed(runtime: str) -> bool:
    if runtime == "sglang":
        return importlib.util.find_spec("sglang") is not None
    return shutil.which(PROGRAM[runtime]) is not None


def why_skipped(spec: LaunchSpec, card: str | None, weights: Path | None) -> str:
    if card is None:
        return "no NVIDIA GPU (nvidia-smi finds none); nothing was started"
    if not installed(spec.runtime):
        return f"{PROGRAM[spec.runtime]} is not installed on this machine; nothing was started"
    return f"no local weights for {spec.settings.get('weights')} (give --model-dir); nothing was started"


def _get(url: str, body: dict[str, object] | None = None, timeout: float = 5.0) -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
        return 0, str(e)


def start_and_ask(spec: LaunchSpec, weights: Path, timeout: float) -> dict[str, object]:
    """Start the command on ``weights``, wait for /health, ask for a completion, stop it."""
    argv = [str(weights) if a == spec.settings.get("weights") else a for a in spec.argv]
    port = argv[argv.index("--port") + 1]
    env = {**os.environ, **spec.env, "HF_HUB_OFFLINE": "1"}
    record: dict[str, object] = {"command": " ".join(argv), "runtime": spec.runtime, "release": spec.release}
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"launch_smoke_{spec.runtime}.log"
    with log.open("w") as out:
        server = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            started, status = time.monotonic(), 0
            while time.monotonic() - started < timeout and server.poll() is None and status != 200:
                time.sleep(2)
                status, _ = _get(f"http://127.0.0.1:{port}/health")
            record["up_s"] = round(time.monotonic() - started, 1) if status == 200 else None
            record["exit_code"] = server.poll()
            if status == 200:
                _, models = _get(f"http://127.0.0.1:{port}/v1/models")
                name = json.loads(models)["data"][0]["id"] if models.startswith("{") else str(weights)
                body = {"model": name, "prompt": "The capital of France is", "max_tokens": 8}
                code, text = _get(f"http://127.0.0.1:{port}/v1/completions", body, timeout=60)
                record["completion_status"] = code
                record["completion"] = json.loads(text)["choices"][0]["text"] if code == 200 else text[:500]
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    record["log_tail"] = log.read_text(errors="replace")[-2000:]
    record["ok"] = record.get("completion_status") == 200
    return record


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="print and check the command; start nothing")
    parser.add_argument("--runtime", default="vllm", choices=sorted(ARGS_FROM))
    parser.add_argument("--gpu", default=None, help="catalog id of the card (default: this machine's)")
    parser.add_argument("--model-dir", default=None, help="local copy of the weights (or a .gguf file)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for /health")
    parser.add_argument("--out", default=None, help="write the JSON record here too")
    args = parser.parse_args(argv)
    card = args.gpu or (None if args.tiny else gpu_card())
    spec = plan_command(card or "h100-sxm", args.runtime)
    print(spec.shell)
    problems = flag_problems(spec)
    for problem in problems:
        print(f"FLAG: {problem}")
    if problems or args.tiny:
        return 1 if problems else 0
    weights = local_weights(spec, args.model_dir)
    if card is None or weights is None or not installed(spec.runtime):
        print(f"SKIP: {why_skipped(spec, card, weights)}")
        return 0
    record = start_and_ask(spec, weights, args.timeout)
    text = json.dumps(record, ensure_ascii=False, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0 if record["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
