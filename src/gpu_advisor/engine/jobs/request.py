"""The JSON contract of a non-LLM job: one request type per family, told apart by ``family``,
and the one function every surface calls with it.

A request is a discriminated union (pydantic's ``Field(discriminator="family")``): the CLI's
``gpu-advisor job`` and ``POST /api/job`` validate the same JSON into the family's own model
(images a day and a resolution; clips, frames and resolution; a training set and epochs;
hours of audio; documents; streams and a codec…), and :func:`plan_job` hands it to that
family's planner. The diffusion families (image_gen, image_train, video_gen) plan from
``knowledge/diffusion.yaml``; the light ones (speech, embedding, vision_train, vision_infer,
video_encode) through ``engine.jobs.light`` from their own files. Adding a family: define
its request model and ``plan`` in ``engine/jobs/<family>.py``, add the model to
``JobRequest`` and a line to ``_PLANNERS``, and its knowledge to :class:`JobBooks` (loaded
by ``knowledge/jobs.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from gpu_advisor.engine.jobs import embedding, encoding, image, image_train, light, speech, video, vision
from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.jobs.image import ImageGenJob
from gpu_advisor.engine.jobs.image_train import ImageTrainJob
from gpu_advisor.engine.jobs.plan import JobPlan
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.jobs.video import VideoGenJob
from gpu_advisor.engine.specs import Knowledge

JobRequest = Annotated[
    ImageGenJob
    | ImageTrainJob
    | VideoGenJob
    | speech.SpeechRequest
    | embedding.EmbeddingRequest
    | vision.VisionTrainRequest
    | vision.VisionInferRequest
    | encoding.EncodeRequest,
    Field(discriminator="family"),
]
"""Every family's request; ``family`` picks the member."""

REQUEST: TypeAdapter[JobRequest] = TypeAdapter(JobRequest)


class JobBooks(BaseModel):
    """The knowledge each family sizes from, validated at load (``knowledge/jobs.py``)."""

    model_config = ConfigDict(frozen=True)

    diffusion: DiffusionBook
    light: JobKnowledge


Planner = Callable[[Any, Knowledge, JobBooks], JobPlan]

_PLANNERS: dict[str, Planner] = {
    "image_gen": lambda job, kb, books: image.plan(job, kb, books.diffusion),
    "image_train": lambda job, kb, books: image_train.plan(job, kb, books.diffusion),
    "video_gen": lambda job, kb, books: video.plan(job, kb, books.diffusion),
    **{
        family: (lambda job, kb, books: light.plan_request(job, kb, books.light)) for family in light.PLANNERS
    },
}


def families() -> list[str]:
    """The ``family`` values the contract accepts."""
    return sorted(_PLANNERS)


def parse_job(data: Any) -> JobRequest:
    """A request validated into its family's model, strictly as the Workload contract is (no
    ``0`` read as ``false``, no ``"30"`` as 30); raises pydantic's ``ValidationError``."""
    return REQUEST.validate_python(data, strict=True)


def plan_job(request: JobRequest, kb: Knowledge, books: JobBooks) -> JobPlan:
    """The family's plan for the request."""
    return _PLANNERS[request.family](request, kb, books)


def request_schema() -> dict[str, Any]:
    """The JSON Schema of the request union, for the OpenAPI document."""
    return REQUEST.json_schema(ref_template="#/components/schemas/{model}")
