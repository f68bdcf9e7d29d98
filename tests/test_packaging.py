"""What an operator installs: package data in the wheel, extras per surface, the deploy files.

Docker cannot build here (no daemon, no registry), so the Dockerfile, compose file and
systemd units are checked as text: parsed, and held to the properties issue 20 asks for.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheel_dir = tmp_path_factory.mktemp("wheel")
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
    return next(wheel_dir.glob("gpu_advisor-*.whl"))


def test_wheel_install_finds_knowledge_outside_the_source_tree(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
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
        "import pathlib;"
        "from gpu_advisor import knowledge, locales;"
        "from importlib import resources;"
        "assert resources.files('gpu_advisor.bot').joinpath('web/static/widget.js').read_text();"
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


def requirements_of(wheel: Path, *extras: str) -> set[str]:
    """The distributions ``pip install "gpu-advisor[extras]"`` pulls directly, from the wheel's METADATA.

    Self-references (``gpu-advisor[charts]`` inside ``[telegram]``) are followed.
    """
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(name).decode())
    wanted, names, seen = list(extras) or [""], set(), set()
    while wanted:
        extra = wanted.pop()
        seen.add(extra)
        for line in metadata.get_all("Requires-Dist") or []:
            req = Requirement(line)
            if req.marker is not None and not req.marker.evaluate({"extra": extra}):
                continue
            if req.marker is None and extra:
                continue  # a base requirement, counted under ""
            if req.name == "gpu-advisor":
                wanted += [e for e in req.extras if e not in seen]
            else:
                names.add(re.sub(r"[-_.]+", "-", req.name).lower())
    return names


def test_a_web_only_install_pulls_neither_discord_nor_matplotlib(wheel: Path) -> None:
    web = requirements_of(wheel, "", "web")
    assert "aiohttp" in web and "prometheus-client" in web
    assert not web & {"discord-py", "matplotlib", "python-telegram-bot"}


def test_each_surface_extra_pulls_its_own_library(wheel: Path) -> None:
    assert "python-telegram-bot" in requirements_of(wheel, "telegram")
    assert "matplotlib" in requirements_of(wheel, "telegram")  # the plan chart is sent as a photo
    assert "discord-py" in requirements_of(wheel, "discord")
    assert "cvttf-notosanscjk-regular" in requirements_of(wheel, "charts")


def test_the_dev_extra_pulls_every_surface_so_make_test_can_run_them_all(wheel: Path) -> None:
    dev = requirements_of(wheel, "dev")
    everything = set().union(*(requirements_of(wheel, e) for e in ("telegram", "discord", "web", "charts")))
    assert everything <= dev and "psycopg" in dev


# --- deploy files ----------------------------------------------------------------------------------
def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", (REPO / "Dockerfile").read_text(encoding="utf-8"))
    pairs = [line.strip().split(None, 1) for line in text.splitlines()]
    return [(p[0].upper(), p[1] if len(p) > 1 else "") for p in pairs if p and not p[0].startswith("#")]


def test_the_image_runs_from_a_slim_python_base_as_a_non_root_user() -> None:
    steps = dockerfile_instructions()
    bases = [args for op, args in steps if op == "FROM"]
    assert bases and all(re.match(r"python:\$\{PYTHON_VERSION\}-slim\b", b) for b in bases)
    users = [args for op, args in steps if op == "USER"]
    assert users and users[-1] not in ("root", "0")
    last_from = max(i for i, (op, _) in enumerate(steps) if op == "FROM")
    assert any(op == "USER" for op, _ in steps[last_from:])  # the runtime stage, not only the build one


def test_the_image_has_a_health_check_and_the_cjk_font() -> None:
    steps = dockerfile_instructions()
    health = [args for op, args in steps if op == "HEALTHCHECK"]
    assert health and "/healthz" in health[0]
    assert any(op == "ARG" and args == "EXTRAS=all" for op, args in steps)  # [charts] carries the font
    assert "cvttf-NotoSansCJK-Regular" in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_the_image_copies_the_source_tree_the_wheel_is_built_from() -> None:
    copied = {
        args.split()[0] for op, args in dockerfile_instructions() if op == "COPY" and "--from" not in args
    }
    where = re.search(r"where = \[(.*?)\]", (REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert where is not None
    assert {p.strip(' "') for p in where.group(1).split(",")} <= copied


def test_the_wheel_installs_one_top_level_import_name(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        tops = {
            name.split("/")[0] for name in archive.namelist() if not name.split("/")[0].endswith(".dist-info")
        }
    assert tops == {"gpu_advisor"}


def compose() -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
    return loaded


def test_compose_runs_two_web_servers_postgres_and_both_bots() -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    assert {"web", "postgres", "telegram", "discord"} <= set(services)
    assert services["web"]["deploy"]["replicas"] == 2
    assert services["telegram"]["command"][:2] == ["telegram", "--webhook-url"]
    assert services["discord"]["command"] == ["discord"]


def test_every_app_service_shares_the_postgres_database_and_waits_for_it() -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    for name in ("web", "telegram", "discord"):
        env = services[name]["environment"]
        assert env["GPU_ADVISOR_DATABASE_URL"].startswith("postgresql://"), name
        assert "@postgres:5432/" in env["GPU_ADVISOR_DATABASE_URL"], name
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy", name
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])


def test_compose_reads_bot_tokens_from_secret_files_not_the_environment() -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    for name, variable in (("telegram", "TELEGRAM_BOT_TOKEN"), ("discord", "DISCORD_BOT_TOKEN")):
        env = services[name]["environment"]
        assert variable not in env and env[f"{variable}_FILE"].startswith("/run/secrets/")


def test_the_web_replicas_are_health_checked_on_readiness() -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])


@pytest.mark.parametrize(
    "unit", sorted((REPO / "deploy").glob("gpu-advisor-*.service")), ids=lambda p: p.name
)
def test_each_systemd_unit_runs_the_cli_unprivileged_with_settings_from_a_file(unit: Path) -> None:
    lines = dict(
        line.split("=", 1)
        for line in unit.read_text(encoding="utf-8").splitlines()
        if re.match(r"^\w+=", line)
    )
    assert lines["User"] not in ("root", "0") and lines["NoNewPrivileges"] == "yes"
    assert lines["ExecStart"].split()[0].endswith("/gpu-advisor")
    assert lines["EnvironmentFile"].startswith("/etc/gpu-advisor/")
    assert not re.search(r"_TOKEN=(?!/)", unit.read_text(encoding="utf-8"))  # tokens live in files
    assert "WantedBy" in lines


def test_the_wheel_runs_beside_the_index_locales_distribution_and_a_bot_module(
    wheel: Path, tmp_path: Path
) -> None:
    """One import name: installed next to PyPI's ``Locales`` and anyone's ``bot`` module, nothing
    is shadowed — ``gpu-advisor ask`` answers from the wheel, not from this checkout."""
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True, timeout=120)
    python = fresh / "bin" / "python"
    neighbour = REPO / "tests" / "data" / "Locales-0.0.2-py3-none-any.whl"  # PyPI's "Locales" 0.0.2, MIT
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            str(wheel),
            str(neighbour),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout.strip()
    )
    (site / "bot.py").write_text("raise ImportError('a bot module of someone else')\n")
    # The project's dependencies come from this venv's site-packages, which is added as a plain path:
    # its editable-install .pth (pointing back at src/) is not processed there.
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    out = subprocess.run(
        [str(fresh / "bin" / "gpu-advisor"), "ask", "--lang", "zh", "部署 7B，7×24，并发 4"],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "¥" in out.stdout
    where = subprocess.run(
        [str(python), "-c", "import gpu_advisor, Locales; print(gpu_advisor.__file__)"],
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert str(site) in where.stdout
