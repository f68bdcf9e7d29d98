"""How much of a card's memory a job may fill: one definition, used by every answer.

``GpuSpec.usable_gib`` is what CUDA reports as the card's total (the printed size less
what the driver and ECC keep). Of that, the software that runs the job keeps a
reserve: a serving runtime claims its share and no more (vLLM's ``gpu_memory_utilization``,
0.9 by default; SGLang's ``mem_fraction_static``, which follows the card and the TP group:
``RuntimeProfile.memory_share``, ``knowledge/runtimes.yaml``); a PyTorch
training job is held to ``TRAINING_SHARE`` so the caching allocator's peaks fit. The
CUDA context and fragmentation are counted in the job's need
(``engine.memory``: ``CUDA_CONTEXT_BYTES``, ``FRAGMENTATION``), not subtracted here, so
nothing is counted twice.

Verdicts, plans, /gpu cards, /compare and charts all quote ``usable_gib`` from here: a
T4 serving with vLLM has 14.6 × 0.9 = 13.1 GiB in every answer, and 13.8 GiB for training.
"""

from __future__ import annotations

from gpu_advisor.engine.specs import GpuSpec, RuntimeProfile
from gpu_advisor.engine.units import GiB

TRAINING_SHARE = 0.95


def share(
    gpu: GpuSpec,
    runtime: RuntimeProfile | None,
    slice_gib: float | None = None,
    group: tuple[int, bool] = (1, False),
) -> float:
    """The share of the reported memory a job may fill: the serving runtime's on this card for a
    replica ``group`` of (TP GPUs, attention DP) (``RuntimeProfile.memory_share``), else training's."""
    if runtime is None:
        return TRAINING_SHARE
    return runtime.memory_share(gpu, group[0], group[1], slice_gib)


def usable_gib(
    gpu: GpuSpec,
    runtime: RuntimeProfile | None = None,
    slice_gib: float | None = None,
    group: tuple[int, bool] = (1, False),
) -> float:
    """GiB a job may fill on ``gpu`` (or a MIG slice of ``slice_gib``) under ``runtime`` (None:
    training), on each GPU of a replica ``group`` of (TP GPUs, attention DP)."""
    return (slice_gib or gpu.usable_gib) * share(gpu, runtime, slice_gib, group)


def usable_bytes(
    gpu: GpuSpec,
    runtime: RuntimeProfile | None = None,
    slice_gib: float | None = None,
    group: tuple[int, bool] = (1, False),
) -> float:
    return usable_gib(gpu, runtime, slice_gib, group) * GiB
