"""Issue 31, secrets and settings: one settings object (flags over environment over defaults), a
database setting read by libpq's parser and refused when it is neither SQLite nor PostgreSQL,
every password form masked, and nothing secret on a worker's or a child's command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_advisor.bot import cli
from gpu_advisor.bot.settings import load_settings
from gpu_advisor.bot.storage import Storage
from gpu_advisor.bot.storage.target import BadDatabase, read_database, shown
from gpu_advisor.bot.web.processes import child_argv
from gpu_advisor.bot.workers import Workers

ROOT = Path(__file__).resolve().parents[1]
SECRET = "s3cret-Pa55"


# --- what a database setting names -------------------------------------------------------------
@pytest.mark.parametrize(
    "raw",
    [
        f"postgresql://advisor:{SECRET}@db:5432/advisor",
        f"postgresql://advisor@db/advisor?password={SECRET}&sslmode=prefer",
        f"host=db dbname=advisor user=advisor password={SECRET}",
        f"host=db dbname=advisor password='{SECRET} with spaces'",
    ],
)
def test_every_password_form_is_masked_in_what_is_shown(raw: str) -> None:
    out = shown(raw)
    assert out is not None and SECRET not in out and "***" in out


def test_a_keyword_dsn_names_postgresql_not_an_sqlite_file() -> None:
    assert read_database("host=/run/postgresql dbname=advisor").kind == "postgresql"


def test_an_unknown_scheme_is_refused_naming_what_is_accepted() -> None:
    with pytest.raises(BadDatabase, match="postgresql:// URL"):
        read_database(f"mysql://advisor:{SECRET}@db/advisor")


def test_a_keyword_dsn_libpq_cannot_read_is_refused_before_any_file_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadDatabase) as refused:
        Storage(f"host=db bogus=1 password={SECRET}")
    assert SECRET not in str(refused.value) and list(tmp_path.iterdir()) == []


def test_a_bad_database_variable_stops_start_up_with_a_sentence_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", f"mysql://advisor:{SECRET}@db/advisor")
    with pytest.raises(SystemExit, match="GPU_ADVISOR_DATABASE_URL") as stopped:
        load_settings()
    assert SECRET not in str(stopped.value)


# --- flags over environment over defaults ------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["web", "--database-url", "sqlite:///url.db", "--db", "flag.db"],
        ["web", "--db", "flag.db", "--database-url", "sqlite:///url.db"],
        ["--database-url", "sqlite:///url.db", "web", "--db", "flag.db"],
    ],
)
def test_database_url_beats_db_in_any_order(argv: list[str]) -> None:
    assert cli.settings_for(cli.parse(argv)).database == "sqlite:///url.db"


def test_a_db_flag_beats_a_database_url_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", "sqlite:///env.db")
    assert cli.settings_for(cli.parse(["web", "--db", "flag.db"])).database == "flag.db"


def test_without_flags_the_environment_names_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DB", "env.db")
    assert cli.settings_for(cli.parse(["web"])).database == "env.db"


def test_the_settings_shown_are_the_flags_in_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_KEEP_PLANS_DAYS", "7")
    args = cli.parse(["--keep-plans-days", "3", "web", "--database-url", f"postgresql://a:{SECRET}@db/x"])
    listed = cli.settings_for(args).redacted()
    assert listed["GPU_ADVISOR_KEEP_PLANS_DAYS"] == 3
    assert listed["database"] == "postgresql://a:***@db/x" and SECRET not in json.dumps(listed)


# --- nothing secret on a command line ----------------------------------------------------------
async def test_a_worker_command_line_carries_none_of_its_setup_arguments() -> None:
    workers = Workers(1, "tests.fakes.worker_setup:toy", {"prefix": SECRET})
    await workers.start()
    try:
        (pid,) = workers.pids
        command_line = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
        assert await workers.call("echo", "x") == f"{SECRET}x"  # the arguments did arrive
    finally:
        await workers.stop()
    assert SECRET not in command_line


def test_server_children_get_the_database_from_the_environment_not_their_command_line() -> None:
    argv = ["web", "--processes", "2", "--database-url", f"postgresql://a:{SECRET}@db/x", "--port=9"]
    assert child_argv(argv) == ["web", "--port=9"]
    assert child_argv(["web", f"--database-url=postgresql://a:{SECRET}@db/x"]) == ["web"]


def test_the_telegram_start_up_line_names_the_database_in_use_masked(tmp_path: Path) -> None:
    """The bot stops at the token check, after logging where its conversations go."""
    code = "import sys\nfrom gpu_advisor.bot import cli\nsys.exit(cli.main(sys.argv[1:]))"
    url = f"postgresql://a:{SECRET}@127.0.0.1:1/x"
    out = subprocess.run(
        [sys.executable, "-c", code, "--database-url", url, "telegram", "--db", str(tmp_path / "tg.db")],
        cwd=ROOT,
        env={**os.environ, "GPU_ADVISOR_LOG_LEVEL": "INFO", "TELEGRAM_BOT_TOKEN": "1:x"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    start = next(line for line in out.stderr.splitlines() if "starting the Telegram bot" in line)
    assert "postgresql://a:***@127.0.0.1:1/x" in start and "tg.db" not in start
    assert SECRET not in out.stderr
