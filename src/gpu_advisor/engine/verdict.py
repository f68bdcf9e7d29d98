"""A yes/no answer for exactly the hardware the user named: "一张 4090D 能训练 7B 吗".

The question is not "what should I rent" but "does *this* fit, and how fast is it": so
the answer is the engine's estimate (``engine.estimate``) of exactly ``count`` × ``gpu``,
once per training method (per weight format for serving), because that decides the memory:

- full fine-tune with mixed-precision AdamW keeps ~16 bytes per parameter (weights,
  gradients, fp32 master copy and two moments; ZeRO, Rajbhandari et al. 2020, §3.1);
- LoRA freezes the bf16 weights (2 bytes/parameter) and trains small adapters
  (Hu et al. 2021); QLoRA stores the frozen weights in 4-bit NF4 (~0.5 byte/parameter,
  Dettmers et al. 2023).

Speed is tokens per day at the engine's MFU for that card (PaLM, Chowdhery et al. 2022,
appendix B): tokens/day = n · peak FLOP/s · MFU · 86 400 / FLOPs per token, with
6·N FLOPs per token for a full fine-tune and 4·N when the weights are frozen (Kaplan et
al. 2020), plus attention and recomputation (``engine.training.flops_per_token``). It is
an upper bound for several cards: the gradient all-reduce is not subtracted. With a
token count the answer also says whether that many tokens fit in ``hours``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.defaults import serve_setup, serving_formats
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.rules.china_cards import card_caveats
from gpu_advisor.engine.smallest_change import smallest_changes
from gpu_advisor.engine.specs import GpuSpec, Knowledge, ModelArch
from gpu_advisor.engine.training import mfu, step_compute_s
from gpu_advisor.engine.validate import canonical
from gpu_advisor.engine.workload import Method, Workload

METHODS: tuple[Method, ...] = ("full", "lora", "qlora")
SERVING_FORMATS = ("bf16", "int8", "awq")  # 2, 1 and ~0.5 bytes per weight
CUDA_ONLY_FORMATS = frozenset({"awq", "gptq", "nf4", "mxfp4", "nvfp4"})  # kernels built on CUDA
SECONDS_PER_DAY = 86_400


class MethodVerdict(BaseModel):
    """One way of using the named cards: fits or not, by how much, and how fast."""

    model_config = ConfigDict(frozen=True)

    method: str
    fits: bool
    total_gib: float
    capacity_gib: float
    shortfall_gib: float
    tokens_per_day: float | None = None
    mfu: float | None = None
    decode_tokens_per_s: float | None = None


class HardwareVerdict(BaseModel):
    """The answer for ``count`` × ``gpu``: one row per method (one row for serving)."""

    model_config = ConfigDict(frozen=True)

    task: str
    gpu: str
    count: int
    model: str
    params_b: float
    rows: list[MethodVerdict]
    train_tokens: float | None = None
    hours_available: float | None = None
    # A serving "no": the changes on the same cards that each make it fit, cheapest first
    # (``engine.smallest_change``); empty when a row fits or no single change is enough.
    changes: list[Finding] = Field(default_factory=list)
    # What must be said of the named card wherever it is named (``rules.china_cards``): a
    # rebuilt board's warranty and driver, the Ascend stack, the H20's slow prefill.
    caveats: list[Finding] = Field(default_factory=list)

    @property
    def fastest(self) -> MethodVerdict | None:
        """The fitting row with the most tokens a day (training) or per second (serving)."""
        fitting = [r for r in self.rows if r.fits]
        return max(fitting, key=lambda r: r.tokens_per_day or r.decode_tokens_per_s or 0.0, default=None)

    @property
    def tokens_in_time(self) -> float | None:
        """Tokens the fastest fitting method trains in ``hours_available``."""
        best = self.fastest
        if best is None or not best.tokens_per_day or not self.hours_available:
            return None
        return best.tokens_per_day * self.hours_available / 24

    @property
    def on_time(self) -> bool | None:
        """Whether ``train_tokens`` fit in ``hours_available``; None when either is unknown."""
        done = self.tokens_in_time
        return None if done is None or not self.train_tokens else self.train_tokens <= done


def verdict(w: Workload, kb: Knowledge) -> HardwareVerdict:
    """Exactly ``w.gpu_count`` × ``w.gpu`` (one card if no count) judged for ``w``'s model and task."""
    if w.gpu is None:
        raise ValueError("a verdict needs the card the question names (gpu)")
    w = canonical(w, kb)
    count = w.gpu_count or w.gpus or 1
    arch = resolve(w, kb.models).arch
    if w.task == "infer":
        # A model shipped in FP8 or MXFP4 is judged in its own format first, never as AWQ
        card = kb.gpus[str(w.gpu)]  # named: checked above
        formats = (w.weight_dtype,) if w.weight_dtype else runnable(verdict_formats(arch), card)
        rows = [_serving_row(w.model_copy(update={"weight_dtype": f}), kb, count) for f in formats]
        changes = _serving_changes(w, kb, count, rows)
    else:
        rows, changes = [_training_row(w, kb, count, m) for m in METHODS], []
    return HardwareVerdict(
        task="infer" if w.task == "infer" else "train",
        gpu=w.gpu,
        count=count,
        model=arch.name,
        params_b=arch.params_b,
        rows=rows,
        train_tokens=w.train_tokens,
        hours_available=w.deadline_hours or w.duration_hours,
        changes=changes,
        caveats=_caveats(w, kb, arch),
    )


def _caveats(w: Workload, kb: Knowledge, arch: ModelArch) -> list[Finding]:
    """The named card's caveats, at the prompt the service reads (its default when unsaid)."""
    assert w.gpu is not None
    prompt = serve_setup(w, arch)[0].prompt_tokens if w.task == "infer" else None
    return card_caveats(kb.gpus[w.gpu], kb, "infer" if w.task == "infer" else "train", prompt)


def _serving_changes(w: Workload, kb: Knowledge, count: int, rows: list[MethodVerdict]) -> list[Finding]:
    """When no way fits the named cards: the changes that make the closest one fit, cheapest first."""
    if not rows or any(r.fits for r in rows):
        return []
    closest = min(rows, key=lambda r: r.shortfall_gib)
    return smallest_changes(w.model_copy(update={"weight_dtype": closest.method, "gpu_count": count}), kb)


def runnable(formats: tuple[str, ...], gpu: GpuSpec) -> tuple[str, ...]:
    """The formats the card's stack runs: an Ascend card runs no CUDA kernels, so no AWQ/GPTQ or
    bitsandbytes rows beside its caveat saying so (``rules.china_cards``, issue 47)."""
    if gpu.vendor != "huawei":
        return formats
    return tuple(f for f in formats if f not in CUDA_ONLY_FORMATS) or formats


def verdict_formats(arch: ModelArch) -> tuple[str, ...]:
    """The serving formats a verdict shows: bf16, int8 and 4-bit, or the shipped low-precision
    format and the ones below it (``engine.defaults.serving_formats``)."""
    if arch.native_dtype in ("fp32", "fp16", "bf16"):
        return SERVING_FORMATS
    return serving_formats(arch)[:3]


def _training_row(w: Workload, kb: Knowledge, count: int, method: Method) -> MethodVerdict:
    one = w.model_copy(update={"task": "train", "method": method, "gpu_count": count, "gpus": count})
    if method != "full":
        one = one.model_copy(update={"optimizer": None})
    est = estimate(one, kb)
    req = est.requested
    assert req is not None  # the workload names its card
    arch, gpu, s = resolve(one, kb.models).arch, kb.gpus[req.gpu], est.settings
    per_token_s = step_compute_s(
        arch,
        gpu,
        method,
        bool(s["gradient_checkpointing"]),
        1.0,
        str(s["weight_dtype"]),
        int(s["seq_len"] or 0),
    )
    return MethodVerdict(
        method=method,
        fits=req.fits,
        total_gib=req.total_gib,
        capacity_gib=req.capacity_gib,
        shortfall_gib=req.shortfall_gib,
        tokens_per_day=float(f"{count * SECONDS_PER_DAY / per_token_s:.3g}"),  # 3 figures, as estimated
        mfu=round(mfu(gpu, method), 3),
    )


def _serving_row(w: Workload, kb: Knowledge, count: int) -> MethodVerdict:
    est = estimate(w.model_copy(update={"gpu_count": count}), kb)
    req = est.requested
    assert req is not None
    return MethodVerdict(
        method=str(est.settings.get("weight_dtype")),
        fits=req.fits,
        total_gib=req.total_gib,
        capacity_gib=req.capacity_gib,
        shortfall_gib=req.shortfall_gib,
        decode_tokens_per_s=req.decode_tokens_per_s,
    )
