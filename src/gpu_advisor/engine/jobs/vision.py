"""Vision and classic models: YOLO (v8, 11), ResNet-50, ViT — training time and inference speed.

Training: an image costs about 3 forward passes of work (forward + backward), so one card
trains

    images/s = efficiency × FP16 tensor TFLOPS × 10¹² / (3 × GFLOPs per image × 10⁹)

at the model's resolution (work grows with its square). The efficiency is fitted on
NVIDIA's one-GPU ResNet-50 row (``knowledge/vision.yaml``, ``fit``); an 8-GPU machine keeps
the share of linear scaling its 8-GPU row shows. Time = images × epochs ÷ images/s.

Inference: a batch takes a fixed latency floor plus its work at the runtime's efficiency,

    ms per batch = floor_ms(runtime) + batch × GFLOPs / (efficiency × TFLOPS)

both fitted per runtime (TensorRT on ultralytics' T4 rows, PyTorch AMP on NVIDIA's T4
rows). At batch 1 the floor dominates, which is why a light model gains little from a big
card (seed 003: an image service on an A100 at single-digit use, as fast on a T4).
"""

from __future__ import annotations

import statistics
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.findings import Finding
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.offers import Fit, Priced
from gpu_advisor.engine.jobs.plan import JobFamily, JobMetric, JobPlan
from gpu_advisor.engine.jobs.speeds import (
    JobKnowledge,
    Measurement,
    VisionModel,
    find_model,
    median_ratio,
)
from gpu_advisor.engine.rules import jobs as job_rules
from gpu_advisor.engine.rules.jobs import JobContext
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer
from gpu_advisor.engine.units import GiB

Runtime = Literal["tensorrt", "pytorch", "tensorrt-int8"]
TRAIN_BYTES_PER_PARAM = 16  # mixed-precision Adam: fp16 weights and grads, fp32 master, two moments
ACTIVATION_GIB = 6.0  # a batch of activations for these models at their usual batch (floor, not a fit)
# Contract bounds, far past real jobs: ImageNet-21k is 1.4e7 images, LAION-5B 5.8e9.
MAX_IMAGES = 100_000_000_000
MAX_IMAGES_PER_S = 10_000_000.0
MIN_SIDE, MAX_SIDE = 32, 8192  # CIFAR's 32 px to an 8K frame


class VisionTrainRequest(BaseModel):
    """Train ``model`` on ``images`` for ``epochs`` at ``resolution`` (the model's own by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["vision_train"] = "vision_train"
    model: str = Field("yolo11m", min_length=1, max_length=80, description="yolo11m, resnet50, vit-b16…")
    images: int = Field(ge=1, le=MAX_IMAGES, description="training images")
    epochs: int = Field(100, ge=1, le=10_000)
    resolution: int | None = Field(
        None, ge=MIN_SIDE, le=MAX_SIDE, description="input side in pixels; the model's own if absent"
    )
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


class VisionInferRequest(BaseModel):
    """Serve ``images_per_s`` at its peak, or run ``images`` once, at ``batch`` with ``runtime``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["vision_infer"] = "vision_infer"
    model: str = Field("yolo11m", min_length=1, max_length=80, description="yolo11m, resnet50, vit-b16…")
    batch: int = Field(1, ge=1, le=4096, description="images per forward pass")
    runtime: Runtime = "tensorrt"
    images_per_s: float | None = Field(
        None, gt=0, le=MAX_IMAGES_PER_S, description="the peak rate a live service must meet"
    )
    images: int | None = Field(None, ge=1, le=MAX_IMAGES, description="a batch of images to run once")
    resolution: int | None = Field(
        None, ge=MIN_SIDE, le=MAX_SIDE, description="input side in pixels; the model's own if absent"
    )
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


def _model(jobs: JobKnowledge, model_id: str) -> VisionModel:
    return next(m for m in jobs.vision.models if m.id == model_id)


def _work(model: VisionModel, resolution: int | None) -> float:
    """GFLOPs per image at ``resolution`` (work grows with the pixel count)."""
    return model.gflops * ((resolution or model.resolution) / model.resolution) ** 2


def train_efficiency(jobs: JobKnowledge, kb: Knowledge) -> float:
    rows = [r for r in jobs.vision.measurements if r.split == "fit" and r.task == "train" and r.gpus == 1]
    return median_ratio(rows, lambda r: _train_peak(kb.gpus[r.gpu], _model(jobs, r.model).gflops))


def _train_peak(card: GpuSpec, gflops: float) -> float:
    return card.dense_tflops["fp16"] * 1e12 / (3 * gflops * 1e9)


def scaling(jobs: JobKnowledge, gpus: int) -> float:
    """Share of linear speed-up ``gpus`` cards keep, from the fitted 8-GPU row (1 at one card)."""
    one = {
        r.model: r.value
        for r in jobs.vision.measurements
        if r.split == "fit" and r.task == "train" and r.gpus == 1
    }
    eight = [
        r.value / (8 * one[r.model]) for r in jobs.vision.measurements if r.split == "fit" and r.gpus == 8
    ]
    at_eight = statistics.median(eight)
    return 1.0 - (1.0 - at_eight) * (min(gpus, 8) - 1) / 7


def train_images_per_s(
    jobs: JobKnowledge, kb: Knowledge, model: VisionModel, gpu: str, gpus: int = 1, res: int | None = None
) -> float:
    """Images a machine of ``gpus`` cards trains on per second."""
    per_card = train_efficiency(jobs, kb) * _train_peak(kb.gpus[gpu], _work(model, res))
    return per_card * gpus * scaling(jobs, gpus)


def _rate_tflops(card: GpuSpec, runtime: str) -> float:
    """The tensor rate a runtime computes at: INT8 TOPS for an INT8 engine, else FP16 TFLOPS."""
    if runtime == "tensorrt-int8":
        return card.dense_tflops.get("int8", card.dense_tflops["fp16"])
    return card.dense_tflops["fp16"]


def infer_constants(jobs: JobKnowledge, kb: Knowledge, runtime: str) -> tuple[float, float]:
    """(floor ms, efficiency) of a runtime, a least-squares line through its ``fit`` rows.

    An INT8 engine measured only at MLPerf's offline batches has no floor to fit: its
    efficiency is the median ratio of its rows, its floor zero.
    """
    rows = [
        r for r in jobs.vision.measurements if r.split == "fit" and r.task == "infer" and r.runtime == runtime
    ]
    if runtime == "tensorrt-int8":
        return 0.0, median_ratio(rows, lambda r: _peak_images_per_s(jobs, kb, r.model, r.gpu, runtime))
    xs = [r.batch * _model(jobs, r.model).gflops / _rate_tflops(kb.gpus[r.gpu], runtime) for r in rows]
    ys = [r.batch * 1000 / r.value for r in rows]
    slope, floor = statistics.linear_regression(xs, ys)
    return floor, 1 / slope


def _peak_images_per_s(jobs: JobKnowledge, kb: Knowledge, model_id: str, gpu: str, runtime: str) -> float:
    return _rate_tflops(kb.gpus[gpu], runtime) * 1e12 / (_model(jobs, model_id).gflops * 1e9)


def infer_images_per_s(
    jobs: JobKnowledge,
    kb: Knowledge,
    model: VisionModel,
    gpu: str,
    batch: int,
    runtime: str,
    res: int | None = None,
    share: float = 1.0,
) -> float:
    """Images one card (or a ``share`` of it, a MIG slice) infers per second at ``batch``."""
    floor, eff = infer_constants(jobs, kb, runtime)
    ms = floor + batch * _work(model, res) / (eff * _rate_tflops(kb.gpus[gpu], runtime) * share)
    return batch * 1000 / ms


def predict_row(jobs: JobKnowledge, kb: Knowledge, row: Measurement) -> float:
    model = _model(jobs, row.model)
    if row.task == "train":
        return train_images_per_s(jobs, kb, model, row.gpu, row.gpus)
    return infer_images_per_s(jobs, kb, model, row.gpu, row.batch, row.runtime)


def plan_train(req: VisionTrainRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest machine for images × epochs, with images/s and hours."""
    model = find_model(jobs.vision.models, req.model)
    if model is None:
        return job_rules.unsized("vision_train", req, kb, jobs)
    if (no := job_rules.refused("vision_train", req, kb, jobs, model.name)) is not None:
        return no

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        need = model.params_m * 1e6 * TRAIN_BYTES_PER_PARAM / GiB + ACTIVATION_GIB
        if need > memory_gib:
            return None
        per_s = train_images_per_s(
            jobs, kb, model, card.id, offer.count, req.resolution
        ) * offers.compute_share(offer)
        return Fit(per_s * 3600, need, offer.count)

    ranked, not_rented = offers.rank_for(kb, rate, units=float(req.images * req.epochs), gpu=req.gpu)
    return _plan("vision_train", req, kb, jobs, ranked, model, train_command(model, req), not_rented)


def plan_infer(req: VisionInferRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest card for the peak images/s (or the image count), with latency and cost per image."""
    model = find_model(jobs.vision.models, req.model)
    if model is None:
        return job_rules.unsized("vision_infer", req, kb, jobs)
    if (no := job_rules.refused("vision_infer", req, kb, jobs, model.name)) is not None:
        return no

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        need = model.params_m * 1e6 * 2 / GiB + ACTIVATION_GIB / 4
        if need > memory_gib:
            return None
        per_s = infer_images_per_s(
            jobs, kb, model, card.id, req.batch, req.runtime, req.resolution, offers.compute_share(offer)
        )
        return Fit(per_s * 3600 * offer.count, need, offer.count)

    per_hour = req.images_per_s * 3600 if req.images_per_s and not req.images else None
    ranked, not_rented = offers.rank_for(kb, rate, units=req.images, per_hour=per_hour, gpu=req.gpu)
    return _plan("vision_infer", req, kb, jobs, ranked, model, infer_command(model, req), not_rented)


def _plan(
    family: JobFamily,
    req: BaseModel,
    kb: Knowledge,
    jobs: JobKnowledge,
    ranked: list[Priced],
    model: VisionModel,
    command: str,
    not_rented: list[Finding],
) -> JobPlan:
    batch = getattr(req, "batch", 1)
    options = [
        offers.option(p, _metrics(p, batch), [offers.unit_cost(p, 1e6, "per_million_images")]) for p in ranked
    ]
    ctx = JobContext(family, req, kb, jobs, ranked, model.name)
    return job_rules.light_plan(
        ctx, model.id, options, not_rented, command=command, tool=_tool(family, model)
    )


def _tool(family: JobFamily, model: VisionModel) -> str:
    """Ultralytics for YOLO; torchvision's references to train a classifier, TensorRT to serve one."""
    if model.id.startswith("yolo"):
        return "ultralytics"
    return "torchvision" if family == "vision_train" else "tensorrt"


def _metrics(p: Priced, batch: int) -> list[JobMetric]:
    per_s = p.units_per_hour / 3600
    per_card = per_s / p.machines / p.fit.cards
    return [
        JobMetric(id="images_per_s", value=round(per_s, 1), unit="images_per_s"),
        JobMetric(id="images_per_s_per_card", value=round(per_card, 1), unit="images_per_s"),
        JobMetric(id="batch_latency_ms", value=round(batch * 1000 / per_card, 2), unit="ms"),
    ]


def train_command(model: VisionModel, req: VisionTrainRequest) -> str:
    """``yolo train`` for YOLO; torchvision's reference classification script for ResNet/ViT."""
    if model.id.startswith("yolo"):
        res = req.resolution or model.resolution
        return (
            f"yolo train model={model.id}.pt data=data.yaml epochs={req.epochs} imgsz={res} "
            "batch=-1 device=0 workers=8"
        )
    arch = model.id.replace("-", "").replace("vitb16", "vit_b_16").replace("vitl16", "vit_l_16")
    return (
        f"torchrun --nproc_per_node=1 train.py --model {arch} --data-path /data/imagenet "
        f"--epochs {req.epochs} --batch-size 256 --amp --workers 8"
    )


def infer_command(model: VisionModel, req: VisionInferRequest) -> str:
    """TensorRT engine export and run: ``yolo export`` for YOLO, ``trtexec`` for ONNX classifiers."""
    res = req.resolution or model.resolution
    if model.id.startswith("yolo"):
        return (
            f"yolo export model={model.id}.pt format=engine half=True imgsz={res} batch={req.batch} && "
            f"yolo predict model={model.id}.engine source=images/ imgsz={res}"
        )
    return f"trtexec --onnx={model.id}.onnx --fp16 --shapes=input:{req.batch}x3x{res}x{res}"
