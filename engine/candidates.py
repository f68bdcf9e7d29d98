"""One evaluated way of running the workload on one catalog offer.

The searches in ``serving_search`` and ``training_search`` produce many of these on
plain floats (the hot path); only the few that reach the plan become pydantic models.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cost import Quote
from engine.memory import Memory
from engine.specs import GpuSpec, Offer


@dataclass(slots=True)
class Candidate:
    task: str
    offer: Offer
    gpu: GpuSpec
    gpus_per_machine: int
    machines: int
    memory: Memory
    capacity_bytes: float
    weight_dtype: str
    monthly: Quote
    job: Quote | None
    runtime: str | None = None
    method: str | None = None
    tensor_parallel: int = 1
    replicas: int = 1
    batch: int = 1
    zero_stage: int | None = None
    gradient_checkpointing: bool | None = None
    decode_tokens_per_s: float | None = None
    aggregate_tokens_per_s: float | None = None
    ttft_ms: float | None = None
    requests_per_s: float | None = None
    bound: str | None = None
    training_hours: float | None = None
    scaling_efficiency: float | None = None
    meets_latency: bool = True
    extras: dict[str, float] = field(default_factory=dict)

    @property
    def cost(self) -> Quote:
        """The figure the user pays for what they asked: the job if it has an end, else a month."""
        return self.job or self.monthly

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_machine * self.machines

    @property
    def headroom_bytes(self) -> float:
        return self.capacity_bytes - self.memory.total
