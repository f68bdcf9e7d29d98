"""Published weights a launch command can name: a model's chat checkpoint and its quantized releases.

A plan that picked AWQ on a 24 GB card is only runnable if the command loads an AWQ checkpoint:
``vllm serve Qwen/Qwen2.5-14B`` reads about 30 GB of BF16 weights whatever ``--quantization``
says. So the quantized repository ids are data (``knowledge/checkpoints.yaml``), each with the
page it was checked on, and a format with no row gets quantize-then-serve steps instead
(``engine.launch.weights``). ``instruct`` rows name the chat/instruct checkpoint a deployment
serves when ``models.yaml`` cites the base model's config.

Kinds, as the runtimes read them from the checkpoint's own config (no ``--quantization`` needed):
``awq`` (AutoAWQ, 4-bit), ``gptq`` (4-bit GPTQ), ``w4a16`` (compressed-tensors 4-bit weights,
llm-compressor), ``w8a8`` (compressed-tensors INT8 weights and activations), ``fp8``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Kind = Literal["instruct", "awq", "gptq", "w4a16", "w8a8", "fp8"]
_HF_PAGE = re.compile(r"^https://huggingface\.co/([^/\s]+/[^/\s]+)")


class Checkpoint(BaseModel):
    """One published repository: which model it holds, in which form, and where it was checked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="the models.yaml id")
    kind: Kind
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
    source: str = Field(description="the repository's Hugging Face page")
    note: str = ""

    @model_validator(mode="after")
    def _source_is_the_repos_page(self) -> Checkpoint:
        page = _HF_PAGE.match(self.source)
        if page is None or page.group(1).lower() != self.repo.lower():
            raise ValueError(f"source must be https://huggingface.co/{self.repo}")
        return self


class Checkpoints(BaseModel):
    """The table, looked up by (model, kind)."""

    model_config = ConfigDict(frozen=True)

    rows: tuple[Checkpoint, ...] = ()

    @model_validator(mode="after")
    def _one_row_per_model_and_kind(self) -> Checkpoints:
        seen: set[tuple[str, str]] = set()
        for row in self.rows:
            key = (row.model, row.kind)
            if key in seen:
                raise ValueError(f"{row.model} has two {row.kind} rows")
            seen.add(key)
        return self

    def find(self, model: str, kind: str) -> Checkpoint | None:
        return next((r for r in self.rows if r.model == model and r.kind == kind), None)
