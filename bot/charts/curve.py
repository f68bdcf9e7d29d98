"""Rebuild the pick's serving layout to trace its speed at every batch size.

A Plan reports one operating point (the batch the engine sized for). To draw speed
against batch we rebuild the same ``serving_search.Layout`` the engine evaluated —
same model shape, card, runtime, weight format, tensor-parallel degree, prompt and
answer lengths — and ask its ``ReplicaModel`` for ``point(b)`` at b = 1…max batch,
where max batch is how many sequences the card's free memory holds.

The exact serving setup comes from the Workload when the caller has it. Without one
it is read back from the plan's assumptions (which carry every default the engine
took) and otherwise from the engine's own defaults, so a value the user set and the
plan does not echo may make the curve approximate.
"""

from __future__ import annotations

from engine import serving_search
from engine.architecture import resolve
from engine.defaults import SERVE_CONCURRENCY, ServeSetup
from engine.defaults import serve_setup as engine_serve_setup
from engine.lengths import SERVE_CONTEXT, SERVE_OUTPUT, SERVE_PROMPT
from engine.results import ModelSummary, Option, Plan
from engine.specs import Knowledge, ModelArch
from engine.throughput import ServingPoint
from engine.validate import canonical
from engine.workload import Workload


def resolve_arch(plan: Plan, kb: Knowledge, workload: Workload | None = None) -> ModelArch:
    """The model shape the plan was computed for: from the Workload, the knowledge base, or its summary."""
    if workload is not None:
        return resolve(canonical(workload, kb), kb.models).arch
    if plan.model.id in kb.models:
        return kb.models[plan.model.id]
    return resolve(_shape_workload(plan.model), kb.models).arch


def _shape_workload(m: ModelSummary) -> Workload:
    return Workload(
        task="infer",
        params_b=m.params_b,
        layers=m.layers,
        hidden_size=m.hidden_size,
        num_heads=m.num_heads,
        num_kv_heads=m.num_kv_heads,
        head_dim=m.head_dim,
        vocab_size=m.vocab_size,
    )


def serve_setup(plan: Plan, option: Option, arch: ModelArch, workload: Workload | None) -> ServeSetup:
    """The serving settings behind ``option``: exact from the Workload, else from the plan's assumptions."""
    if workload is not None:
        return engine_serve_setup(workload, arch)[0]
    assumed = {f.id.removeprefix("assumed_"): f.values.get("value") for f in plan.assumptions}

    def number(name: str, default: int) -> int:
        value = assumed.get(name)
        return int(value) if isinstance(value, int | float) else default

    context = number("context_len", min(SERVE_CONTEXT, arch.max_context))
    prompt = number("prompt_tokens", min(SERVE_PROMPT, context // 2))
    kv = assumed.get("kv_dtype")
    return ServeSetup(
        formats=(option.weight_dtype,),
        kv_dtype=kv if isinstance(kv, str) else "fp16",
        context_len=context,
        prompt_tokens=prompt,
        output_tokens=number("output_tokens", min(SERVE_OUTPUT, max(1, context - prompt))),
        concurrency=number("concurrency", (option.batch or 1) * (option.replicas or SERVE_CONCURRENCY)),
        qps=None,
        ttft_ms_max=None,
        runtime=option.runtime,
        tensor_parallel=option.tensor_parallel,
    )


def layout_for(
    option: Option, arch: ModelArch, setup: ServeSetup, kb: Knowledge
) -> serving_search.Layout | None:
    """The engine's layout for ``option``; None if its offer, card or runtime is not in ``kb``."""
    offer = next((o for o in kb.catalog.offers if o.id == option.offer), None)
    gpu = kb.gpus.get(option.gpu)
    rt = kb.runtimes.get(option.runtime or "")
    if offer is None or gpu is None or rt is None:
        return None
    return serving_search.prepare(
        arch, setup, offer, gpu, rt, option.weight_dtype, option.tensor_parallel or 1
    )


def serving_curve(
    plan: Plan, option: Option, kb: Knowledge, arch: ModelArch | None = None, workload: Workload | None = None
) -> list[ServingPoint]:
    """Steady-state points of ``option``'s replica at batch 1…max batch (empty when it cannot be rebuilt)."""
    if option.task != "infer":
        return []
    shape = arch or resolve_arch(plan, kb, workload)
    layout = layout_for(option, shape, serve_setup(plan, option, shape, workload), kb)
    if layout is None:
        return []
    top = max(layout.bmax, option.batch or 1)
    return [layout.model.point(b) for b in range(1, top + 1)]
