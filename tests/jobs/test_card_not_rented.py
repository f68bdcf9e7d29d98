"""A job that names a card the catalog does not rent ("SDXL on a 4090" with no 4090 for sale).

The named card's own figures stay in the reasoning, and the nearest card the catalog rents
that does the job is priced, with a finding that names both cards.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor import locales
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.plan import JobPlan
from gpu_advisor.engine.jobs.request import parse_job, plan_job
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.jobs import books
from tests.engine.jobs_helpers import catalog_of, offer


@pytest.fixture(scope="module")
def no_4090(kb: Knowledge) -> Knowledge:
    """Consumer, inference and 80 GB cards for sale, but no RTX 4090."""
    return catalog_of(
        kb,
        offer("rtx3090", 1750),
        offer("l4", 1500),
        offer("l40s", 5000),
        offer("a100-80g-sxm", 6000),
        offer("h100-sxm", 12000),
    )


def plan(kb: Knowledge, **body: Any) -> JobPlan:
    return plan_job(parse_job(body), kb, books())


def ids(p: JobPlan) -> list[str]:
    return [f.id for f in p.findings]


def test_the_nearest_card_is_the_one_most_like_the_named_one(kb: Knowledge) -> None:
    # RTX 4090: 165 FP16 TFLOPS, 24 GB, 1,008 GB/s. The 3090 (71, 24, 936) is nearer than
    # the L40S (362, 48, 864) or the L4 (121, 24, 300): the sum of |log ratio| is 0.9 against ~1.6.
    cards = [kb.gpus[g] for g in ("l4", "l40s", "rtx3090", "a100-80g-sxm")]
    assert offers.nearest(kb.gpus["rtx4090"], cards).id == "rtx3090"


def test_sdxl_on_an_unrented_4090_prices_the_nearest_card_that_runs_it(no_4090: Knowledge) -> None:
    p = plan(no_4090, family="image_gen", model="sdxl", gpu="rtx4090", images_per_day=10_000)
    assert p.pick is not None and p.pick.gpu == "rtx3090"
    said = next(f for f in p.findings if f.id == "job_card_not_rented")
    assert said.values == {"gpu": "NVIDIA GeForce RTX 4090", "nearest": "NVIDIA GeForce RTX 3090"}


def test_the_named_cards_own_seconds_per_image_stay_in_the_reasoning(no_4090: Knowledge) -> None:
    p = plan(no_4090, family="image_gen", model="sdxl", gpu="rtx4090")
    seconds = next(f for f in p.findings if f.id == "image_seconds")
    assert seconds.values["gpu"] == "NVIDIA GeForce RTX 4090"


def test_the_other_cards_that_run_the_job_stay_as_alternatives(no_4090: Knowledge) -> None:
    p = plan(no_4090, family="image_gen", model="sdxl", gpu="rtx4090")
    assert {a.gpu for a in p.alternatives} - {"rtx3090"}


@pytest.mark.parametrize(
    "body",
    [
        {"family": "speech", "audio_hours": 1000, "gpu": "rtx4090"},
        {"family": "embedding", "documents": 1_000_000, "gpu": "rtx4090"},
        {"family": "vision_train", "images": 10_000, "gpu": "rtx4090"},
        {"family": "vision_infer", "images_per_s": 100.0, "gpu": "rtx4090"},
        {"family": "video_encode", "streams": 20, "gpu": "rtx4090"},
        {"family": "image_train", "model": "sdxl", "gpu": "rtx4090"},
        {"family": "video_gen", "model": "wan21-t2v-1.3b", "gpu": "rtx4090"},
    ],
)
def test_every_family_prices_a_stand_in_for_an_unrented_card(
    no_4090: Knowledge, body: dict[str, Any]
) -> None:
    p = plan(no_4090, **body)
    assert p.pick is not None and p.pick.gpu != "rtx4090"
    assert "job_card_not_rented" in ids(p)


def test_a_rented_card_is_ranked_alone_without_the_finding(no_4090: Knowledge) -> None:
    p = plan(no_4090, family="image_gen", model="sdxl", gpu="l4")
    assert p.pick is not None and p.pick.gpu == "l4" and p.alternatives == []
    assert "job_card_not_rented" not in ids(p)


def test_a_rented_card_the_job_does_not_fit_is_not_swapped_for_another(kb: Knowledge) -> None:
    # the card is for sale, it simply cannot hold the job: that is the answer, not a stand-in
    only_t4 = catalog_of(kb, offer("t4", 800), offer("h100-sxm", 12000))
    p = plan(only_t4, family="video_gen", model="wan21-t2v-14b", gpu="t4")
    assert p.pick is None and "job_card_not_rented" not in ids(p)


def test_when_no_rented_card_runs_the_job_it_says_so(kb: Knowledge) -> None:
    only_t4 = catalog_of(kb, offer("t4", 800))
    p = plan(only_t4, family="video_gen", model="wan21-t2v-14b", gpu="h100-sxm")
    said = next(f for f in p.findings if f.id == "job_card_not_rented")
    assert p.pick is None and said.values["nearest"] is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_finding_reads_in_both_languages(no_4090: Knowledge, lang: str) -> None:
    p = plan(no_4090, family="speech", audio_hours=1000, gpu="rtx4090")
    said = next(f for f in p.findings if f.id == "job_card_not_rented")
    text = locales.render_finding(lang, said.id, said.values)
    assert "RTX 4090" in text and "RTX 3090" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_nothing_to_price_wording_reads_in_both_languages(kb: Knowledge, lang: str) -> None:
    p = plan(catalog_of(kb, offer("t4", 800)), family="video_gen", model="wan21-t2v-14b", gpu="h100-sxm")
    said = next(f for f in p.findings if f.id == "job_card_not_rented")
    text = locales.render_finding(lang, said.id, said.values)
    assert "H100" in text and "?" not in text
