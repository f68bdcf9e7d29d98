"""The serving-capacity layer against published serving measurements, fit rows beside held-out ones.

Every row of ``knowledge/serving_measurements.yaml`` is stated as the JSON contract's
``Workload`` and run through the path ``estimate`` and the recommender take
(``engine.replica.place`` → ``engine.queueing``), then compared with what was measured:

- maximum throughput (requests fed at an infinite rate): replicas × capacity × output;
  a finite burst (``num_requests`` sent at once) never runs more than that many at a time;
- a closed loop of N users (concurrency sweeps): mean TTFT, TPOT and throughput (the
  median gap between tokens where the source reports median ITL, ``tpot_is: median_itl``);
- throughput at a tail-latency target: the engine's ``break_qps`` for the target's p99
  TTFT (and its TPOT bound taken as a p99, stricter than the median a source states) × output;
- the KV pool in tokens the runtime reports at start-up;
- TTFT and TPOT at a fixed Poisson rate (``request_rate`` requests/s, vLLM and SGLang
  ``--request-rate``): the engine's p50 (and p99) from ``engine.queueing.latency`` with the
  rate shared by the replicas, against the measured median (and p99). A rate past the
  engine's capacity has no quantile: it counts as an infinite error.

A row states the scheduler limits it ran with (``max_num_seqs``, ``max_num_batched_tokens``)
where its source gives them; a TensorRT-LLM perf-overview row (``harness: trtllm-bench``)
ran with the limits that tool sizes per run (``bench/trtllm_bench.py``), not the runtime's
defaults, and is stated with those. A row run with vLLM 0.6's multi-step scheduling states
``num_scheduler_steps``: its server admitted new prompts once every that many steps.
``mem_fraction_static``: the share of the card an older SGLang claimed by default (before
v0.4.8 it followed only the TP degree).

A row with ``prefill_gpus`` ran prefill and decode on separate GPUs (SGLang PD
disaggregation, Dynamo); it is stated the same way and predicted by ``engine.disaggregation``.

It prints one line per metric and split (median |error|, share within ±25 %), and with
``--rows`` every row. When NVIDIA AIConfigurator is importable (an optional dev extra,
never a runtime requirement) its figures would go beside the engine's; the package
index reachable here does not carry it, so the column says so.

``--fit``, ``--fit-moe`` and ``--fit-ttft RUNTIME`` search a runtime's coefficients on the
``fit`` rows only (``bench/serving_fit.py``) and print them for knowledge/runtimes.yaml.

Run ``python -m bench.serving_compare [--rows] [--fit tensorrt_llm]``.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import math
import statistics
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from pydantic import ValidationError

from bench import trtllm_bench
from gpu_advisor import knowledge
from gpu_advisor.engine import disaggregation, replica
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.queueing import ReplicaShape, break_qps, capacity_qps, closed_loop, latency
from gpu_advisor.engine.specs import Knowledge, RuntimeProfile
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.workload import Workload

WITHIN = 0.25
WITHIN_AT_RATE = 0.30  # issue 29: TTFT/TPOT at a given rate within 30 % for most cases
METRICS = (
    "max_throughput",
    "closed_throughput",
    "ttft",
    "tpot",
    "ttft_at_rate",
    "tpot_at_rate",
    "ttft_at_rate_p99",
    "tpot_at_rate_p99",
)


def rows() -> list[dict[str, Any]]:
    """The measured rows, each a fresh copy: callers may annotate them."""
    return [dict(r) for r in _parsed()]


@functools.cache
def _parsed() -> tuple[dict[str, Any], ...]:
    """Parsed once a process: the tests ask for the rows once per row, and the file takes a
    second to parse with PyYAML's pure-Python loader."""
    text = resources.files("gpu_advisor.knowledge").joinpath("serving_measurements.yaml").read_text("utf-8")
    return tuple(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


@dataclass(frozen=True, slots=True)
class Predicted:
    """The engine's figures for one row: output tokens/s over all its GPUs, TTFT and TPOT (s)."""

    output_tokens_per_s: float
    ttft_s: float | None = None
    tpot_s: float | None = None
    kv_pool_tokens: float | None = None
    ttft_p99_s: float | None = None
    tpot_p99_s: float | None = None
    at_rate: bool = False  # a fixed-rate row: TTFT/TPOT are p50s from the queue (None: past capacity)


def scheduler_limits(row: dict[str, Any], kb: Knowledge) -> tuple[int | None, int | None]:
    """The run's (max_num_seqs, max_num_batched_tokens): as the source states them, else as
    ``trtllm-bench`` sized them for a row of its (``bench.trtllm_bench``), else unset.

    A finite burst (``num_requests`` sent at once, GPUStack's runs) never has more than
    that many requests running: the burst caps the batch as ``max_num_seqs`` would.
    """
    seqs, tokens = _stated_limits(row, kb)
    burst = row.get("num_requests")
    if burst is not None and row["runtime"] in kb.runtimes:
        seqs = min(seqs or kb.runtimes[row["runtime"]].max_batch, int(burst))
    return seqs, tokens


def _stated_limits(row: dict[str, Any], kb: Knowledge) -> tuple[int | None, int | None]:
    stated = row.get("max_num_seqs"), row.get("max_num_batched_tokens")
    if any(v is not None for v in stated) or row.get("harness") != "trtllm-bench":
        return stated
    if row["model"] not in kb.models or row["gpu"] not in kb.gpus:
        return None, None
    return trtllm_bench.limits(row, kb.models[row["model"]], kb.gpus[row["gpu"]]) or (None, None)


def workload(row: dict[str, Any], kb: Knowledge) -> Workload:
    """The row as the JSON contract states it: what a rental site would send ``estimate``."""
    prompt, output = int(row["prompt_tokens"]), int(row["output_tokens"])
    seqs, tokens = scheduler_limits(row, kb)
    return Workload(
        task="infer",
        model=row["model"],
        gpu=row["gpu"],
        gpu_count=int(row["gpu_count"]),
        tensor_parallel=int(row["tensor_parallel"]),
        runtime=row["runtime"],
        weight_dtype=row["weight_dtype"],
        kv_dtype=row.get("kv_dtype") or "fp16",
        prompt_tokens=prompt,
        output_tokens=output,
        context_len=prompt + output,
        concurrency=row.get("concurrency"),
        qps=row.get("request_rate"),
        attention_dp=row.get("attention_dp"),
        expert_parallel=row.get("expert_parallel"),
        prefill_gpus=row.get("prefill_gpus"),
        prefill_tensor_parallel=row.get("prefill_tensor_parallel"),
        ttft_ms_p99=row.get("ttft_p99_target_ms"),
        tpot_ms_p99=row.get("tpot_median_target_ms"),
        max_num_seqs=seqs,
        max_num_batched_tokens=tokens,
    )


def as_ran(row: dict[str, Any], rt: RuntimeProfile) -> RuntimeProfile:
    """The runtime with the settings the row's server ran with that the contract leaves to the
    runtime: vLLM 0.6's ``--num-scheduler-steps`` (``num_scheduler_steps``), and the memory
    share an older SGLang took by default (``mem_fraction_static``) where today's follows the card."""
    update: dict[str, Any] = {}
    if (steps := row.get("num_scheduler_steps")) is not None:
        update["scheduler_steps"] = int(steps)
    if (share := row.get("mem_fraction_static")) is not None:
        update.update(memory_utilization=float(share), static_reserve=None)
    return rt.model_copy(update=update) if update else rt


def predict(row: dict[str, Any], kb: Knowledge, rt: RuntimeProfile | None = None) -> Predicted | None:
    """The engine on one row, on ``estimate``'s path (``engine.replica.place``); None when inexpressible.

    ``rt`` replaces the row's runtime profile (the ``--fit`` search); the figures are the
    ones ``estimate`` returns for ``workload(row, kb)`` (tests/calibration checks they agree).
    """
    if row["gpu"] not in kb.gpus or row["model"] not in kb.models or row["runtime"] not in kb.runtimes:
        return None
    try:
        w = workload(row, kb)
    except ValidationError:
        return None
    gpu, arch = kb.gpus[row["gpu"]], kb.models[row["model"]]
    s, _ = serve_setup(w, arch)
    rt = as_ran(row, s.configured(rt or kb.runtimes[row["runtime"]], gpu))
    if w.prefill_gpus is not None:
        return _disaggregated(row, w, kb, rt)
    tp, output = int(row["tensor_parallel"]), s.output_tokens
    got = replica.place(arch, s, (gpu, rt, s.formats[0], tp), gpu.usable_gib * GiB, replica.board_link(gpu))
    if got is None:
        return None
    if "kv_pool_tokens" in row:
        return Predicted(0.0, kv_pool_tokens=got.kv_pool_tokens(arch, s, tp))
    replicas = max(1, int(row["gpu_count"]) // tp)
    if row.get("request_rate") is not None:
        return _at_rate(got.shape, float(row["request_rate"]), replicas, output)
    if "output_tokens_per_s_at_target" in row:
        return Predicted(break_qps(got.shape, s.ttft_p99_s, s.tpot_p99_s) * output * replicas)
    if s.qps is None and row.get("concurrency") is None:
        return Predicted(capacity_qps(got.shape) * output * replicas)
    loop = closed_loop(got.shape, -(-s.concurrency // replicas))
    tpot = loop.itl_p50_s if row.get("tpot_is") == "median_itl" else loop.tpot_s
    return Predicted(loop.output_tokens_per_s * replicas, loop.ttft_s, tpot)


def _at_rate(shape: ReplicaShape, rate: float, replicas: int, output: int) -> Predicted:
    """p50/p99 TTFT and TPOT when ``replicas`` copies share Poisson arrivals at ``rate`` (``estimate``'s
    ``one_group``); past a replica's capacity the queue has no quantile and the figures stay None."""
    lat = latency(shape, rate / replicas)
    if lat is None:
        return Predicted(rate * output, at_rate=True)
    ttft, tpot = (lat.ttft_p50_s, lat.ttft_p99_s), (lat.tpot_p50_s, lat.tpot_p99_s)
    return Predicted(rate * output, ttft[0], tpot[0], None, ttft[1], tpot[1], True)


def _disaggregated(row: dict[str, Any], w: Workload, kb: Knowledge, rt: RuntimeProfile) -> Predicted | None:
    """A row run with prefill and decode on separate GPUs (``prefill_gpus``): ``engine.disaggregation``."""
    gpu, arch = kb.gpus[row["gpu"]], kb.models[row["model"]]
    s, _ = serve_setup(w, arch)
    split = disaggregation.split_for(w, arch)
    assert split is not None
    got = disaggregation.place(arch, s, (gpu, rt, s.formats[0]), split, gpu.usable_gib * GiB)
    if got is None:
        return None
    if "kv_pool_tokens" in row:
        return Predicted(0.0, kv_pool_tokens=got.decode.kv_pool_tokens(arch, s, split.decode_tp))
    if s.qps is not None:
        lat = got.latency(s.qps)
        if lat is None:
            return Predicted(s.qps * s.output_tokens, at_rate=True)
        ttft, tpot = (lat.ttft_p50_s, lat.ttft_p99_s), (lat.tpot_p50_s, lat.tpot_p99_s)
        return Predicted(s.qps * s.output_tokens, ttft[0], tpot[0], None, ttft[1], tpot[1], True)
    if "output_tokens_per_s_at_target" in row:
        return Predicted(got.break_qps(s.ttft_p99_s, s.tpot_p99_s) * s.output_tokens)
    if row.get("concurrency") is None:
        return Predicted(got.max_rps() * s.output_tokens)
    ttft, tpot, rate = got.closed_loop(s.concurrency)
    return Predicted(rate * s.output_tokens, ttft, tpot)


def errors(row: dict[str, Any], got: Predicted) -> dict[str, float]:
    """Signed relative error (engine / measured − 1) per metric the row measured."""
    out: dict[str, float] = {}
    if got.kv_pool_tokens is not None:
        return {"kv_pool": got.kv_pool_tokens / row["kv_pool_tokens"] - 1.0}
    if got.at_rate:
        return _rate_errors(row, got)
    if "output_tokens_per_s_at_target" in row:
        return {"throughput_at_p99": got.output_tokens_per_s / row["output_tokens_per_s_at_target"] - 1.0}
    key = "max_throughput" if row.get("concurrency") is None else "closed_throughput"
    out[key] = got.output_tokens_per_s / row["output_tokens_per_s"] - 1.0
    if row.get("ttft_ms") and got.ttft_s is not None:
        out["ttft"] = got.ttft_s * 1e3 / row["ttft_ms"] - 1.0
    if row.get("tpot_ms") and got.tpot_s is not None:
        out["tpot"] = got.tpot_s * 1e3 / row["tpot_ms"] - 1.0
    return out


def _rate_errors(row: dict[str, Any], got: Predicted) -> dict[str, float]:
    """A fixed-rate row: p50 against the measured median, p99 against the measured p99 where given;
    a rate the engine says the hardware cannot sustain is an infinite error (no quantile exists)."""
    pairs = {
        "ttft_at_rate": (got.ttft_s, row.get("ttft_ms")),
        "tpot_at_rate": (got.tpot_s, row.get("tpot_ms")),
        "ttft_at_rate_p99": (got.ttft_p99_s, row.get("ttft_p99_ms")),
        "tpot_at_rate_p99": (got.tpot_p99_s, row.get("tpot_p99_ms")),
    }
    return {k: math.inf if s is None else s * 1e3 / ms - 1.0 for k, (s, ms) in pairs.items() if ms}


def table(kb: Knowledge) -> dict[tuple[str, str], list[float]]:
    """Signed errors grouped by (metric, split); inexpressible rows under ('inexpressible', split)."""
    groups: dict[tuple[str, str], list[float]] = {}
    for row in rows():
        got = predict(row, kb)
        if got is None:
            groups.setdefault(("inexpressible", row["split"]), []).append(1.0)
            continue
        for metric, err in errors(row, got).items():
            groups.setdefault((metric, row["split"]), []).append(err)
    return groups


def summary(errs: list[float], within: float = WITHIN) -> tuple[float, float]:
    """(median |error|, share within ±``within``, ±25 % unless told)."""
    return statistics.median(abs(e) for e in errs), sum(abs(e) <= within for e in errs) / len(errs)


def aiconfigurator_note() -> str:
    if importlib.util.find_spec("aiconfigurator") is None:
        return "AIConfigurator: not installed here (optional extra: pip install 'gpu-advisor[compare]')"
    return "AIConfigurator: importable; --aiconfigurator prints its figures beside the engine's"


# AIConfigurator's names for the cards, models and runtimes it has measured data for.
AIC_SYSTEMS = {"h100-sxm": "h100_sxm", "h200-sxm": "h200_sxm", "a100-80g-sxm": "a100_sxm", "l40s": "l40s"}
AIC_MODELS = {
    "llama-3.1-8b": "meta-llama/Meta-Llama-3.1-8B",
    "llama-3.1-70b": "meta-llama/Meta-Llama-3.1-70B",
    "llama-3.3-70b": "meta-llama/Meta-Llama-3.1-70B",
    "llama-3.1-405b": "meta-llama/Meta-Llama-3.1-405B",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-v0.1",
    "qwen3-8b": "Qwen/Qwen3-8B",
    "qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B",
}
AIC_BACKENDS = {"tensorrt_llm": "trtllm", "vllm": "vllm", "sglang": "sglang"}
AIC_BATCHES = (32, 64, 128, 256, 512, 1024)


def aiconfigurator_tokens_per_s(row: dict[str, Any], kb: Knowledge) -> float | None:
    """AIConfigurator's output tokens/s for a row (best of a batch sweep when the rate is unbounded).

    Closed-loop rows run at their concurrency; maximum-throughput rows take the best
    batch that AIConfigurator says fits in 90 % of the card. None when it lacks the
    card, model or runtime, or raises.
    """
    from aiconfigurator.cli.api import cli_estimate  # optional: python -m pip install aiconfigurator

    system, model = AIC_SYSTEMS.get(row["gpu"]), AIC_MODELS.get(row["model"])
    backend = AIC_BACKENDS.get(row["runtime"])
    if system is None or model is None or backend is None or "output_tokens_per_s" not in row:
        return None
    quant = "fp8" if row["weight_dtype"] == "fp8" else "bfloat16"
    kv = "fp8" if row.get("kv_dtype") == "fp8" else "bfloat16"
    limit = 0.9 * kb.gpus[row["gpu"]].memory_gb
    batches = (row["concurrency"],) if row.get("concurrency") else AIC_BATCHES
    best: float | None = None
    for batch in batches:
        try:
            got = cli_estimate(
                model,
                system,
                backend_name=backend,
                isl=row["prompt_tokens"],
                osl=row["output_tokens"],
                batch_size=batch,
                tp_size=row["tensor_parallel"],
                gemm_quant_mode=quant,
                kvcache_quant_mode=kv,
            )
        except Exception:  # a combination it cannot estimate is simply not covered
            continue
        if row.get("concurrency") is None and got.raw["memory"] > limit:
            continue
        tokens = float(got.raw["tokens/s"]) * (row["gpu_count"] // row["tensor_parallel"])
        best = tokens if best is None else max(best, tokens)
    return best


def print_aiconfigurator(kb: Knowledge, limit: int) -> None:
    """Engine and AIConfigurator side by side on up to ``limit`` covered rows (every k-th)."""
    covered = [
        r
        for r in rows()
        if r["gpu"] in AIC_SYSTEMS and r["model"] in AIC_MODELS and "output_tokens_per_s" in r
    ]
    step = max(1, len(covered) // limit)
    pairs: list[tuple[str, float, float]] = []
    print(f"{'split':8} {'row':62} {'engine':>8} {'AIC':>8}")
    for row in covered[::step][:limit]:
        got, aic = predict(row, kb), aiconfigurator_tokens_per_s(row, kb)
        if got is None or aic is None:
            continue
        e, a = got.output_tokens_per_s / row["output_tokens_per_s"] - 1, aic / row["output_tokens_per_s"] - 1
        pairs.append((row["split"], e, a))
        print(f"{row['split']:8} {row['id']:62} {e:+8.0%} {a:+8.0%}")
    for split in ("fit", "holdout"):
        errs = [(e, a) for sp, e, a in pairs if sp == split]
        if errs:
            (me, we), (ma, wa) = summary([e for e, _ in errs]), summary([a for _, a in errs])
            print(
                f"{split}: {len(errs)} rows, engine median {me:.1%} ({we:.0%} within ±25 %), "
                f"AIConfigurator median {ma:.1%} ({wa:.0%} within ±25 %)"
            )


def print_table(kb: Knowledge, show_rows: bool) -> None:
    if show_rows:
        for row in rows():
            got = predict(row, kb)
            errs = errors(row, got) if got else {}
            shown = " ".join(f"{k}={v:+.0%}" for k, v in errs.items()) or "inexpressible"
            print(f"{row['split']:8} {row['id']:62} {shown}")
    print(f"{'metric':18} {'split':8} {'rows':>5} {'median':>8} {'±25%':>6} {'±30%':>6}")
    for (metric, split), errs in sorted(table(kb).items()):
        if metric == "inexpressible":
            print(f"{metric:18} {split:8} {len(errs):5d}")
            continue
        (med, share), (_, share30) = summary(errs), summary(errs, WITHIN_AT_RATE)
        print(f"{metric:18} {split:8} {len(errs):5d} {med:8.1%} {share:6.0%} {share30:6.0%}")
    print(aiconfigurator_note())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", action="store_true", help="print every row's errors")
    parser.add_argument("--fit", metavar="RUNTIME", help="grid-search RUNTIME's serving coefficients")
    parser.add_argument("--fit-ttft", metavar="RUNTIME", help="search RUNTIME's per-layer prefill floor")
    parser.add_argument("--fit-moe", metavar="RUNTIME", help="grid-search RUNTIME's MoE coefficients")
    parser.add_argument(
        "--aiconfigurator", type=int, metavar="N", help="compare with AIConfigurator on N rows"
    )
    args = parser.parse_args(argv)
    kb = knowledge.load()
    if args.aiconfigurator:
        print_aiconfigurator(kb, args.aiconfigurator)
        return 0
    from bench.serving_fit import fit, fit_moe, fit_ttft  # the searches import this module's predictor

    searches = {"fit": fit, "fit_ttft": fit_ttft, "fit_moe": fit_moe}
    for flag, search in searches.items():
        if getattr(args, flag):
            search(kb, getattr(args, flag))
            return 0
    print_table(kb, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
