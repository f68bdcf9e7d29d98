"""The light GPU jobs' knowledge: speech, embedding, vision and video-engine YAML files.

Read once, validated into ``engine.jobs.speeds.JobKnowledge`` (a wrong field is a load
error naming the file), and checked against ``gpus.yaml``: a measurement or a codec row
naming a card the project does not know is refused, so a typo cannot silently drop a row.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ValidationError

from gpu_advisor.engine.jobs.speeds import (
    CodecKnowledge,
    EmbeddingKnowledge,
    JobKnowledge,
    SpeechKnowledge,
    VisionKnowledge,
)
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.reading import KnowledgeError, first_error, yaml_load

FILES: dict[str, type[BaseModel]] = {
    "speech.yaml": SpeechKnowledge,
    "embeddings.yaml": EmbeddingKnowledge,
    "vision.yaml": VisionKnowledge,
    "video_codec.yaml": CodecKnowledge,
}


def _read(name: str, cls: type[BaseModel]) -> Any:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    try:
        return cls.model_validate(yaml_load(text))
    except ValidationError as exc:
        field, message = first_error(exc)
        raise KnowledgeError(message, file=name, field=field) from exc


@lru_cache(maxsize=1)
def load_jobs() -> JobKnowledge:
    """The four files as one validated record."""
    speech, embedding, vision, codec = (_read(name, cls) for name, cls in FILES.items())
    return JobKnowledge(speech=speech, embedding=embedding, vision=vision, codec=codec)


def unknown_cards(jobs: JobKnowledge, kb: Knowledge) -> list[str]:
    """Cards the job files name that neither ``gpus.yaml`` nor speech.yaml's own cards define."""
    known = set(kb.gpus) | {c.id for c in jobs.speech.cards}
    named = [r.gpu for r in jobs.speech.measurements + jobs.embedding.measurements + jobs.vision.measurements]
    named += [c.gpu for c in jobs.codec.cards]
    return sorted(set(named) - known)
