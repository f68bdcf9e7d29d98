"""Issue 31, faults an operator hits: a newer schema, a port in use, a crash loop, a dead process's
metric files, a worker's traceback in a JSON log, a hung PostgreSQL, a missing optional extra."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gpu_advisor.bot.storage import SchemaTooNew, Storage, StorageUnavailable
from gpu_advisor.bot.web.processes import EXIT_GAVE_UP, GIVE_UP_AFTER, Supervisor, forget_dead_processes
from tests.conftest import OpenStore
from tests.pg import Cluster, running_cluster

ROOT = Path(__file__).resolve().parents[1]


def run_python(*argv: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# --- schema versions only go forward --------------------------------------------------------------
def _set_version(store: Storage, version: int) -> None:
    with store.transaction():
        if hasattr(store, "db"):
            store.db.execute("update meta set value = ? where key = 'schema_version'", [str(version)])
        else:
            store._execute("update meta set value = %s where key = 'schema_version'", [str(version)])  # type: ignore[attr-defined]


def test_an_older_program_refuses_a_newer_schema_and_leaves_it_as_it_was(store_at: OpenStore) -> None:
    store = store_at("newer")
    newer = store.schema_version + 3  # type: ignore[attr-defined]
    _set_version(store, newer)
    with pytest.raises(SchemaTooNew, match=f"schema version {newer}"):
        store_at("newer")
    assert store.schema_version == newer  # type: ignore[attr-defined]


# --- the supervisor of several server processes --------------------------------------------------
def test_web_processes_on_a_port_in_use_stop_at_once_saying_so(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:  # no SO_REUSEPORT: nobody may share it
        port = str(taken.getsockname()[1])
        started = time.monotonic()
        out = run_python(
            "-m",
            "gpu_advisor.bot.cli",
            "web",
            "--processes",
            "2",
            "--port",
            port,
            "--db",
            str(tmp_path / "w.db"),
        )
    assert out.returncode != 0 and f"127.0.0.1:{port}" in out.stderr and "in use" in out.stderr
    assert time.monotonic() - started < 30


def test_a_command_that_crashes_at_start_is_given_up_after_a_few_tries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    crashing = [sys.executable, "-c", "raise SystemExit(2)"]
    supervisor = Supervisor(1, crashing, "web", backoff_s=(0.01,))
    started = time.monotonic()
    assert supervisor.run(lambda: time.monotonic() - started > 60) == EXIT_GAVE_UP
    assert supervisor.crashes == GIVE_UP_AFTER and "giving up" in caplog.text


def test_a_killed_processs_queue_depth_is_forgotten(tmp_path: Path) -> None:
    """A process that dies holding one request in flight (as after kill -9) leaves its gauge file."""
    died = run_python(
        "-c",
        "import os; from gpu_advisor.bot import metrics; metrics.QUEUE_DEPTH.inc(); os._exit(9)",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path),
    )
    assert died.returncode == 9 and any(p.name.startswith("gauge_livesum") for p in tmp_path.iterdir())
    assert forget_dead_processes(str(tmp_path)) != []
    scrape = run_python(
        "-c",
        "from gpu_advisor.bot import metrics; print(metrics.exposition()[0].decode())",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path),
    )
    depth = [line for line in scrape.stdout.splitlines() if line.startswith("gpu_advisor_queue_depth ")]
    assert depth in ([], ["gpu_advisor_queue_depth 0.0"])


# --- logs ---------------------------------------------------------------------------------------------
def test_a_workers_traceback_is_one_json_log_line() -> None:
    code = (
        "import pickle, socket, subprocess, sys\n"
        "from gpu_advisor.bot.workers import _frame\n"
        "a, b = socket.socketpair()\n"
        "p = subprocess.Popen([sys.executable, '-m', 'gpu_advisor.bot.workers', str(b.fileno())],"
        " pass_fds=(b.fileno(),))\n"
        "a.sendall(_frame(('tests.fakes.worker_setup:broken', {})))\n"
        "sys.exit(p.wait())\n"
    )
    out = run_python("-c", code, GPU_ADVISOR_LOG_FORMAT="json")
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    assert len(entries) == 1 and "this worker cannot start" in entries[0]["exc"]


# --- a missing optional extra -------------------------------------------------------------------
def test_a_surface_whose_extra_is_missing_names_the_extra_to_install() -> None:
    code = "import sys\nsys.modules['discord'] = None  # as if not installed\n"
    code += "from gpu_advisor.bot import cli\nsys.exit(cli.main(['discord']))"
    out = run_python("-c", code)
    assert out.returncode == 1
    assert json.loads(out.stdout)["error"]["code"] == "missing_extra"
    assert "pip install 'gpu-advisor[discord]'" in out.stderr and "Traceback" not in out.stderr


# --- a hung PostgreSQL --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    """A cluster of this module's own: stopping it must not stall the other tests' one."""
    with running_cluster() as cluster:
        yield cluster


@contextmanager
def hung(cluster: Cluster) -> Iterator[None]:
    """Every server process stopped (SIGSTOP), as a frozen host would be; resumed afterwards."""
    postmaster = int(Path(cluster.socket_dir, "data", "postmaster.pid").read_text().split()[0])
    children = Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split()
    pids = [postmaster, *map(int, children)]
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)


def test_a_hung_server_fails_a_store_call_in_seconds_not_never(own_cluster: Cluster) -> None:
    store = Storage(own_cluster.fresh_url())
    try:
        with hung(own_cluster):
            started = time.monotonic()
            with pytest.raises(StorageUnavailable):
                store.load("web", "hung", "hung")
            assert time.monotonic() - started < 6
    finally:
        store.close()


async def test_a_hung_server_gets_quick_answers_from_readyz_healthz_and_chat(
    own_cluster: Cluster, tmp_path: Path
) -> None:
    import asyncio

    import aiohttp

    from gpu_advisor.bot.web import WebConfig, build_app
    from gpu_advisor.bot.web.server import listen

    config = WebConfig(db_path=own_cluster.fresh_url())
    listening = await listen(build_app(config), config, port=0)
    try:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{listening.port}") as http:
            with hung(own_cluster):
                started = time.monotonic()
                ready, health = await asyncio.gather(http.get("/readyz"), http.get("/healthz"))
                assert (ready.status, health.status) == (503, 200)
                assert time.monotonic() - started < 4
                started = time.monotonic()
                async with http.post("/api/chat", json={"text": "hello", "lang": "en"}) as chat:
                    assert chat.status == 503 and "Retry-After" in chat.headers
                    assert (await chat.json())["error"]["code"] == "storage_unavailable"
                assert time.monotonic() - started < 8
    finally:
        await listening.close()
