"""Vision jobs: training time for images × epochs, inference per card at a batch, light models."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import vision
from gpu_advisor.engine.jobs.speeds import JobKnowledge, find_model
from gpu_advisor.engine.jobs.vision import VisionInferRequest, VisionTrainRequest
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs
from tests.engine.jobs_helpers import catalog_of, offer


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def test_yolo_training_time_is_images_times_epochs_over_images_per_second(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    only_l4 = catalog_of(kb, offer("l4", 1500, cpu_cores=32))
    plan = vision.plan_train(VisionTrainRequest(model="yolo11m", images=118_287, epochs=100), only_l4, jobs)
    model = find_model(jobs.vision.models, "yolo11m")
    assert plan.pick is not None and model is not None
    per_s = vision.train_images_per_s(jobs, kb, model, "l4")
    assert plan.pick.job_hours == pytest.approx(118_287 * 100 / per_s / 3600, rel=0.001)


def test_resnet50_training_on_a_v100_is_within_a_quarter_of_nvidias_figure(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # DeepLearningExamples ResNet50 v1.5 (PyTorch): 1 × V100 32GB, mixed precision, 1156 img/s (held out)
    model = find_model(jobs.vision.models, "resnet50")
    assert model is not None
    assert vision.train_images_per_s(jobs, kb, model, "v100-32g-sxm") == pytest.approx(1156, rel=0.25)


def test_eight_cards_keep_the_scaling_nvidias_eight_gpu_row_shows(jobs: JobKnowledge) -> None:
    # 16,621 img/s on 8 A100s against 2,470 on one: 84 % of linear
    assert vision.scaling(jobs, 8) == pytest.approx(16621 / (8 * 2470), rel=0.001)
    assert vision.scaling(jobs, 1) == 1.0


def test_yolo_training_on_an_a100_is_flagged_as_a_waste(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = vision.plan_train(VisionTrainRequest(model="yolov8s", images=10_000, epochs=100), kb, jobs)
    assert plan.pick is not None and plan.pick.gpu == "t4"
    assert any(f.id == "light_job_on_training_card" for f in plan.findings)


def test_a_light_model_on_an_a100_outruns_eight_cpu_cores(jobs: JobKnowledge, kb: Knowledge) -> None:
    req = VisionTrainRequest(model="yolo11n", images=118_287, epochs=100, gpu="a100-40g-sxm")
    plan = vision.plan_train(req, kb, jobs)
    starved = next(f for f in plan.findings if f.id == "cpu_bound_data_loading")
    assert starved.values["cpu_cores"] == 8 and int(str(starved.values["cores_needed"])) > 8


def test_batch_one_latency_is_mostly_the_runtimes_floor(jobs: JobKnowledge, kb: Knowledge) -> None:
    # ultralytics: YOLO11n 1.5 ms on a T4 with TensorRT, YOLOv8n 0.99 ms on an A100: a card
    # with 4.8x the TFLOPS is not 4.8x faster on a light model at batch 1.
    model = find_model(jobs.vision.models, "yolo11n")
    assert model is not None
    t4 = vision.infer_images_per_s(jobs, kb, model, "t4", 1, "tensorrt")
    a100 = vision.infer_images_per_s(jobs, kb, model, "a100-40g-sxm", 1, "tensorrt")
    assert a100 / t4 < 1.5


def test_yolov8_on_an_a100_held_out_is_within_a_quarter_of_ultralytics(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # ultralytics YOLOv8 table: YOLOv8x 3.53 ms on an A100 with TensorRT = 283 img/s
    model = find_model(jobs.vision.models, "yolov8x")
    assert model is not None
    assert vision.infer_images_per_s(jobs, kb, model, "a100-80g-sxm", 1, "tensorrt") == pytest.approx(
        283.3, rel=0.25
    )


def test_a_peak_image_rate_gets_enough_machines(jobs: JobKnowledge, kb: Knowledge) -> None:
    only_t4 = catalog_of(kb, offer("t4", 900))
    model = find_model(jobs.vision.models, "yolo11m")
    assert model is not None
    per_card = vision.infer_images_per_s(jobs, kb, model, "t4", 1, "tensorrt")
    plan = vision.plan_infer(VisionInferRequest(model="yolo11m", images_per_s=1000), only_t4, jobs)
    assert plan.pick is not None and plan.pick.machines == -(-1000 // per_card)


def test_the_commands_are_yolo_train_and_a_tensorrt_export(jobs: JobKnowledge, kb: Knowledge) -> None:
    train = vision.plan_train(VisionTrainRequest(model="yolo11s", images=1000, epochs=50), kb, jobs)
    infer = vision.plan_infer(VisionInferRequest(model="yolo11s", images=1000), kb, jobs)
    assert train.command is not None and train.command.startswith("yolo train model=yolo11s.pt")
    assert "epochs=50" in train.command
    assert infer.command is not None and "format=engine" in infer.command


def test_resnet50_int8_on_an_l4_held_out_is_within_a_fifth_of_mlperf(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    # MLPerf Inference v3.1 closed, NVIDIA L4x1: 12,881.7 samples/s offline; fitted on the
    # DGX H100 row only (704,412 / 8 per GPU).
    model = find_model(jobs.vision.models, "resnet-50")
    assert model is not None
    rate = vision.infer_images_per_s(jobs, kb, model, "l4", 2048, "tensorrt-int8")
    assert rate == pytest.approx(12881.7, rel=0.20)
