"""Training, inference or mixed, and what follows from it.

Rule: ``score = training_score - inference_score``, each the sum of the weights of the
signals that fired on that side (``signals.py``). ``score >= 3`` reads as training,
``score <= -3`` as inference, anything in between as mixed: a margin of 2 is one strong
sign (PCIe, 8 dense GPUs) or two weak ones, too little to call a box either way.
An empty sheet scores 0 and reads as mixed; ``SheetAnalysis.understood_fields`` tells
the two apart.

The lists per verdict come from the seeds: who should buy each kind of box and what
it is the wrong purchase for (seed 004), what each kind fears (seed 004), what to
stress-test first and second (seed 004, with seed 002's list), and what to ask the
vendor before buying (seed 002). A mixed box gets the questions and tests that decide
which job it can really do.
"""

from __future__ import annotations

from gpu_advisor.engine.sheet.models import ParsedSheet, StressTests, Verdict

MIXED_MARGIN = 2

GOOD_FOR: dict[Verdict, list[str]] = {
    "training": [
        "large_model_training",
        "enterprise_training_platform",
        "research_training",
        "private_training_cluster",
    ],
    "inference": ["private_deployment", "inference_service", "small_model_teams", "stable_api_service"],
    "mixed": ["single_node_finetune", "multi_replica_inference"],
}
BAD_FOR: dict[Verdict, list[str]] = {
    "training": ["small_inference_rental"],
    "inference": ["heavy_multi_node_training"],
    "mixed": ["heavy_multi_node_training", "cost_sensitive_inference"],
}
FEARS: dict[Verdict, list[str]] = {
    "training": ["comm_not_tuned", "long_run_instability", "data_feed_bottleneck"],
    "inference": [
        "low_unit_throughput",
        "poor_tail_latency",
        "weak_cpu_scheduling",
        "low_memory_utilization",
    ],
    "mixed": ["comm_not_tuned", "long_run_instability", "low_unit_throughput", "poor_tail_latency"],
}
STRESS_FIRST: dict[Verdict, list[str]] = {
    "training": ["gpu_burn_in", "nccl_allreduce", "multi_gpu_scaling_efficiency", "multi_node_network"],
    "inference": [
        "single_card_throughput",
        "concurrent_throughput",
        "ttft",
        "p95_p99_latency",
        "long_run_service_stability",
    ],
    "mixed": [
        "gpu_burn_in",
        "nccl_allreduce",
        "multi_gpu_scaling_efficiency",
        "single_card_throughput",
        "concurrent_throughput",
        "p95_p99_latency",
    ],
}
STRESS_SECOND: dict[Verdict, list[str]] = {
    "training": ["cpu_memory_feed", "nvme_read", "checkpoint_write"],
    "inference": ["model_load_time", "cpu_scheduling", "cache_disk"],
    "mixed": ["cpu_memory_feed", "nvme_read", "ttft", "model_load_time"],
}
QUESTIONS: dict[Verdict, list[str]] = {
    "training": [
        "interconnect_topology",
        "nccl_8gpu_results",
        "multi_node_network_spec",
        "memory_fits_target",
        "full_load_stability",
        "training_benchmarks",
    ],
    "inference": [
        "single_card_throughput",
        "ttft_p95_p99",
        "hourly_business_per_cost",
        "jitter_under_concurrency",
        "cold_start",
        "scale_out_ease",
    ],
    "mixed": [
        "interconnect_topology",
        "nccl_8gpu_results",
        "memory_fits_target",
        "single_card_throughput",
        "ttft_p95_p99",
        "hourly_business_per_cost",
    ],
}
MULTI_GPU_TESTS = frozenset({"nccl_allreduce", "multi_gpu_scaling_efficiency"})
MULTI_GPU_QUESTIONS = frozenset({"interconnect_topology", "nccl_8gpu_results"})
MIG_GOOD_FOR = "mig_slice_rental"


def decide(score: int) -> Verdict:
    if score > MIXED_MARGIN:
        return "training"
    if score < -MIXED_MARGIN:
        return "inference"
    return "mixed"


def _single_gpu(p: ParsedSheet) -> bool:
    return p.gpu_count == 1


def good_for(verdict: Verdict, mig: bool) -> list[str]:
    return [*GOOD_FOR[verdict], *([MIG_GOOD_FOR] if mig else [])]


def bad_for(verdict: Verdict) -> list[str]:
    return list(BAD_FOR[verdict])


def fears(verdict: Verdict) -> list[str]:
    return list(FEARS[verdict])


def stress_tests(verdict: Verdict, p: ParsedSheet) -> StressTests:
    """Seed 004's priorities; one-GPU boxes skip the tests that need two cards to talk."""
    drop = MULTI_GPU_TESTS if _single_gpu(p) else frozenset()
    first = [t for t in STRESS_FIRST[verdict] if t not in drop]
    second = [t for t in STRESS_SECOND[verdict] if t not in drop]
    return StressTests(first=first, second=second)


def vendor_questions(verdict: Verdict, p: ParsedSheet) -> list[str]:
    drop = MULTI_GPU_QUESTIONS if _single_gpu(p) else frozenset()
    return [q for q in QUESTIONS[verdict] if q not in drop]


def all_ids() -> dict[str, set[str]]:
    """Every id each list can hold, by locale sub-map (for tests and renderers)."""

    def union(table: dict[Verdict, list[str]]) -> set[str]:
        return {i for ids in table.values() for i in ids}

    return {
        "good_for": union(GOOD_FOR) | {MIG_GOOD_FOR},
        "bad_for": union(BAD_FOR),
        "fear": union(FEARS),
        "stress": union(STRESS_FIRST) | union(STRESS_SECOND),
        "question": union(QUESTIONS),
        "verdict": {"training", "inference", "mixed"},
    }
