"""The light jobs' requests and their planners, chosen by the request's ``family``.

Speech, embeddings, vision training and inference, and video encoding each size their own
job (their modules' docstrings give the formulas); :func:`plan_job` reads a request written
as data (a CLI argument, a JSON body, a rule's scenario) into the family's model and runs
its planner. The union of every family's request lives in ``engine.jobs.request``; this is
the part of it these five families own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from gpu_advisor.engine.jobs import embedding, encoding, speech, vision
from gpu_advisor.engine.jobs.plan import JobPlan
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.specs import Knowledge

LightRequest = Annotated[
    speech.SpeechRequest
    | embedding.EmbeddingRequest
    | vision.VisionTrainRequest
    | vision.VisionInferRequest
    | encoding.EncodeRequest,
    Field(discriminator="family"),
]
_ADAPTER: TypeAdapter[LightRequest] = TypeAdapter(LightRequest)

Planner = Callable[[Any, Knowledge, JobKnowledge], JobPlan]
PLANNERS: dict[str, Planner] = {
    "speech": speech.plan,
    "embedding": embedding.plan,
    "vision_train": vision.plan_train,
    "vision_infer": vision.plan_infer,
    "video_encode": encoding.plan,
}


def parse(data: Mapping[str, Any]) -> LightRequest:
    """A request from data, validated by its family's model (pydantic names a bad field)."""
    return _ADAPTER.validate_python(dict(data))


def plan_request(req: LightRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The family's planner run on its request."""
    return PLANNERS[req.family](req, kb, jobs)


def plan_job(data: Mapping[str, Any], kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """Parse and plan in one step."""
    return plan_request(parse(data), kb, jobs)
