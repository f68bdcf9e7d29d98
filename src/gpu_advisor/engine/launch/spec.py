"""The shape of one launch command (``LaunchSpec``), the releases commands are written for, and
how a model is named on the command line.

Each spec is structured — ``argv``, ``env``, ``config_files`` — and ``shell`` is
``shlex.join(argv)`` behind the env. ``release`` names the runtime release whose argument parser
the flags were checked against (``knowledge/runtime_flags.yaml``); a quantize or convert step that
comes before the server has ``role="prepare"``.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from gpu_advisor.engine.specs import ModelArch

Setting = int | float | str | bool

# The releases the serving commands are written for: their flags are checked against these
# releases' own argument lists (knowledge/runtime_flags.yaml, tests/test_launch_flags.py).
RELEASES = {
    "vllm": "0.11.0",
    "sglang": "0.5.3",
    "tensorrt_llm": "commit-00209af",
    "llama_cpp": "llama-cpp-python-0.3.16",
    "ms_swift": "3.8.1",
    "llama_factory": "0.9.3",
    "ollama": "v0.32.15",
    "torchtune": "0.6.1",
}
HF_REPO = re.compile(r"huggingface\.co/([^/\s]+/[^/\s]+)")
# Stands for a model with no published repository (one sized from "13B" or a pasted config.json):
# the command must not name a template model, nor an id no hub knows; the text says to replace it.
MODEL_PLACEHOLDER = "YOUR_MODEL"


class LaunchSpec(BaseModel):
    """One command that runs the plan's pick, with the files it reads and the numbers it carries."""

    model_config = ConfigDict(frozen=True)

    runtime: str = Field(
        description="vllm | sglang | llama_cpp | ollama | torchrun_deepspeed | llama_factory "
        "| llm_compressor | gguf_convert"
    )
    role: str = Field(description="serve | train | prepare (makes the weights the next command serves)")
    option: str = Field(description="which option it runs: pick or serving")
    primary: bool = Field(description="the runtime (or method) the plan was sized for")
    argv: list[str]
    env: dict[str, str] = Field(default_factory=dict)
    config_files: dict[str, str] = Field(default_factory=dict)
    settings: dict[str, Setting] = Field(default_factory=dict, description="the plan's numbers it uses")
    needs: list[str] = Field(
        default_factory=list, description="what to prepare first: model_repo, quantize_awq, ray_cluster…"
    )
    release: str = Field("", description="the runtime release whose flags the command was checked against")
    shell: str = ""

    def model_post_init(self, _: object) -> None:
        if not self.shell:
            env = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()]
            object.__setattr__(self, "shell", " ".join([*env, shlex.join(self.argv)]))


def hf_repo(arch: ModelArch) -> str:
    """``org/name`` from the model's config.json source on Hugging Face, else ``YOUR_MODEL``.

    A model built from a bare size borrows a template's shape (and cites its config), and one
    from a pasted config.json has no repository: neither may name one (their ids start ``custom``).
    """
    found = HF_REPO.search(arch.source) if not unpublished(arch) else None
    return found.group(1) if found else MODEL_PLACEHOLDER


def unpublished(arch: ModelArch) -> bool:
    return arch.id.startswith("custom")
