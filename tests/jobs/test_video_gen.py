"""Video generation: space-time tokens from the VAE's compression and the patch, memory at a
size and frame count, minutes per clip, xDiT sequence parallelism, cost per clip."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import diffusion as d
from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.jobs.video import VideoGenJob, clip_seconds, plan
from gpu_advisor.engine.specs import Knowledge


def test_wan_at_720p_and_81_frames_sees_75600_tokens(book: DiffusionBook) -> None:
    # 1 + 80/4 = 21 latent frames × (720/16) × (1280/16) patches (Wan2.1 README: VAE 4×8×8, patch 1×2×2)
    assert d.tokens(book.models["wan21-t2v-14b"], 1280, 720, 81) == 21 * 45 * 80


def test_wan21_14b_at_720p_needs_an_80_gb_class_card(book: DiffusionBook, kb: Knowledge) -> None:
    need = d.memory_gib(book, book.models["wan21-t2v-14b"], d.Run(1280, 720, 50, frames=81))
    assert kb.gpus["l40s"].usable_gib < need < kb.gpus["a100-80g-sxm"].usable_gib


def test_wan21_14b_at_720p_on_one_card_is_flagged_80_gb_or_offload(
    wide: Knowledge, book: DiffusionBook
) -> None:
    # the catalog rents the L40S, so the card is asked about as it is, not swapped for another
    p = plan(VideoGenJob(model="wan21-t2v-14b", width=1280, height=720, gpu="l40s"), wide, book)
    ids = {f.id for f in p.findings}
    assert "video_needs_80gb_or_offload" in ids and p.pick is None


def test_offload_brings_wan21_14b_under_the_48_gb_class(book: DiffusionBook) -> None:
    spec = book.models["wan21-t2v-14b"]
    assert d.memory_gib(book, spec, d.Run(1280, 720, 50, frames=81, offload="model")) < 48


def test_eight_cards_on_one_clip_divide_denoising_by_the_published_speedup(
    book: DiffusionBook, kb: Knowledge
) -> None:
    # HunyuanVideo README (xDiT USP): 1,904 s on 1 GPU, 337.6 s on 8 = 5.64×
    spec, gpu, run = book.models["hunyuanvideo"], kb.gpus["h100-sxm"], d.Run(1280, 720, 50, frames=129)
    t = d.timing(book, spec, gpu, run)
    assert clip_seconds(book, spec, gpu, run, 8) == pytest.approx(t.denoise_s / 5.64 + t.vae_s + t.offload_s)


def test_hunyuanvideo_720p_on_one_h100_takes_tens_of_minutes(book: DiffusionBook, kb: Knowledge) -> None:
    # the README's single-GPU latency: 1,904 s (31.7 minutes) at 1280x720, 129 frames, 50 steps
    s = clip_seconds(
        book, book.models["hunyuanvideo"], kb.gpus["h100-sxm"], d.Run(1280, 720, 50, frames=129), 1
    )
    assert 20 * 60 < s < 45 * 60


def test_a_clip_length_in_seconds_becomes_frames_at_the_models_rate(
    kb: Knowledge, book: DiffusionBook
) -> None:
    p = plan(VideoGenJob(model="wan21-t2v-1.3b", seconds=5, gpu="rtx4090"), kb, book)
    seconds_finding = next(f for f in p.findings if f.id == "video_seconds")
    assert seconds_finding.values["frames"] == 81  # 5 s × 16 fps + 1


def test_cost_per_clip_is_the_hourly_price_over_clips_an_hour(wide: Knowledge, book: DiffusionBook) -> None:
    p = plan(VideoGenJob(model="wan21-t2v-1.3b"), wide, book)
    assert p.pick is not None
    per_hour = next(m.value for m in p.pick.metrics if m.id == "clips_per_hour_per_machine")
    price_hour = p.pick.price_hour or 0.0
    assert p.pick.unit_costs[0].value == pytest.approx(price_hour / p.pick.machines / per_hour, rel=1e-2)


def test_a_backlog_of_clips_is_priced_as_a_job(wide: Knowledge, book: DiffusionBook) -> None:
    p = plan(VideoGenJob(model="cogvideox-5b", clips=500), wide, book)
    assert p.pick is not None and p.pick.job_hours is not None and p.pick.job_cost is not None


def test_several_cards_on_one_clip_launch_the_models_own_script_with_ulysses(
    wide: Knowledge, book: DiffusionBook
) -> None:
    p = plan(VideoGenJob(model="wan21-t2v-14b", gpus=8, gpu="h100-sxm"), wide, book)
    assert p.command is not None and p.command.startswith("torchrun --nproc_per_node=8 generate.py")
    assert "--ulysses_size 8" in p.command and "video_sequence_parallel_sublinear" in {
        f.id for f in p.findings
    }


def test_an_image_model_is_not_sized_as_a_video_job(kb: Knowledge, book: DiffusionBook) -> None:
    assert not plan(VideoGenJob(model="sdxl"), kb, book).sized
