"""Image fine-tuning: steps from the data set, memory of the frozen base and the adapter,
which cards it trains on, hours and cost."""

from __future__ import annotations

from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.jobs.image_train import ImageTrainJob, memory_gib, plan, steps, trains_on
from gpu_advisor.engine.specs import Knowledge


def test_steps_are_images_times_repeats_over_batch_times_epochs() -> None:
    # kohya: 30 images in a "10_name" folder, batch 2, 8 epochs → 150 steps an epoch
    assert steps(ImageTrainJob(images=30, repeats=10, batch=2, epochs=8)) == 1200


def test_a_flux_lora_with_a_bf16_base_does_not_fit_24_gb_but_an_fp8_base_does(
    book: DiffusionBook, kb: Knowledge
) -> None:
    flux, card = book.models["flux1-dev"], kb.gpus["rtx4090"].usable_gib
    job = ImageTrainJob(model="flux1-dev")
    assert memory_gib(flux, job, 1024, "bf16") > card > memory_gib(flux, job, 1024, "fp8")


def test_an_sdxl_lora_fits_a_consumer_card_and_a_full_fine_tune_does_not(
    book: DiffusionBook, kb: Knowledge
) -> None:
    sdxl, card = book.models["sdxl"], kb.gpus["rtx4090"].usable_gib
    lora = memory_gib(sdxl, ImageTrainJob(method="lora"), 1024, "fp16")
    full = memory_gib(sdxl, ImageTrainJob(method="full", optimizer="adamw"), 1024, "fp16")
    assert lora < card < full


def test_a_bf16_model_does_not_train_on_a_card_without_bf16(book: DiffusionBook, kb: Knowledge) -> None:
    assert not trains_on(book.models["flux1-dev"], kb.gpus["t4"]) and trains_on(
        book.models["sd15"], kb.gpus["t4"]
    )


def test_a_training_run_is_priced_for_its_hours(wide: Knowledge, book: DiffusionBook) -> None:
    p = plan(ImageTrainJob(model="sdxl", images=40, repeats=10, epochs=10), wide, book)
    assert p.pick is not None and p.pick.job_hours is not None and p.pick.job_hours > 0
    assert next(m.value for m in p.pick.metrics if m.id == "steps") == 4000


def test_dreambooth_doubles_the_samples_of_each_step(wide: Knowledge, book: DiffusionBook) -> None:
    lora = plan(ImageTrainJob(model="sd15", gpu="rtx4090"), wide, book).pick
    dreambooth = plan(ImageTrainJob(model="sd15", method="dreambooth", gpu="rtx4090"), wide, book).pick
    assert lora is not None and dreambooth is not None
    assert (dreambooth.job_hours or 0) > 2 * (lora.job_hours or 0)


def test_the_kohya_command_runs_the_models_network_trainer(kb: Knowledge, book: DiffusionBook) -> None:
    p = plan(ImageTrainJob(model="sdxl"), kb, book)
    assert (
        p.command
        == "accelerate launch --mixed_precision bf16 sdxl_train_network.py --config_file config.toml"
    )


def test_an_unknown_model_is_refused(kb: Knowledge, book: DiffusionBook) -> None:
    assert not plan(ImageTrainJob(model="qwen2.5-7b"), kb, book).sized
