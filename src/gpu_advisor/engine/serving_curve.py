"""Decode speed against batch size for a serving option: the curve behind its one operating point.

A serving option reports the batch the engine sized it for. Around that point each
decode step streams the weights once for every sequence in flight, so per-stream
speed falls slowly while the replica's total climbs, until the KV-cache reads or the
compute ceiling take over (the model in ``engine.throughput``, after the vLLM paper's
memory-bound decode, Kwon et al. 2023). The curve is that ``ReplicaModel`` evaluated
for the same layout the search chose — same card, runtime, weight format, tensor and
pipeline parallelism, prompt and answer lengths — at batch 1 up to the largest batch the card's
free memory holds (``Layout.bmax``), so a chart never has to rebuild the engine's setup.
"""

from __future__ import annotations

from gpu_advisor.engine import serving_search
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.defaults import ServeSetup
from gpu_advisor.engine.results import CurvePoint
from gpu_advisor.engine.specs import Knowledge, ModelArch

DENSE_UP_TO = 16  # every batch up to here: where per-stream speed bends most
SPACED_POINTS = 32  # evenly spaced above it: enough for a smooth line on a phone-sized chart


def sample_batches(top: int, planned: int) -> list[int]:
    """Every batch up to 16, then 32 evenly spaced up to ``top``, and always the planned one."""
    dense = range(1, min(top, DENSE_UP_TO) + 1)
    spaced = (round(DENSE_UP_TO + (top - DENSE_UP_TO) * i / SPACED_POINTS) for i in range(SPACED_POINTS + 1))
    return sorted({*dense, *(b for b in spaced if DENSE_UP_TO < b <= top), planned, top})


def serving_curve(arch: ModelArch, setup: ServeSetup, pick: Candidate, kb: Knowledge) -> list[CurvePoint]:
    """One replica's steady-state speeds at sampled batches; empty for training or an unknown runtime."""
    shipped = kb.runtimes.get(pick.runtime or "")
    if pick.task != "infer" or shipped is None:
        return []
    rt = setup.configured(shipped, pick.gpu)  # the limits the search sized the pick with
    pp = int(pick.memory.notes.get("machines_per_replica", 1))  # pipeline stages of one replica
    layout = serving_search.prepare(
        arch, setup, pick.offer, pick.gpu, rt, pick.weight_dtype, pick.tensor_parallel, pp
    )
    if layout is None:
        return []
    points = (layout.model.point(b) for b in sample_batches(max(layout.bmax, pick.batch), pick.batch))
    return [
        CurvePoint(
            batch=p.batch,
            tokens_per_s_per_stream=round(p.tokens_per_s_per_seq, 1),
            tokens_per_s_replica=round(p.tokens_per_s, 1),
        )
        for p in points
    ]
