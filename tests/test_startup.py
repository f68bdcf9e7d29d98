"""``gpu-advisor`` starts fast: a command imports only what it runs, and each surface only its own.

Import checks run in a fresh interpreter (this one has imported everything already).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_advisor.bot import cli

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("matplotlib", "numpy", "PIL", "aiohttp", "telegram", "discord")


def loaded_after(code: str) -> set[str]:
    """The heavy top-level packages a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1])) & set(HEAVY)


def test_importing_the_cli_loads_no_surface_library() -> None:
    assert loaded_after("import gpu_advisor.bot.cli") == set()


def test_building_the_parser_for_help_loads_no_surface_library() -> None:
    assert (
        loaded_after("import gpu_advisor.bot.cli; gpu_advisor.bot.cli.build_parser().format_help()") == set()
    )


def test_a_one_shot_ask_loads_no_surface_library() -> None:
    code = "import contextlib, io, gpu_advisor.bot.cli\nwith contextlib.redirect_stdout(io.StringIO()):\n"
    code += "    gpu_advisor.bot.cli.main(['ask', 'deploy a 13B model for 8 users 24/7', '--lang', 'en'])"
    assert loaded_after(code) == set()


def test_parsing_the_telegram_options_loads_no_chat_library() -> None:
    code = "import contextlib, io, gpu_advisor.bot.cli\nwith contextlib.redirect_stdout(io.StringIO()):\n"
    code += "    gpu_advisor.bot.cli.parse(['telegram', '--port', '9443'])"
    assert loaded_after(code) == set()  # python-telegram-bot loads when the bot starts, not before


@pytest.mark.parametrize("name", sorted(cli.SURFACES))
def test_each_surface_is_listed_with_its_own_help(name: str) -> None:
    module, register, text = cli.SURFACES[name]
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    getattr(importlib.import_module(module), register)(sub)
    assert sub.choices[name] is not None
    assert [a.help for a in sub._choices_actions if a.dest == name] == [text]


def test_a_surface_gets_its_own_options_and_the_global_ones() -> None:
    args = cli.parse(["--catalog", "prices.yaml", "--keep-plans-days", "7", "telegram", "--port", "9443"])
    assert (args.command, args.catalog, args.keep_plans_days, args.port) == (
        "telegram",
        "prices.yaml",
        7,
        9443,
    )
    from gpu_advisor.bot.telegram import run

    assert args.func is run.main


def test_an_unknown_option_is_still_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.parse(["ask", "hello", "--bogus"])
    assert exit_.value.code == 2 and "--bogus" in capsys.readouterr().err


def test_retention_flags_reach_the_environment_of_every_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_ADVISOR_KEEP_CONVERSATIONS_DAYS", raising=False)
    monkeypatch.setattr(os, "environ", dict(os.environ))  # keep the export inside this test
    args = cli.parse(["--keep-conversations-days", "3", "ask", "hi"])
    cli._hand_on(args, cli.settings_for(args))
    from gpu_advisor.bot.store import Retention

    assert Retention.from_env(os.environ).conversations_days == 3


def _cpu_seconds(argv: list[str]) -> float:
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return usage.ru_utime + usage.ru_stime


def test_help_costs_little_more_than_starting_python() -> None:
    """CPU time, not wall time, and against ``python -c pass`` measured alongside: a loaded
    machine slows both. Loading every surface made ``--help`` ~60× ``pass``; now it is ~2×."""
    bare, helps = [], []
    for _ in range(3):
        bare.append(_cpu_seconds([sys.executable, "-c", "pass"]))
        helps.append(_cpu_seconds([sys.executable, "-m", "gpu_advisor.bot.cli", "--help"]))
    assert statistics.median(helps) <= 8 * statistics.median(bare) + 0.1, (helps, bare)
