"""Plan rules about tail latency: a p99 target that no option reaches at any replica count.

Replicas divide the traffic, so a p99 target missed only under load is met by renting
more of them (``engine.serving_capacity``). What more replicas cannot fix is a replica
that misses the target with little traffic: a prompt whose prefill alone outlasts the
TTFT target (2 · active params · prompt tokens of compute, plus attention quadratic in
the prompt), or a decode step slower than the TPOT target (the weights streamed once
per step; the vLLM paper's memory-bound decode). Then every option misses, and the
finding names the metric, the target and the best p99 any option reached.
Layout: see ``engine/rules/__init__.py``.
"""

from __future__ import annotations

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.hardware import PlanCheck
from gpu_advisor.engine.search_context import Context


def _best(cands: list[Candidate], key: str) -> float | None:
    seen = [c.extras[key] for c in cands if key in c.extras]
    return min(seen) if seen else None


def p99_target_unreachable(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Every option misses a p99 target at the user's QPS: say which metric and by how much."""
    s = ctx.serve
    if s is None or s.qps is None or any(c.meets_latency for c in ctx.candidates):
        return None
    for metric, target in (("ttft", s.ttft_p99_s), ("tpot", s.tpot_p99_s)):
        best = _best(ctx.candidates, f"{metric}_ms_p99")
        if target is not None and best is not None and best > target * 1e3:
            return finding(
                f"p99_{metric}_unreachable",
                "high",
                target_ms=round(target * 1e3, 1),
                best_ms=round(best, 1),
                qps=s.qps,
            )
    return None


RULES: tuple[Rule[PlanCheck], ...] = (
    Rule(
        id="p99_target_unreachable",
        rank=70,
        check=p99_target_unreachable,
        emits=("p99_ttft_unreachable", "p99_tpot_unreachable"),
        branches=("ttft", "tpot"),
        scenarios=(
            # A 64k-token RAG prompt on an 8B model: its prefill alone takes seconds, not 200 ms.
            Scenario(
                branch="ttft",
                expect="p99_ttft_unreachable",
                workload={
                    "task": "infer",
                    "model": "llama-3.1-8b",
                    "qps": 1,
                    "prompt_tokens": 65536,
                    "output_tokens": 256,
                    "ttft_ms_p99": 200,
                },
                severity="high",
            ),
            # 2 ms per token on a 70B model: one decode step streams ~35-140 GB of weights.
            Scenario(
                branch="tpot",
                expect="p99_tpot_unreachable",
                workload={"task": "infer", "model": "llama-3.1-70b", "qps": 1, "tpot_ms_p99": 2},
                severity="high",
            ),
        ),
    ),
)
