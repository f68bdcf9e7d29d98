"""Pitfalls: the expensive mistakes from the seed articles, checked against a plan.

The rules are declared in their families (``engine/rules/hardware.py``,
``engine/rules/serving.py``, ``engine/rules/spending.py``, ``engine/rules/china_cards.py``,
``engine/myths.py``; the layout is in
``engine/rules/__init__.py``). This module only says in which order a plan lists them:
myths first (the user's own words were wrong), then the costliest mistakes.
"""

from __future__ import annotations

from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules import (
    Rule,
    china_cards,
    deadline,
    hardware,
    myths,
    serving,
    spending,
    tail_latency,
)
from gpu_advisor.engine.rules.hardware import PlanCheck
from gpu_advisor.engine.search_context import Context

ORDER = (
    "own_hardware_is_enough",
    "inference_on_training_machine",
    "training_on_inference_card",
    "pcie_card_sold_as_nvlink_trainer",
    "slow_network_for_multi_node",
    "multi_node_replica",
    "p99_target_unreachable",
    "deadline_missed",
    "monthly_rental_for_short_job",
    "quantize_before_deploy",
    "kv_cache_dominates",
    "nvlink_useless_for_inference",
    "bandwidth_over_capacity",
    "release_training_machine",
    "cpu_ram_storage_starve_gpus",
    "consumer_card_limits",
    "china_variant_limits",
    "modified_card_caveat",
    "ascend_stack",
    "h20_prefill",
    "free_gpu_platform_limits",
    "software_stack_matters",
)


def _ordered() -> tuple[Rule[PlanCheck], ...]:
    families: tuple[Rule[PlanCheck], ...] = (
        *hardware.RULES,
        *serving.RULES,
        *spending.RULES,
        *deadline.RULES,
        *tail_latency.RULES,
        *china_cards.RULES,
    )
    by_id = {r.id: r for r in families}
    if set(by_id) != set(ORDER):
        raise ValueError(f"ORDER and the plan rule families disagree: {sorted(set(by_id) ^ set(ORDER))}")
    return tuple(by_id[i] for i in ORDER)


RULES = _ordered()


def evaluate(ctx: Context, pick: Candidate | None, requested: Option | None) -> list[Finding]:
    found = [f for rule in RULES if (f := rule.check(ctx, pick, requested)) is not None]
    return [*myths.check(ctx, pick), *found]
