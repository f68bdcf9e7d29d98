"""Plan rules about how a serving replica is laid out: one replica spanning several machines.

A model whose weights outgrow one 8-GPU machine is served tensor parallel inside each
machine and pipeline parallel across machines (vLLM's distributed-serving guide;
``engine/serving_search.py``). The plan then rents machines in groups, and the network
between them carries every token's activations. What it must carry, at the planned
throughput T (prompt plus generated tokens per second through one replica):

- a dense model: one bf16 hidden state per token per stage boundary, h·2 bytes;
- a MoE model: the expert all-to-all, 3·k·h bytes per MoE layer, (n−1)/n of it off the
  machine (DeepEP's FP8 dispatch and bf16 combine), because vLLM and SGLang spread a
  MoE model's experts over every GPU of the replica (expert parallelism; SGLang's
  DeepSeek-V3 multi-node recipe), so each token's experts mostly live elsewhere.

need = 2 · bytes_per_token · T · 8 / 1e9 Gbit/s (``engine.interconnect.network_gbps_needed``:
the link kept at ≤ 50 % utilisation). Layout: see ``engine/rules/__init__.py``.
"""

from __future__ import annotations

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.interconnect import (
    expert_parallel_bytes_per_token,
    network_gbps_needed,
    pipeline_bytes_per_token,
)
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.rules.hardware import PlanCheck
from gpu_advisor.engine.search_context import Context


def stages_of(pick: Candidate) -> int:
    """Machines one replica spans (its pipeline stages); 1 for a replica inside one machine."""
    return int(pick.memory.notes.get("machines_per_replica", 1))


def replica_tokens_per_s(ctx: Context, pick: Candidate) -> float:
    """Tokens one replica pushes through its stages per second: generated plus prompt tokens."""
    replicas = max(pick.replicas or 1, 1)
    prompt = ctx.serve.prompt_tokens if ctx.serve else 0
    decoded = (pick.aggregate_tokens_per_s or 0.0) / replicas
    prefilled = (pick.requests_per_s or 0.0) / replicas * prompt
    return decoded + prefilled


def bytes_per_token_between_machines(ctx: Context, stages: int) -> float:
    """The expert all-to-all for a MoE model, else the pipeline's hidden state."""
    a = ctx.arch
    if a.is_moe:
        return expert_parallel_bytes_per_token(a.moe_layers, a.experts_per_token, a.hidden_size, stages)
    return pipeline_bytes_per_token(a.hidden_size)


def multi_node_replica(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A replica spans several machines: say how many and what network they need."""
    if pick is None or pick.task != "infer" or (stages := stages_of(pick)) <= 1:
        return None
    tokens = replica_tokens_per_s(ctx, pick)
    need = network_gbps_needed(bytes_per_token_between_machines(ctx, stages), tokens)
    have = pick.offer.network_gbps or 0.0
    short = have < need
    return finding(
        "multi_node_replica_network_short" if short else "multi_node_replica",
        "high" if short else "info",
        machines=stages,
        replicas=pick.replicas or 1,
        tokens_per_s=round(tokens),
        need_gbps=round(need, 1),
        network_gbps=have,
    )


RULES: tuple[Rule[PlanCheck], ...] = (
    Rule(
        id="multi_node_replica",
        rank=60,
        check=multi_node_replica,
        emits=("multi_node_replica", "multi_node_replica_network_short"),
        branches=("network_enough", "network_short"),
        scenarios=(
            # Llama 3.1 405B in bf16 (~810 GB): 4 × 8 × A100 40 GB joined by 200 Gbit/s.
            Scenario(
                branch="network_enough",
                workload={
                    "task": "infer",
                    "model": "llama-3.1-405b",
                    "weight_dtype": "bf16",
                    "concurrency": 8,
                },
                severity="info",
            ),
            # DeepSeek-R1 in FP8 (~630 GiB) on two H100 machines with only 10 Gbit/s between them.
            Scenario(
                branch="network_short",
                expect="multi_node_replica_network_short",
                workload={"task": "infer", "model": "DeepSeek-R1", "weight_dtype": "fp8", "concurrency": 8},
                severity="high",
            ),
        ),
    ),
)
