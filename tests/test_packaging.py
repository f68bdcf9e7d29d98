"""A non-editable install carries its knowledge and locale data (package data, not the repo)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_install_finds_knowledge_outside_the_source_tree(tmp_path: Path) -> None:
    wheel_dir, target = tmp_path / "wheel", tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheel_dir),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(wheel_dir.glob("gpu_advisor-*.whl"))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    # -S skips site.py, so the editable-install hook of the dev venv cannot leak the repo back in;
    # dependencies come from the venv's site-packages, the project only from the installed wheel.
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{sysconfig.get_paths()['purelib']}"}
    probe = (
        "import knowledge, engine, bot, locales, pathlib;"
        "from importlib import resources;"
        "assert resources.files('bot').joinpath('web/static/widget.js').read_text();"
        "assert locales.messages('zh') and locales.messages('en');"
        "kb = knowledge.load();"
        "assert 'site' in pathlib.Path(knowledge.__file__).parts[-3:-1] or 'site' in knowledge.__file__;"
        "print(len(kb.gpus), len(kb.models), len(kb.catalog.offers))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    gpus, models, offers = map(int, out.stdout.split())
    assert gpus >= 19 and models >= 21 and offers >= 6
