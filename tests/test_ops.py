"""Issue 20, operations: health and readiness, Prometheus metrics, JSON logs, settings, --version.

The endpoints are asked through the real aiohttp server listening on 127.0.0.1 with a
real client. Metric assertions compare a scrape before and after in the same run (the
registry is per process and other tests add to it too).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.logs import JsonFormatter, new_turn_id, turn_context
from gpu_advisor.bot.secrets import install_redaction
from gpu_advisor.bot.settings import FILE_VARIABLE, load_settings
from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.context import CONTEXT
from gpu_advisor.bot.web.server import listen
from tests.fakes.slow_dialog import STALL, SlowDialog

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "123456:AAH-secret-token-value_xyz"


@asynccontextmanager
async def served(
    tmp_path: Path, dialog: Dialog | None = None, **overrides: Any
) -> AsyncIterator[tuple[aiohttp.ClientSession, Any]]:
    config = WebConfig(db_path=str(tmp_path / "web.db"), **overrides)
    app = build_app(config, dialog=dialog)
    listening = await listen(app, config, port=0)
    try:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{listening.port}") as session:
            yield session, app
    finally:
        await listening.close()


async def scrape(session: aiohttp.ClientSession) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with session.get("/metrics") as response:
        assert response.status == 200
        text = await response.text()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def sample(scraped: dict[Any, float], name: str, **labels: str) -> float:
    return scraped.get((name, tuple(sorted(labels.items()))), 0.0)


# --- health and readiness -----------------------------------------------------------------
async def test_healthz_answers_ok_while_the_server_runs(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, _), session.get("/healthz") as response:
        assert response.status == 200
        assert await response.json() == {"status": "ok"}


async def test_readyz_is_ready_when_the_store_answers_and_the_knowledge_is_loaded(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, _), session.get("/readyz") as response:
        assert response.status == 200
        assert await response.json() == {
            "status": "ready",
            "checks": {"store": True, "knowledge": True, "workers": True, "capacity": True},
        }


async def test_readyz_answers_503_naming_the_store_once_it_stops_answering(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, app):
        app[CONTEXT].store.close()
        async with session.get("/readyz") as response:
            assert response.status == 503
            assert (await response.json())["checks"] == {
                "store": False,
                "knowledge": True,
                "workers": True,
                "capacity": True,
            }


async def test_readyz_answers_503_when_the_catalog_has_no_offers(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, app):
        dialog = app[CONTEXT].dialog
        empty = dialog.kb.catalog.model_copy(update={"offers": []})
        dialog.reload(dialog.kb.model_copy(update={"catalog": empty}))
        async with session.get("/readyz") as response:
            assert response.status == 503
            assert (await response.json())["checks"]["knowledge"] is False


# --- metrics ---------------------------------------------------------------------------------
async def test_a_chat_turn_is_counted_and_its_latency_observed(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, _):
        before = await scrape(session)
        async with session.post(
            "/api/chat", json={"text": "deploy a 13B model for 8 users", "lang": "en"}
        ) as r:
            assert r.status == 200
        after = await scrape(session)
    turns = "gpu_advisor_turns_total"
    assert sample(after, turns, surface="web") - sample(before, turns, surface="web") == 1
    count = "gpu_advisor_plan_seconds_count"
    assert sample(after, count, route="chat") - sample(before, count, route="chat") == 1
    assert sample(after, "gpu_advisor_queue_depth") == 0  # nothing left in flight


async def test_a_turn_stalled_in_its_worker_shows_in_the_queue_depth_until_it_is_answered(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, SlowDialog(knowledge.load()), workers=1, turn_deadline_s=3.0) as (session, _):
        baseline = sample(await scrape(session), "gpu_advisor_queue_depth")
        stalled = asyncio.create_task(session.post("/api/chat", json={"text": STALL, "lang": "en"}))
        deadline = asyncio.get_running_loop().time() + 20
        depth = baseline
        while depth == baseline and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
            depth = sample(await scrape(session), "gpu_advisor_queue_depth")
        assert depth == baseline + 1 and not stalled.done()
        (await stalled).release()
        assert sample(await scrape(session), "gpu_advisor_queue_depth") == baseline


async def test_a_rate_limited_request_is_counted_as_a_refusal_and_by_its_error_code(tmp_path: Path) -> None:
    async with served(tmp_path, ip_per_minute=1) as (session, _):
        before = await scrape(session)
        statuses = []
        for _ in range(2):
            async with session.post("/api/estimate", json={}) as response:
                statuses.append(response.status)
        after = await scrape(session)
    assert statuses[-1] == 429
    refused = "gpu_advisor_rate_limited_total"
    assert sample(after, refused) - sample(before, refused) == 1
    errors = "gpu_advisor_errors_total"
    assert sample(after, errors, kind="rate_limited") - sample(before, errors, kind="rate_limited") == 1


async def test_a_bad_workload_is_counted_under_its_error_code_and_not_as_a_plan(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, _):
        before = await scrape(session)
        async with session.post("/api/recommend", json={"task": "fly"}) as response:
            code = (await response.json())["error"]["code"]
            assert response.status in (400, 422)
        after = await scrape(session)
    errors = "gpu_advisor_errors_total"
    assert sample(after, errors, kind=code) - sample(before, errors, kind=code) == 1
    count = "gpu_advisor_plan_seconds_count"
    assert sample(after, count, route="recommend") == sample(before, count, route="recommend")


# --- request ids and JSON logs ------------------------------------------------------------
async def test_every_response_carries_a_request_id_and_a_proxys_sane_one_is_kept(tmp_path: Path) -> None:
    async with served(tmp_path) as (session, _):
        async with session.get("/healthz", headers={"X-Request-Id": "edge-42"}) as kept:
            assert kept.headers["X-Request-Id"] == "edge-42"
        async with session.get("/healthz", headers={"X-Request-Id": "bad id\u2028{}"}) as replaced:
            assert replaced.headers["X-Request-Id"] not in ("", "bad id\u2028{}")
        async with session.get("/healthz") as fresh:
            assert len(fresh.headers["X-Request-Id"]) == 16


@pytest.fixture
def json_lines() -> Any:
    """A root handler writing JSON lines into a list (what stderr would get)."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Collect()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    yield lines
    root.removeHandler(handler)


async def test_a_line_logged_during_a_request_carries_its_turn_id(
    tmp_path: Path, json_lines: list[str]
) -> None:
    async with served(tmp_path) as (session, app):
        app[CONTEXT].store.close()  # the readiness probe logs why it failed
        async with session.get("/readyz", headers={"X-Request-Id": "probe-7"}) as response:
            assert response.status == 503
    entries = [json.loads(line) for line in json_lines]
    failed = [e for e in entries if e["message"].startswith("readiness: the store did not answer")]
    assert failed and failed[0]["turn"] == "probe-7" and failed[0]["level"] == "WARNING"


def test_a_line_logged_outside_any_turn_has_a_null_turn(json_lines: list[str]) -> None:
    logging.getLogger("gpu_advisor.test").warning("outside")
    assert json.loads(json_lines[-1])["turn"] is None


def test_concurrent_turn_contexts_do_not_leak_into_each_other(json_lines: list[str]) -> None:
    with turn_context(new_turn_id()) as outer:
        with turn_context("inner-1"):
            logging.getLogger("gpu_advisor.test").warning("in")
        logging.getLogger("gpu_advisor.test").warning("out")
    assert [json.loads(line)["turn"] for line in json_lines[-2:]] == ["inner-1", outer]


def test_json_log_lines_still_have_the_bot_token_redacted(json_lines: list[str]) -> None:
    install_redaction(TOKEN)
    try:
        raise RuntimeError(f"Unauthorized: http://127.0.0.1:8081/bot{TOKEN}/getMe")  # a Bot API URL
    except RuntimeError:
        logging.getLogger("gpu_advisor.test").exception("token %s rejected", TOKEN)
    line = json_lines[-1]
    entry = json.loads(line)  # still one valid JSON object after the redaction
    assert TOKEN not in line and "<token>" in entry["message"] and "<token>" in entry["exc"]


# --- settings ----------------------------------------------------------------------------------
def test_an_environment_variable_beats_the_settings_file_which_beats_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "gpu-advisor.env"
    file.write_text("GPU_ADVISOR_LOG_FORMAT=json\nGPU_ADVISOR_KEEP_PLANS_DAYS=7\n", encoding="utf-8")
    monkeypatch.setenv(FILE_VARIABLE, str(file))
    monkeypatch.setenv("GPU_ADVISOR_KEEP_PLANS_DAYS", "14")
    monkeypatch.delenv("GPU_ADVISOR_LOG_FORMAT", raising=False)
    monkeypatch.delenv("GPU_ADVISOR_KEEP_CONVERSATIONS_DAYS", raising=False)
    settings = load_settings()
    assert (settings.keep_plans_days, settings.log_format, settings.keep_conversations_days) == (
        14,
        "json",
        30,
    )


def test_a_token_from_the_settings_file_reaches_the_environment_for_the_surfaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "gpu-advisor.env"
    file.write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n", encoding="utf-8")
    monkeypatch.setenv(FILE_VARIABLE, str(file))
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    environ: dict[str, str] = {}
    load_settings().export(environ)
    assert environ == {"TELEGRAM_BOT_TOKEN": TOKEN}  # defaults are not exported


def test_an_invalid_setting_stops_with_a_sentence_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_LOG_FORMAT", "xml")
    with pytest.raises(SystemExit, match="GPU_ADVISOR_LOG_FORMAT"):
        load_settings()


def test_a_missing_settings_file_stops_rather_than_being_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FILE_VARIABLE, str(tmp_path / "absent.env"))
    with pytest.raises(SystemExit, match="no such file"):
        load_settings()


def test_printed_settings_mask_tokens_and_the_database_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", "postgresql://advisor:s3cret@db:5432/advisor")
    shown = load_settings().redacted()
    assert shown["DISCORD_BOT_TOKEN"] == "***" and shown["TELEGRAM_BOT_TOKEN"] is None
    assert shown["GPU_ADVISOR_DATABASE_URL"] == "postgresql://advisor:***@db:5432/advisor"
    assert TOKEN not in json.dumps(shown) and "s3cret" not in json.dumps(shown)


def run_cli(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter (no pytest log handlers), with ``env`` over this one's environment."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_surface_prints_its_settings_redacted_as_a_json_log_line_at_start_up() -> None:
    code = "from gpu_advisor.bot import cli\ncli._apply_settings()\n"
    code += "cli._print_settings(cli.settings_for(cli.parse(['web'])), 'web')"
    out = run_cli(code, GPU_ADVISOR_LOG_FORMAT="json", TELEGRAM_BOT_TOKEN=TOKEN)
    entry = json.loads(out.stderr.strip().splitlines()[-1])
    assert entry["logger"] == "gpu_advisor.settings" and entry["turn"] is None
    assert '"TELEGRAM_BOT_TOKEN": "***"' in entry["message"] and TOKEN not in out.stderr


def test_version_prints_the_installed_distributions_version() -> None:
    out = run_cli("import sys; from gpu_advisor.bot import cli; sys.exit(cli.main(['--version']))")
    assert out.returncode == 0
    assert out.stdout.strip() == f"gpu-advisor {version('gpu-advisor')}"


def test_with_a_multiprocess_directory_a_scrape_sums_every_process(tmp_path: Path) -> None:
    count = "from gpu_advisor.bot import metrics\nmetrics.TURNS.labels('web').inc()"
    for _ in range(2):  # two server processes, each answering one turn, then gone
        assert run_cli(count, PROMETHEUS_MULTIPROC_DIR=str(tmp_path)).returncode == 0
    scrape_code = "from gpu_advisor.bot import metrics\nprint(metrics.exposition()[0].decode())"
    out = run_cli(scrape_code, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(out.stdout)
        for s in family.samples
    }
    assert sample(samples, "gpu_advisor_turns_total", surface="web") == 2


def test_with_a_multiprocess_directory_a_scrape_has_each_live_processs_cpu_and_memory(
    tmp_path: Path,
) -> None:
    """Issue 41: summed samples carried no process CPU or memory; now every live process's do,
    labelled by pid, whichever process is scraped, and a process killed with -9 drops out."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    serving = "from gpu_advisor.bot import metrics\nprint('up', flush=True)\nimport time\ntime.sleep(120)"
    servers = [
        subprocess.Popen(
            [sys.executable, "-c", serving], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    try:
        assert all(p.stdout is not None and p.stdout.readline() == "up\n" for p in servers)
        os.kill(servers[1].pid, signal.SIGKILL)
        servers[1].wait(30)
        scrape_code = "from gpu_advisor.bot import metrics\nprint(metrics.exposition()[0].decode())"
        out = run_cli(scrape_code, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    finally:
        for p in servers:
            p.kill()
            p.wait(30)
    by_pid = {
        (s.name, s.labels.get("pid")): s.value
        for family in text_string_to_metric_families(out.stdout)
        for s in family.samples
    }
    live, killed = str(servers[0].pid), str(servers[1].pid)
    assert by_pid[("process_resident_memory_bytes", live)] > 10 * 2**20  # an interpreter with our imports
    assert by_pid[("process_cpu_seconds_total", live)] > 0
    assert ("process_resident_memory_bytes", killed) not in by_pid
