"""Plan rules about the machine not fitting the job: wrong class of card, wrong links, starved cards.

Each check looks at the request, the pick and the user's own hardware and, when it
applies, returns a Finding carrying the numbers that make the point (seed 000's
pitfalls 1–5, seed 002's "training thinking applied to an inference purchase"). A GPU's
class is its ``role`` in ``knowledge/gpus.yaml``; the arithmetic shared with the sheet
analyser is in ``engine/rules/parts.py``. Layout: see ``engine/rules/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gpu_advisor.engine import cost
from gpu_advisor.engine.candidates import Candidate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.interconnect import tp_decode_comm_s
from gpu_advisor.engine.memory import training_memory
from gpu_advisor.engine.results import Option
from gpu_advisor.engine.rules import parts
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.search_context import Context
from gpu_advisor.engine.specs import GpuSpec
from gpu_advisor.engine.units import GiB
from gpu_advisor.engine.usable import usable_gib

PlanCheck = Callable[[Context, Candidate | None, Option | None], Finding | None]
TP_NVLINK_REFERENCE = "a100-80g-sxm"
WASTE_BELOW = 0.5  # a training machine serving under half its capacity is called waste


def requested_gpu(ctx: Context) -> GpuSpec | None:
    return ctx.kb.gpus.get(ctx.workload.gpu or "")


def inference_on_training_machine(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A multi-GPU training node serving a model that one cheaper card could serve."""
    gpu, n = requested_gpu(ctx), ctx.workload.gpu_count or 1
    if ctx.task != "infer" or gpu is None or pick is None or req is None:
        return None
    req_cost = req.monthly_cost
    requested = cost.to_currency(
        req_cost.amount, req_cost.currency, pick.monthly.currency, ctx.kb.catalog.fx_to_cny
    )
    if not (gpu.role == "training" and n >= 2) or (requested or 0.0) <= 1.5 * pick.monthly.amount:
        return None
    share = _load_share(ctx, req)
    if share >= WASTE_BELOW:  # busy enough: a cheaper pick exists, but this is no idle training machine
        return None
    return finding(
        "inference_on_training_machine",
        "high",
        gpu=gpu.name,
        gpus=n,
        requested_monthly=req.monthly_cost.amount,
        requested_monthly_currency=req.monthly_cost.currency,
        pick_monthly=round(pick.monthly.amount),
        pick_gpu=pick.gpu.name,
        pick_gpus=pick.total_gpus,
        saving_monthly=round((requested or 0.0) - pick.monthly.amount),
        utilization_pct=round(100 * share, 1),
        currency=pick.monthly.currency,
    )


def _load_share(ctx: Context, req: Option) -> float:
    """Peak load over the requested machine's capacity: the share of it the workload keeps busy.

    Capacity is the rate at which its queue breaks (``break_qps``, from the queueing model),
    else the requests/s all its replicas sustain at full batch; the load is the stated QPS,
    else the stated concurrency as a share of the streams the machine holds at once.
    """
    s = ctx.serve
    assert s is not None
    used = max(req.replicas or 1, 1) * max(req.tensor_parallel or 1, 1)
    scale = max(req.count * req.machines, used) / used  # the GPUs the layout leaves idle count too
    if s.qps:
        capacity = (req.break_qps or req.requests_per_s or 0.0) * scale
        return min(1.0, s.qps / capacity) if capacity else 1.0
    streams = max(req.replicas or 1, 1) * max(req.batch or 1, 1) * scale
    return min(1.0, s.concurrency / streams)


def training_on_inference_card(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Training asked of a card built for serving (or a GeForce) that cannot hold it."""
    gpu = requested_gpu(ctx)
    if ctx.task != "train" or gpu is None or not parts.reads_as_inference_card(gpu):
        return None
    if req is not None and req.method == (ctx.train.method if ctx.train else None):
        return None
    return finding(
        "training_on_inference_card",
        "high",
        gpu=gpu.name,
        capacity_gib=round(usable_gib(gpu), 2),
        need_gib=_need_on(ctx, gpu),
        method=ctx.train.method if ctx.train else "full",
        pick_gpu=pick.gpu.name if pick else None,
        pick_gpus=pick.total_gpus if pick else None,
    )


def _need_on(ctx: Context, gpu: GpuSpec) -> float:
    assert ctx.train is not None
    n = ctx.workload.gpu_count or 1
    setup = replace(ctx.train, gpus=n, zero_stage=0 if n == 1 else 3, weight_dtype="fp16")
    return round(training_memory(ctx.arch, setup).total / GiB, 1)


def nvlink_useless_for_inference(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """NVLink buys nothing for independent replicas — unless the model must be split (TP)."""
    if ctx.task != "infer" or pick is None:
        return None
    if pick.tensor_parallel > 1:
        return finding(
            "nvlink_needed_for_tensor_parallel",
            "warn",
            tensor_parallel=pick.tensor_parallel,
            nvlink_ms_per_token=_tp_ms(ctx, pick, "nvlink"),
            pcie_ms_per_token=_tp_ms(ctx, pick, "pcie"),
            layers=ctx.arch.layers,
        )
    gpu = requested_gpu(ctx)
    if gpu is None or gpu.nvlink_gbs == 0:
        return None
    return finding(
        "nvlink_useless_for_inference",
        "info",
        gpu=gpu.name,
        nvlink_gbs=gpu.nvlink_gbs,
        replicas=pick.replicas,
    )


def _tp_ms(ctx: Context, c: Candidate, ic: str) -> float:
    gpu = c.gpu
    if ic == "nvlink" and gpu.nvlink_gbs == 0:
        gpu = ctx.kb.gpus[TP_NVLINK_REFERENCE]
    s = tp_decode_comm_s(ctx.arch.hidden_size, ctx.arch.layers, c.batch, c.tensor_parallel, gpu, ic)  # type: ignore[arg-type]
    return round(s * 1e3, 2)


def pcie_card_sold_as_nvlink_trainer(
    ctx: Context, pick: Candidate | None, req: Option | None
) -> Finding | None:
    """Training across PCIe-only cards; twin of the sheet's ``pcie_sold_as_training_node``."""
    gpu, n = requested_gpu(ctx), ctx.workload.gpu_count or ctx.workload.gpus or 1
    card = gpu or (pick.gpu if pick else None)
    if ctx.task != "train" or n < 2 or card is None:
        return None
    if card.nvlink_gbs > 0 and (req is None or req.interconnect != "pcie"):
        return None
    gap = parts.link_gap(card, n, ctx.kb, fallback=True)
    if gap is None:
        return None
    return finding(
        "pcie_card_sold_as_nvlink_trainer",
        "high",
        gpu=card.name,
        gpus=n,
        pcie_gbs=round(gap.pcie_gbs, 1),
        nvlink_gbs=round(gap.nvlink_gbs, 1),
        efficiency=req.scaling_efficiency if req else None,
    )


def slow_network_for_multi_node(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Machines joined by an ordinary network lose most of their speed to gradient traffic."""
    if pick is None or pick.machines <= 1 or (pick.scaling_efficiency or 1.0) >= 0.7:
        return None
    return finding(
        "slow_network_for_multi_node",
        "high",
        machines=pick.machines,
        network_gbps=pick.offer.network_gbps,
        efficiency=round(pick.scaling_efficiency or 0.0, 3),
        sync_s=round(pick.extras.get("sync_s", 0.0), 2),
        compute_s=round(pick.extras.get("compute_s", 0.0), 2),
    )


def cpu_ram_storage_starve_gpus(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """Too few cores, too little RAM or no NVMe for the cards; twin of the sheet's starvation rules."""
    if ctx.task not in ("train", "both") or pick is None:
        return None
    o, n = pick.offer, pick.gpus_per_machine
    feed = parts.Feed(n, o.cpu_cores or 0, o.ram_gb or 0, ctx.kb.node_baseline)
    no_nvme = n >= ctx.kb.node_baseline.gpus and not (o.nvme_tb or 0) > 0
    if not (feed.cpu_short or feed.ram_short or no_nvme):
        return None
    addons = ctx.kb.catalog.addons
    return finding(
        "cpu_ram_storage_starve_gpus",
        "warn",
        gpus=n,
        cpu_cores=o.cpu_cores or 0,
        ram_gb=o.ram_gb or 0,
        need_cores=feed.need_cores,
        need_ram_gb=feed.need_ram_gb,
        addons=[a.id for a in addons],
        addon_monthly=sum(a.price_month for a in addons),
        currency=ctx.kb.catalog.currency,
    )


def _cards(ctx: Context, pick: Candidate | None) -> list[GpuSpec]:
    return [g for g in (pick.gpu if pick else None, requested_gpu(ctx)) if g is not None]


def consumer_card_limits(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A GeForce card in the plan; twin of the sheet's ``consumer_cards_multi_node_training``."""
    found = [v for g in _cards(ctx, pick) if (v := parts.consumer_limits(g)) is not None]
    return finding("consumer_card_limits", "info", **found[0]) if found else None


def china_variant_limits(ctx: Context, pick: Candidate | None, req: Option | None) -> Finding | None:
    """A China-market variant in the plan; twin of the sheet's ``china_variant``."""
    found = [v for g in _cards(ctx, pick) if (v := parts.china_cut(g, ctx.kb)) is not None]
    return finding("china_variant_limits", "info", **found[0]) if found else None


def _s(**workload: object) -> Scenario:
    return Scenario(workload=workload)


RULES: tuple[Rule[PlanCheck], ...] = (
    Rule(
        id="inference_on_training_machine",
        rank=20,
        check=inference_on_training_machine,
        scenarios=(_s(task="infer", params_b=7, qps=20, gpu="a100-40g-sxm", gpu_count=8, always_on=True),),
    ),
    Rule(
        id="training_on_inference_card",
        rank=30,
        check=training_on_inference_card,
        scenarios=(
            _s(task="train", params_b=13, method="full", gpu="t4", gpu_count=1),
            _s(task="train", params_b=13, method="full", gpu="l40s", gpu_count=1),
        ),
    ),
    Rule(
        id="pcie_card_sold_as_nvlink_trainer",
        rank=40,
        check=pcie_card_sold_as_nvlink_trainer,
        scenarios=(_s(task="train", params_b=13, method="full", gpu="a100-80g-pcie", gpu_count=8),),
        twin="pcie_sold_as_training_node",
    ),
    Rule(
        id="slow_network_for_multi_node",
        rank=50,
        check=slow_network_for_multi_node,
        # Pretraining keeps full training: only 4 × 8 H100 on 10 Gbit/s hold 70B (a fine-tune would go LoRA).
        scenarios=(_s(task="train", params_b=70, method="full", pretrain=True),),
    ),
    Rule(
        id="nvlink_useless_for_inference",
        rank=120,
        check=nvlink_useless_for_inference,
        emits=("nvlink_useless_for_inference", "nvlink_needed_for_tensor_parallel"),
        branches=("replicas", "tensor_parallel"),
        scenarios=(
            Scenario(branch="replicas", workload={"task": "infer", "params_b": 7, "gpu": "h20"}),
            Scenario(
                branch="tensor_parallel",
                expect="nvlink_needed_for_tensor_parallel",
                workload={
                    "task": "infer",
                    "model": "llama-3.1-70b",
                    "weight_dtype": "bf16",
                    "always_on": True,
                },
            ),
        ),
    ),
    Rule(
        id="cpu_ram_storage_starve_gpus",
        rank=150,
        check=cpu_ram_storage_starve_gpus,
        scenarios=(_s(task="train", params_b=0.5, method="qlora"),),  # lands on a MIG slice: no cores listed
        twin="ram_starves_gpus",
    ),
    Rule(
        id="consumer_card_limits",
        rank=160,
        check=consumer_card_limits,
        scenarios=(_s(task="infer", params_b=7, gpu="rtx4090"),),
        twin="consumer_cards_multi_node_training",
    ),
    Rule(
        id="china_variant_limits",
        rank=170,
        check=china_variant_limits,
        scenarios=(_s(task="infer", params_b=7, gpu="h20"),),
        twin="china_variant",
    ),
)
