"""The light jobs' knowledge files: validated at load, every number cited, fit and holdout apart."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from gpu_advisor.engine.jobs import embedding, speech, vision
from gpu_advisor.engine.jobs.speeds import JobKnowledge, SpeechKnowledge, error_summary, holdout_errors
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs, unknown_cards


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def test_every_card_the_job_files_name_is_a_known_card(jobs: JobKnowledge, kb: Knowledge) -> None:
    assert unknown_cards(jobs, kb) == []


def test_every_measurement_and_model_cites_a_web_source(jobs: JobKnowledge) -> None:
    rows = jobs.speech.measurements + jobs.embedding.measurements + jobs.vision.measurements
    sources = [r.source for r in rows] + [c.source for c in jobs.codec.cards + jobs.speech.cards]
    sources += [m.source for m in jobs.speech.models + jobs.embedding.models + jobs.vision.models]
    assert all(s.startswith("https://") for s in sources)


def test_a_measurement_of_an_undefined_model_is_refused_at_load(jobs: JobKnowledge) -> None:
    data = jobs.speech.model_dump()
    data["measurements"][0]["model"] = "whisper-xxl"
    with pytest.raises(ValidationError, match="whisper-xxl"):
        SpeechKnowledge.model_validate(data)


def test_each_family_keeps_rows_out_of_its_fit(jobs: JobKnowledge) -> None:
    for rows in (jobs.speech.measurements, jobs.embedding.measurements, jobs.vision.measurements):
        assert {r.split for r in rows} == {"fit", "holdout"}


# Floors a little below what the families reach (speech 6.3 %, embeddings 2.5 %, vision 16.2 %
# median absolute error on their holdout rows; shares within ±25 %: 100 %, 100 %, 85 %).
@pytest.mark.parametrize(
    ("family", "median_floor", "share_floor"),
    [("speech", 0.08, 1.0), ("embedding", 0.05, 1.0), ("vision", 0.20, 0.80)],
)
def test_holdout_error_of_each_family_stays_within_its_floor(
    jobs: JobKnowledge, kb: Knowledge, family: str, median_floor: float, share_floor: float
) -> None:
    rows, predict = {
        "speech": (jobs.speech.measurements, speech.predict_row),
        "embedding": (jobs.embedding.measurements, embedding.predict_row),
        "vision": (jobs.vision.measurements, vision.predict_row),
    }[family]
    median, share = error_summary(holdout_errors(rows, lambda r: predict(jobs, kb, r)))
    assert median <= median_floor and share >= share_floor
