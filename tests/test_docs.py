"""The README cannot drift from the code (in the spirit of sqlite-utils' tests/test_docs.py).

Every path the README's layout names exists, every CLI subcommand is documented, and the
order in which the README says a message is answered is the order the code runs.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from gpu_advisor.bot import cli
from gpu_advisor.bot.dialog.answerers import ANSWERERS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def layout_paths() -> list[str]:
    text = section("Layout")
    paths = re.findall(
        r"`((?:src/gpu_advisor/|tests/|bench/|deploy/)?[\w./*-]+/|[\w./-]+\.(?:py|yaml|toml))`", text
    )
    return sorted({p for p in paths if "*" not in p})


def resolve(path: str) -> Path:
    """A layout path: from the repository root, or under src/gpu_advisor/ when written short."""
    for base in (ROOT, ROOT / "src" / "gpu_advisor", ROOT / "src" / "gpu_advisor" / "bot"):
        if (base / path).exists():
            return base / path
    if "/" not in path:  # a module named inside its folder's bullet ("`names.py`")
        return next((ROOT / "src").rglob(path), ROOT / path)
    return ROOT / path


@pytest.mark.parametrize("path", layout_paths())
def test_every_path_the_layout_names_exists(path: str) -> None:
    assert resolve(path).exists(), path


def subcommands() -> list[str]:
    parser = cli.build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


@pytest.mark.parametrize("name", subcommands())
def test_every_cli_subcommand_is_documented(name: str) -> None:
    assert re.search(rf"gpu-advisor(?: \[[^\]]*\])? {re.escape(name)}\b", README), name


def test_the_answer_order_the_readme_states_is_the_order_the_code_runs() -> None:
    stated = re.findall(r"^\d+\. `(\w+)`", section("How a message is answered"), flags=re.MULTILINE)
    assert stated == [answerer.__name__ for answerer in ANSWERERS]
