"""Measured speeds of the light GPU jobs, their model specs, and the one fitting rule they share.

Why one module: speech, embeddings, vision and video engines each keep a small table of
published measurements (faster-whisper's README, NVIDIA's TensorRT and DeepLearningExamples
READMEs, ultralytics' tables, NVIDIA's codec support matrix) in ``knowledge/*.yaml``. They
are validated here at load (pydantic) and every family fits its few constants the same way:

- rows are split into ``fit`` and ``holdout`` in the YAML, before any fitting;
- a constant is fitted on the ``fit`` rows only (:func:`median_ratio`: the median of
  measured ÷ predicted-at-1, robust to one odd row);
- :func:`holdout_errors` reports the signed relative error of the prediction on every
  ``holdout`` row, so a family's error is a number a test holds, not a claim.

Pure: records and arithmetic, no I/O (``knowledge.job_speeds`` reads the files).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

Split = Literal["fit", "holdout"]


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SpeechModel(_Row):
    """A speech model: ``relative_speed`` is openai/whisper's (large = 1) where it applies;
    ``task`` tells recognition (audio in, text out) from synthesis (text in, audio out), whose
    speeds are audio seconds made per second and whose replies never say "transcribe"."""

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    params_m: PositiveFloat
    vram_gb: PositiveFloat
    relative_speed: PositiveFloat | None = None
    task: Literal["recognition", "synthesis"] = "recognition"
    runtime: str | None = Field(None, description="the runtime sized when none is asked (synthesis)")
    source: str = Field(min_length=8)


class MeasuredCard(_Row):
    """A card a published row ran on that ``gpus.yaml`` lacks; only its bandwidth is used."""

    id: str
    name: str
    bandwidth_gbs: PositiveFloat
    source: str = Field(min_length=8)


class Measurement(_Row):
    """One published speed: ``value`` in the family's unit (audio s/s, tokens/s, images/s)."""

    id: str
    model: str
    gpu: str
    runtime: str
    value: PositiveFloat
    split: Split
    source: str = Field(min_length=8)
    precision: str = "fp16"
    task: Literal["train", "infer"] = "infer"
    batch: PositiveInt = 1
    gpus: PositiveInt = 1
    seq_len: PositiveInt | None = None


class SpeakingRate(_Row):
    """How fast text is read aloud: a backlog of text to synthesise becomes hours of audio."""

    unit: Literal["chars", "words"]
    per_minute: PositiveFloat
    language: str
    source: str = Field(min_length=8)


class SpeechKnowledge(_Row):
    models: list[SpeechModel]
    cards: list[MeasuredCard] = Field(default_factory=list)
    speaking_rates: list[SpeakingRate] = Field(default_factory=list)
    measurements: list[Measurement]

    def per_minute(self, unit: str) -> float | None:
        """Characters (Chinese) or words (English) read aloud a minute; None where not known."""
        return next((r.per_minute for r in self.speaking_rates if r.unit == unit), None)

    @model_validator(mode="after")
    def _check(self) -> SpeechKnowledge:
        _rows_name_models(self.measurements, {m.id for m in self.models})
        return self


class EmbeddingModel(_Row):
    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    params_m: PositiveFloat
    max_tokens: PositiveInt
    kind: Literal["embedding", "reranker"]
    source: str = Field(min_length=8)


class EmbeddingKnowledge(_Row):
    models: list[EmbeddingModel]
    measurements: list[Measurement]

    @model_validator(mode="after")
    def _check(self) -> EmbeddingKnowledge:
        _rows_name_models(self.measurements, {m.id for m in self.models})
        return self


class VisionModel(_Row):
    """``gflops``: forward FLOPs per image at ``resolution`` (2 × multiply-adds)."""

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    params_m: PositiveFloat
    gflops: PositiveFloat
    resolution: PositiveInt
    source: str = Field(min_length=8)


class VisionKnowledge(_Row):
    models: list[VisionModel]
    cpu_images_per_core: PositiveFloat
    cpu_images_per_core_source: str = Field(min_length=8)
    measurements: list[Measurement]

    @model_validator(mode="after")
    def _check(self) -> VisionKnowledge:
        _rows_name_models(self.measurements, {m.id for m in self.models})
        return self


class CodecCard(_Row):
    """A card's hardware video engines, from NVIDIA's support matrix."""

    gpu: str
    nvenc: int = Field(ge=0)
    nvdec: int = Field(ge=0)
    av1_encode: bool
    geforce: bool
    source: str = Field(min_length=8)


class EngineFps(_Row):
    """One NVENC engine's published encode rate at 1080p (NVENC Application Note, section 4)."""

    arch: str
    codec: Literal["h264", "hevc", "av1"]
    preset: int = Field(ge=1, le=7)
    tuning: Literal["hq", "ll"]
    fps: PositiveFloat
    split: Split
    source: str = Field(min_length=8)


class DecodeFps(_Row):
    """One NVDEC engine's published 1080p decode rate (NVDEC Application Note, section 3)."""

    arch: str
    codec: Literal["h264", "hevc", "av1"]
    fps: PositiveFloat
    source: str = Field(min_length=8)


class CodecKnowledge(_Row):
    session_cap_geforce: PositiveInt
    session_cap_source: str = Field(min_length=8)
    matrix_source: str = Field(min_length=8)
    cards: list[CodecCard]
    engine_fps_source: str = Field(min_length=8)
    engine_fps: list[EngineFps]
    decode_fps_source: str = Field(min_length=8)
    decode_fps: list[DecodeFps]

    def card(self, gpu: str) -> CodecCard | None:
        return next((c for c in self.cards if c.gpu == gpu), None)

    def decode_fps_per_engine(self, arch: str, codec: str) -> float | None:
        """One NVDEC engine's 1080p decode rate, as published; None where the table has none."""
        return next((r.fps for r in self.decode_fps if r.arch == arch and r.codec == codec), None)

    def fps_per_engine(self, arch: str, codec: str, preset: int, tuning: str) -> float | None:
        """One engine's 1080p frames a second at ``preset`` (1–7), from the ``fit`` rows only.

        A preset the table has is read; one between two (P4 between P3 and P7 when P5 is
        held out) is interpolated log-linearly in the preset number, because each preset
        step costs a roughly constant share of speed. None where the table has no row for
        the architecture and codec (Volta, or AV1 before Ada): the card is not estimated.
        """
        rows = sorted(
            (r.preset, r.fps)
            for r in self.engine_fps
            if r.split == "fit" and r.arch == arch and r.codec == codec and r.tuning == tuning
        )
        if not rows:
            return None
        for at, fps in rows:
            if at == preset:
                return fps
        below = [(p, f) for p, f in rows if p < preset]
        above = [(p, f) for p, f in rows if p > preset]
        if not below or not above:  # outside the measured presets: the nearest row
            return (below or above)[-1 if below else 0][1]
        (p0, f0), (p1, f1) = below[-1], above[0]
        share = (preset - p0) / (p1 - p0)
        return math.exp(math.log(f0) + share * (math.log(f1) - math.log(f0)))


class JobKnowledge(_Row):
    """Everything the light-job families read, validated at load."""

    speech: SpeechKnowledge
    embedding: EmbeddingKnowledge
    vision: VisionKnowledge
    codec: CodecKnowledge


class _Named(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def aliases(self) -> list[str]: ...


M = TypeVar("M", bound=_Named)


def _rows_name_models(rows: Sequence[Measurement], models: set[str]) -> None:
    if unknown := sorted({r.model for r in rows} - models):
        raise ValueError(f"measurements name models the file does not define: {unknown}")
    ids = [r.id for r in rows]
    if len(ids) != len(set(ids)):
        raise ValueError("measurement ids must be unique")


def find_model(models: Sequence[M], name: str) -> M | None:
    """The model whose id, name or alias is ``name`` (case and spacing ignored)."""
    key = _key(name)
    for candidate in models:
        names = {_key(candidate.id), _key(candidate.name), *(_key(a) for a in candidate.aliases)}
        if key in names:
            return candidate
    return None


def _key(text: str) -> str:
    return "".join(text.lower().replace("_", "-").split())


def fit_rows(rows: Sequence[Measurement], **match: str) -> list[Measurement]:
    """The ``fit`` rows whose fields equal ``match`` (``runtime="faster-whisper"``)."""
    return [r for r in rows if r.split == "fit" and all(getattr(r, k) == v for k, v in match.items())]


def median_ratio(rows: Sequence[Measurement], unit_prediction: Callable[[Measurement], float]) -> float:
    """The constant k that makes ``k × unit_prediction(row)`` match the rows: median of the ratios."""
    if not rows:
        raise ValueError("no fit rows to fit a constant on")
    return statistics.median(r.value / unit_prediction(r) for r in rows)


def holdout_errors(rows: Sequence[Measurement], predict: Callable[[Measurement], float]) -> dict[str, float]:
    """Signed relative error (predicted ÷ measured − 1) of every ``holdout`` row, by row id."""
    return {r.id: predict(r) / r.value - 1.0 for r in rows if r.split == "holdout"}


def error_summary(errors: dict[str, float]) -> tuple[float, float]:
    """(median absolute error, share of rows within ±25 %) of a family's holdout errors."""
    if not errors:
        raise ValueError("no holdout rows")
    absolute = [abs(e) for e in errors.values()]
    return statistics.median(absolute), sum(a <= 0.25 for a in absolute) / len(absolute)
