"""The options each non-LLM job tool accepts at a pinned release (``job_flags.yaml``).

The job plans (image and video generation, speech, embeddings, vision, video encoding) end in
a command people copy; a tool exits on an option it does not know (argparse's "unrecognized
arguments", clap's "unexpected argument", ffmpeg's "Unrecognized option", Ultralytics'
"is not a valid YOLO argument", Python's "unexpected keyword argument"). So the options are
read out of each tool's own source at a pinned release and kept with that release and the
file's URL; ``tests/test_job_commands.py`` checks every job command against them.

Three spellings, one per kind of tool (``style``):

- ``dash``: command-line flags (``--lowvram``, ``-c:v``). argparse scripts (ComfyUI
  ``comfy/cli_args.py``, Wan ``generate.py``, HunyuanVideo ``hyvideo/config.py``, kohya
  sd-scripts and diffusers' DreamBooth trainers, ``accelerate launch``) go through
  ``runtime_flags.python_flags``, and their ``required=True`` options become ``required``
  (``required_flags``: the diffusers trainers exit without ``--instance_prompt``); a clap
  ``struct Args`` (text-embeddings-inference ``router/src/main.rs``) makes each field
  ``--field-name`` (``rust_flags``); ffmpeg's are its AVOption tables (``libavcodec/nvenc_*.c``
  for the encoder's private options) and ``fftools/ffmpeg_opt.c`` for the general ones.
- ``key=value``: Ultralytics' ``yolo MODE key=value``; the keys are the top-level keys of
  ``ultralytics/cfg/default.yaml`` (``yaml_keys``), with the mode as a choice.
- ``keyword``: a Python call's keyword arguments (faster-whisper's ``WhisperModel(...)`` and
  ``.transcribe(...)``), the parameter names of that function (``keyword_args``).

``python -m gpu_advisor.knowledge.job_flags rust|yaml|required|keyword:Class.method FILE`` prints
the sorted list for the YAML (``required``: the argparse options marked ``required=True``).
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gpu_advisor.knowledge.reading import yaml_load

FILE = "job_flags.yaml"
Style = Literal["dash", "key=value", "keyword"]
_RUST_FIELD = re.compile(r"^\s{4}(?:pub\s+)?([a-z][a-z0-9_]*)\s*:", re.MULTILINE)
_YAML_KEY = re.compile(r"^([a-z][a-z0-9_]*):", re.MULTILINE)
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")


class JobToolFlags(BaseModel):
    """One program (or Python callable) of one job tool at one release: the options it accepts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str = Field(description="the plan's tool id: comfyui, wan, ffmpeg, faster-whisper...")
    program: str = Field(description="what the command runs: generate.py, ffmpeg, WhisperModel.transcribe")
    release: str = Field(description="the pinned release (or commit) the options were read from")
    style: Style
    source: str = Field(min_length=8, description="where the options were read (file URLs at the release)")
    flags: frozenset[str] = Field(min_length=1)
    choices: dict[str, frozenset[str]] = Field(
        default_factory=dict, description="the values an option accepts, where the tool checks a list"
    )
    required: frozenset[str] = Field(
        default_factory=frozenset, description="options the program exits without (argparse required=True)"
    )

    @model_validator(mode="after")
    def _spelled_for_style(self) -> JobToolFlags:
        if self.style == "dash":
            odd = sorted(f for f in self.flags if not f.startswith("-"))
        else:
            odd = sorted(f for f in self.flags if not _IDENTIFIER.match(f))
        if odd:
            raise ValueError(f"{self.tool} {self.program}: not {self.style} options: {odd[:3]}")
        unknown = sorted((set(self.choices) | self.required) - self.flags)
        if unknown:
            raise ValueError(
                f"{self.tool} {self.program}: choices or requirements of options it lacks: {unknown}"
            )
        return self


def _is_required(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "add_argument"
        and any(
            k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in node.keywords
        )
    )


def required_flags(text: str) -> set[str]:
    """The options of ``add_argument(..., required=True)`` calls (a script exits without them)."""
    return {
        a.value
        for node in ast.walk(ast.parse(text))
        if _is_required(node) and isinstance(node, ast.Call)
        for a in node.args
        if isinstance(a, ast.Constant) and isinstance(a.value, str)
    }


def rust_flags(text: str) -> set[str]:
    """clap's derive: each field of ``struct Args`` is ``--field-name``."""
    start = text.index("struct Args")
    body = text[start : text.index("\n}\n", start)]
    return {"--" + name.replace("_", "-") for name in _RUST_FIELD.findall(body)}


def yaml_keys(text: str) -> set[str]:
    """The top-level keys of a YAML file (Ultralytics' ``default.yaml`` arguments)."""
    return set(_YAML_KEY.findall(text))


def keyword_args(text: str, qualname: str) -> set[str]:
    """The parameter names of ``Class.method`` (``Class`` alone: its ``__init__``), less ``self``."""
    cls, _, method = qualname.partition(".")
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == (method or "__init__"):
                    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
                    return {p.arg for p in params if p.arg != "self"}
    raise ValueError(f"no {qualname} in the source")


@lru_cache(maxsize=1)
def load() -> dict[tuple[str, str], JobToolFlags]:
    """The shipped table, validated, by ``(tool, program)``."""
    text = resources.files(__package__).joinpath(FILE).read_text(encoding="utf-8")
    rows = [JobToolFlags.model_validate(row) for row in yaml_load(text)]
    table = {(r.tool, r.program): r for r in rows}
    if len(table) != len(rows):
        raise ValueError(f"{FILE}: a tool's program appears twice")
    return table


def main(args: list[str]) -> None:
    """Print the sorted options of one source file as a YAML list (for ``job_flags.yaml``)."""
    kind, path = args
    text = Path(path).read_text(encoding="utf-8")
    if kind == "rust":
        found = rust_flags(text)
    elif kind == "required":
        found = required_flags(text)
    elif kind == "yaml":
        found = yaml_keys(text)
    else:
        found = keyword_args(text, kind.partition(":")[2])
    sys.stdout.write("".join(f"    - {flag}\n" for flag in sorted(found)))


if __name__ == "__main__":
    main(sys.argv[1:])
