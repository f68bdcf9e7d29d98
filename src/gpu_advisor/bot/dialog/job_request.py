"""A non-LLM job as the conversation holds it, and the engine request made from it.

The reading names the job (``msg.job``) and its numbers by role (``msg.job_slots``); the
model a family sizes is found here, in that family's own knowledge (its ids, names and
aliases), never in the language-model vocabulary: "Wan2.1 14B" is a video model, not a
14B chat model. :class:`HeldJob` is what a conversation keeps between turns so "换成 Flux
呢" or "每天 2 万张呢" changes one thing of the job already answered; :func:`request_of`
turns it into the JSON the engine's ``JobRequest`` union validates, so chat, CLI and API
size a job through one contract.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.cost import HOURS_PER_MONTH
from gpu_advisor.engine.jobs.plan import JobFamily
from gpu_advisor.engine.jobs.request import JobBooks
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading import job_names
from gpu_advisor.reading.job_names import pixels

FAMILIES: tuple[JobFamily, ...] = get_args(JobFamily)

_ENCODE_SIZES = {
    "480p": "480p",
    "720p": "720p",
    "1080p": "1080p",
    "1440p": "1440p",
    "2160p": "4k",
    "4k": "4k",
}
_CODECS = {"H264": "h264", "H265": "hevc", "HEVC": "hevc", "AV1": "av1"}

JobValue = int | float | str


class HeldJob(BaseModel):
    """The non-LLM job a conversation is about: its family, model and numbers by role."""

    model_config = ConfigDict(extra="ignore")

    family: JobFamily
    model: str | None = Field(None, description="the family's model id; the family's default if absent")
    slots: dict[str, JobValue] = Field(default_factory=dict, description="job_slots by role")
    gpu: str | None = None

    def updated(self, model: str | None, slots: dict[str, Any], gpu: str | None) -> HeldJob:
        """This job with what a later message changed (a model, a number, a card)."""
        merged = {**self.slots, **{k: v for k, v in slots.items() if isinstance(v, int | float | str)}}
        named = {"model": model} if model is not None else {}
        return self.model_copy(update={**named, "slots": merged, "gpu": gpu or self.gpu})


def model_in(family: JobFamily, low: str, books: JobBooks) -> str | None:
    """The family's model named in the normalised text ``low`` (the longest name wins), or None."""
    return job_names.model_in(_names(family, books), low)


SYNTHESIS_DEFAULT = "cosyvoice2-0.5b"
"""The synthesis model a speech job asks for by the task alone ("语音合成", "TTS")."""


def model_named(family: JobFamily, low: str, books: JobBooks) -> tuple[str, str] | None:
    """(model id, the span of ``low`` naming it) of the family's model the message names; a
    speech job that asks for synthesis by its name alone ("TTS 部署") is CosyVoice 2's."""
    found = job_names.named_in(_names(family, books), low)
    if (
        found is None
        and family == "speech"
        and job_names.unsized_in(family, low) is None  # "XTTS 语音合成": XTTS, said unsized
        and job_names.synthesis_in(low) is not None
    ):
        return SYNTHESIS_DEFAULT, SYNTHESIS_DEFAULT  # the reply names the model sized, not "TTS"
    return found


def knows(family: JobFamily, model_id: str | None, books: JobBooks) -> bool:
    """Whether the family has specs for the model (None: the family's default, which it has)."""
    return (
        model_id is None
        or family == "video_encode"
        or any(mid == model_id for mid, _ in _names(family, books))
    )


def model_name(family: JobFamily, model_id: str, books: JobBooks) -> str:
    """The model's name as its knowledge spells it ("sdxl" → "Stable Diffusion XL 1.0")."""
    return next((names[1] for mid, names in _names(family, books) if mid == model_id), model_id)


def _names(family: JobFamily, books: JobBooks) -> list[tuple[str, list[str]]]:
    light = books.light
    if family in ("image_gen", "image_train", "video_gen"):
        kind = "video" if family == "video_gen" else "image"
        rows = [(s.id, [s.id, s.name, *s.aliases]) for s in books.diffusion.models.values() if s.kind == kind]
        return rows
    if family == "speech":
        return [(m.id, [m.id, m.name, *m.aliases]) for m in light.speech.models]
    if family == "embedding":
        return [(m.id, [m.id, m.name, *m.aliases]) for m in light.embedding.models]
    if family in ("vision_train", "vision_infer"):
        return [(m.id, [m.id, m.name, *m.aliases]) for m in light.vision.models]
    return []


def request_of(job: HeldJob, kb: Knowledge) -> dict[str, Any]:
    """The engine request (``JobRequest`` JSON) for the held job; defaults are the engine's."""
    out: dict[str, Any] = {"family": job.family}
    if job.model is not None and job.family != "video_encode":
        out["model"] = job.model
    if job.gpu is not None and job.gpu in kb.gpus:
        out["gpu"] = job.gpu
    _FIELDS[job.family](out, job.slots)
    return {k: v for k, v in out.items() if v is not None}


Slots = dict[str, JobValue]


def _image_gen(out: dict[str, Any], s: Slots) -> None:
    _put(out, "images_per_day", s.get("images_per_day"), float)
    _put(out, "steps", s.get("steps"), int)
    out.update(pixels(s.get("resolution")))


def _image_train(out: dict[str, Any], s: Slots) -> None:
    _put(out, "images", s.get("dataset_images"), int)
    _put(out, "epochs", s.get("epochs"), int)
    _put(out, "repeats", s.get("repeats"), int)  # steps = images × repeats × epochs ÷ batch
    _put(out, "batch", s.get("batch"), int)
    side = pixels(s.get("resolution")).get("width")
    if side is not None:
        out["resolution"] = side


def _video_gen(out: dict[str, Any], s: Slots) -> None:
    _put(out, "frames", s.get("frames"), int)
    if "frames" not in out:
        _put(out, "seconds", s.get("clip_seconds"), float)
    _put(out, "steps", s.get("steps"), int)
    _put(out, "clips_per_day", s.get("clips_per_day"), float)
    out.update(pixels(s.get("resolution"), video=True))


def _speech(out: dict[str, Any], s: Slots) -> None:
    _put(out, "audio_hours", s.get("audio_hours"), float)
    _put(out, "audio_hours_per_day", s.get("audio_hours_day"), float)
    window = _number(s.get("audio_window_hours"))
    if "audio_hours_per_day" in out and window is not None and 0 < window <= 24:
        out["hours_per_day"] = window  # "每天 500 小时录音，8 小时内转完": a day's audio in 8 hours
    _put(out, "live_streams", s.get("streams"), int)
    _put(out, "text_chars", s.get("text_chars"), int)  # a text backlog: the engine reads it aloud
    _put(out, "text_words", s.get("text_words"), int)


def _embedding(out: dict[str, Any], s: Slots) -> None:
    _put(out, "documents", s.get("documents"), int)


def _vision_train(out: dict[str, Any], s: Slots) -> None:
    out["images"] = int(_number(s.get("dataset_images")) or 0) or None  # required: asked when missing
    _put(out, "epochs", s.get("epochs"), int)


def _vision_infer(out: dict[str, Any], s: Slots) -> None:
    _put(out, "images", s.get("dataset_images"), int)
    streams, fps = _number(s.get("streams")), _number(s.get("fps"))
    if streams is not None and fps is not None:  # 12 cameras at 25 fps: 300 images a second
        out["images_per_s"] = streams * fps


def _video_encode(out: dict[str, Any], s: Slots) -> None:
    codec = _CODECS.get(str(s.get("codec", "")).upper())
    if codec:
        out["codec"] = codec
    source = _CODECS.get(str(s.get("source_codec", "")).upper())
    if source:
        out["source_codec"] = source
    rate = _number(s.get("fps")) or _number(s.get("frames"))
    if rate is not None and rate <= 240:  # "60帧" of a stream is its frame rate
        out["fps"] = rate
    size = _ENCODE_SIZES.get(str(s.get("resolution", "")).lower())
    if size:
        out["resolution"] = size
    _put(out, "streams", s.get("streams"), int)
    if "streams" not in out:  # hours of video a month or a day: streams running at real time
        month, day = _number(s.get("video_hours_month")), _number(s.get("video_hours_day"))
        per_hour = month / HOURS_PER_MONTH if month else day / 24 if day else None
        if per_hour:
            out["streams"] = max(1, math.ceil(per_hour - 1e-9))


_FIELDS: dict[JobFamily, Callable[[dict[str, Any], Slots], None]] = {
    "image_gen": _image_gen,
    "image_train": _image_train,
    "video_gen": _video_gen,
    "speech": _speech,
    "embedding": _embedding,
    "vision_train": _vision_train,
    "vision_infer": _vision_infer,
    "video_encode": _video_encode,
}
"""Each family's request fields from the job's numbers by role (``msg.job_slots``' names)."""


def _put(out: dict[str, Any], key: str, value: object, kind: type[int] | type[float]) -> None:
    number = _number(value)
    if number is not None and number > 0:
        out[key] = kind(number)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
