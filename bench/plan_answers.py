"""The engine's answers over a fixed set of workloads, so a speed-up can prove it changed none.

``bench.engine_bench`` and ``bench.catalog_bench`` time plans; a faster engine is only a
speed-up if every plan it returns is the same plan. This module plans each workload below
at the default catalog and at a generated catalog of 10,000 offers (``bench.catalog_bench``'s
marketplace, ``big_knowledge``), and serialises each plan as JSON with sorted keys:
byte-identical text means an identical answer. ``bench/plan_answers.json`` holds the
SHA-256 of each plan's text, recorded before the speed work of issue 41 (the digests keep
the file small and still name the plan that moved); the benches compare against it and
say MATCH or DIFFER; ``compare_speedups`` also plans each workload with the shared
break points switched off and on in the same run, which holds while the recorded digests
are re-recorded for a model change. The launch commands are left out: they are a function of the pick
(``engine.launch``) that changes on its own schedule, and every figure they read is in
the pick.

Run ``python -m bench.engine_bench --record-answers`` only when an answer is meant to
change (a knowledge or model fix), and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from gpu_advisor.engine import break_points
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

GOLDEN = Path(__file__).with_name("plan_answers.json")
BIG = 10_000

# Every bench case, plus the shapes the plan's branches turn on: latency targets (mean and
# tail), a named card, a deadline, a budget, both tasks at once, training methods, MoE.
WORKLOADS: dict[str, Workload] = {
    "13B chatbot 24x7": Workload(task="infer", params_b=13, always_on=True),
    "Llama-3.1-8B 20 QPS": Workload(task="infer", model="llama-3.1-8b", qps=20),
    "Llama-3.1-8B 20 QPS p99 TTFT": Workload(task="infer", model="llama-3.1-8b", qps=20, ttft_ms_p99=500),
    "Llama-3.1-8B 20 QPS p99 TTFT+TPOT": Workload(
        task="infer", model="llama-3.1-8b", qps=20, ttft_ms_p99=800, tpot_ms_p99=40
    ),
    "Llama-3.1-8B TTFT mean": Workload(task="infer", model="llama-3.1-8b", concurrency=16, ttft_ms_max=300),
    "70B int4 inference": Workload(task="infer", params_b=70, weight_dtype="int4"),
    "70B 5 QPS p99 TTFT": Workload(task="infer", params_b=70, qps=5, ttft_ms_p99=2000),
    "13B full fine-tune": Workload(task="train", params_b=13, method="full"),
    "13B full fine-tune 200M tokens": Workload(task="train", params_b=13, method="full", train_tokens=200e6),
    "7B LoRA on a 4090": Workload(task="train", params_b=7, method="lora", gpu="rtx4090"),
    "8B QLoRA 48 h": Workload(task="train", model="llama-3.1-8b", method="qlora", duration_hours=48),
    "13B both": Workload(task="both", params_b=13),
    "8B on two T4": Workload(task="infer", model="llama-3.1-8b", gpu="t4", gpu_count=2),
    "8B 2000 CNY budget": Workload(
        task="infer", model="llama-3.1-8b", concurrency=8, budget="2000 CNY/month"
    ),
}


def _digest(w: Workload, kb: Knowledge) -> str:
    plan = recommend(w, kb).model_dump(mode="json", exclude={"launch"})
    text = json.dumps(plan, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answers(kb: Knowledge, big: Knowledge) -> dict[str, str]:
    """The digest of every plan's JSON text, at both catalogs."""
    out = {}
    for name, w in WORKLOADS.items():
        out[name] = _digest(w, kb)
        out[f"{name} @ {BIG:,} offers"] = _digest(w, big)
    return out


def compare(kb: Knowledge, big: Knowledge) -> str:
    """``MATCH`` when today's plans are byte-identical to the recorded ones, else which differ."""
    now = answers(kb, big)
    then = json.loads(GOLDEN.read_text(encoding="utf-8"))
    differ = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
    if not differ:
        return f"MATCH ({len(now)} plans byte-identical)"
    return f"DIFFER in {len(differ)} of {len(then)} plans: {', '.join(differ)}"


def compare_speedups(kb: Knowledge, big: Knowledge) -> str:
    """``MATCH`` when the plans are byte-identical with the speed-ups off and on, in this run.

    The recorded digests move whenever a model or knowledge fix is meant to change an
    answer; this comparison does not: every plan is made with the shared break points
    off (``engine.break_points.SHARED``: each searched afresh), then on from an empty
    table (later plans reuse what earlier ones searched), then on again (every break
    point a hit), and the three must agree.
    """
    was = break_points.SHARED
    try:
        break_points.SHARED = False
        off = answers(kb, big)
        break_points.SHARED = True
        break_points.clear()
        cold = answers(kb, big)
        warm = answers(kb, big)
    finally:
        break_points.SHARED = was
    differ = sorted(k for k in off if not off[k] == cold.get(k) == warm.get(k))
    if not differ:
        return f"MATCH ({len(off)} plans byte-identical off, on from cold and on warm)"
    return f"DIFFER in {len(differ)} of {len(off)} plans: {', '.join(differ)}"


def record(kb: Knowledge, big: Knowledge) -> None:
    """Write today's digests as the golden answers (``python -m bench.engine_bench --record-answers``)."""
    GOLDEN.write_text(json.dumps(answers(kb, big), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
