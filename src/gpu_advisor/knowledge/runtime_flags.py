"""Which command-line flags each serving runtime's pinned release accepts (``runtime_flags.yaml``).

A launch command is only useful if the runtime it names parses every flag in it: ``vllm serve``
exits with "unrecognized arguments" on a flag it does not know. So the flags are not written by
hand; they are read out of each runtime's own argument-parser source at a pinned release and kept
here with that release and the URL of the file, and ``tests/test_launch_flags.py`` fails when a
command uses a flag its release lacks.

Extraction (``python -m gpu_advisor.knowledge.runtime_flags SOURCE...`` prints the YAML):

- Python parsers (vLLM ``vllm/engine/arg_utils.py`` and ``entrypoints/openai/cli_args.py``,
  SGLang ``srt/server_args.py``, TensorRT-LLM ``tensorrt_llm/commands/serve.py``): every string
  literal that starts with ``-`` and is an argument of an ``add_argument`` or ``click.option``
  call; vLLM's frontend flags come from the fields of its ``FrontendArgs`` dataclass
  (``--host``, ``--port``, … are generated from them, ``--no-…`` for booleans).
- llama.cpp ``common/arg.cpp``: the option spellings inside ``common_arg({...})`` lists.
- ``HfArgumentParser`` commands (ms-swift ``swift sft``): each field of the argument dataclasses
  is ``--field_name`` (``python -m gpu_advisor.knowledge.runtime_flags --fields FILE...``, over
  ms-swift's swift/llm/argument/ and swift/trainers/arguments.py and transformers'
  training_args.py and training_args_seq2seq.py, the classes ``swift sft``'s TrainArguments is
  built from).
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gpu_advisor.knowledge.reading import yaml_load

FILE = "runtime_flags.yaml"
_CPP_OPTION_LIST = re.compile(r"common_arg\(\s*\{([^}]*)\}")
_CPP_STRING = re.compile(r'"(-{1,2}[A-Za-z0-9][A-Za-z0-9_-]*)"')


class RuntimeFlags(BaseModel):
    """One runtime at one release: the flags its server command accepts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runtime: str
    release: str = Field(description="the pinned release the flags were read from, e.g. 0.11.0")
    command: str = Field(description="the server command these flags belong to")
    source: str = Field(min_length=8, description="where the flags were read (file URLs at the release)")
    flags: frozenset[str]
    choices: dict[str, frozenset[str]] = Field(
        default_factory=dict, description="the values a flag or config key accepts, where they are a list"
    )

    @field_validator("flags")
    @classmethod
    def _flags_look_like_flags(cls, flags: frozenset[str]) -> frozenset[str]:
        odd = sorted(f for f in flags if not f.startswith("-"))
        if odd:
            raise ValueError(f"not flags: {odd[:3]}")
        return flags


def python_flags(text: str) -> set[str]:
    """The option strings of every ``add_argument`` call, and generated dataclass-field flags."""
    found: set[str] = set()
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("add_argument", "option"):
            found |= {flag for a in node.args if (flag := _option(a))}
        if isinstance(node, ast.ClassDef) and node.name == "FrontendArgs":
            found |= _dataclass_flags(node)
    return found


def _option(node: ast.expr) -> str | None:
    """The option string of an ``add_argument`` argument (``"--tp-size"``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("-"):
        return node.value
    return None


def _dataclass_flags(cls: ast.ClassDef) -> set[str]:
    """vLLM turns each ``FrontendArgs`` field into ``--field-name`` (and ``--no-…`` for a bool)."""
    out: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = "--" + stmt.target.id.replace("_", "-")
            out.add(name)
            if ast.unparse(stmt.annotation) == "bool":
                out.add("--no-" + name[2:])
    return out


def field_flags(text: str) -> set[str]:
    """``--name`` for every annotated field of every class (``HfArgumentParser``'s rule)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            out |= {
                f"--{stmt.target.id}"
                for stmt in node.body
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            }
    return {f for f in out if not f.startswith("--_")}


def cpp_flags(text: str) -> set[str]:
    """llama.cpp's option spellings: the strings in each ``common_arg({"-c", "--ctx-size"}, …)``."""
    return {flag for block in _CPP_OPTION_LIST.findall(text) for flag in _CPP_STRING.findall(block)}


def flags_in(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return cpp_flags(text) if path.suffix == ".cpp" else python_flags(text)


@lru_cache(maxsize=1)
def load() -> dict[tuple[str, str], RuntimeFlags]:
    """The shipped table, validated, by ``(runtime, release)``."""
    text = resources.files(__package__).joinpath(FILE).read_text(encoding="utf-8")
    rows = [RuntimeFlags.model_validate(row) for row in yaml_load(text)]
    table = {(r.runtime, r.release): r for r in rows}
    if len(table) != len(rows):
        raise ValueError(f"{FILE}: a runtime release appears twice")
    return table


def main(args: list[str]) -> None:
    """Print the sorted flags of the given parser sources as a YAML list (for ``runtime_flags.yaml``)."""
    fields, paths = args[:1] == ["--fields"], [Path(a) for a in args if a != "--fields"]
    read = (lambda p: field_flags(p.read_text(encoding="utf-8"))) if fields else flags_in
    flags = sorted(set().union(*(read(p) for p in paths)))
    sys.stdout.write("".join(f"  - {flag}\n" for flag in flags))


if __name__ == "__main__":
    main(sys.argv[1:])
