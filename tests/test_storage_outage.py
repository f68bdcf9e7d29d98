"""A database outage is said once with a count, not once per failed call (issue 41: a 0.4 s
PostgreSQL restart wrote 172 ERROR lines, one per failed turn).

The restart is real: the test cluster is stopped (``pg_ctl stop -m immediate``, as a crash or a
failover would) while a store keeps being asked, then started again.
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.storage import Storage, StorageUnavailable
from gpu_advisor.bot.storage.outage import OUTAGE, REMIND_S, Outage
from tests.pg import PORT, Cluster, _as_owner, pg_bin

FAILED_CALLS = 7


@contextmanager
def stopped(cluster: Cluster) -> Iterator[None]:
    """The cluster down for the block (an immediate stop, as a crash), started again after."""
    root, bin_dir = cluster.socket_dir, pg_bin()
    assert bin_dir is not None
    owner = "postgres" if os.geteuid() == 0 else None
    options = f"-k {root} -p {PORT} -c listen_addresses='' -c fsync=off -c max_connections=200"

    def pg_ctl(*argv: str) -> None:
        command = _as_owner([str(bin_dir / "pg_ctl"), "-D", f"{root}/data", *argv], owner)
        subprocess.run(command, cwd=root, check=True, capture_output=True, timeout=120)

    pg_ctl("-m", "immediate", "-w", "stop")
    try:
        yield
    finally:
        pg_ctl("-l", f"{root}/log", "-o", options, "-w", "-t", "60", "start")


def test_a_restart_of_postgresql_is_one_error_line_and_one_line_with_the_count(
    pg_cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    store = Storage(pg_cluster.fresh_url())
    try:
        store.save("web", "s", "u", ConversationState(turns=2))  # ends an outage an earlier test left
        caplog.set_level(logging.WARNING, logger="gpu_advisor.bot.storage")
        caplog.clear()
        with stopped(pg_cluster):
            for _ in range(FAILED_CALLS):
                with pytest.raises(StorageUnavailable), store.hold("web", "s", "u"):  # as a turn does
                    store.load("web", "s", "u")
        assert store.load("web", "s", "u").turns == 2
    finally:
        store.close()
    said = [r for r in caplog.records if r.name == "gpu_advisor.bot.storage"]
    assert [r.levelname for r in said] == ["ERROR", "WARNING"]
    assert "unavailable (io)" in said[0].getMessage()
    assert f"{FAILED_CALLS} call(s) failed meanwhile" in said[1].getMessage()


def test_a_long_outage_is_reminded_with_the_count_so_far(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    outage = Outage(logging.getLogger("tests.outage"), clock=lambda: now[0])
    caplog.set_level(logging.WARNING, logger="tests.outage")
    for second in range(int(REMIND_S * 2.5)):  # a call failing every second for 150 s
        now[0] = float(second)
        outage.failed("io", "connection refused")
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 3  # the start, then at 60 s and 120 s
    assert "after 120 s; 121 call(s) failed so far" in errors[-1]


def test_a_success_outside_an_outage_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="gpu_advisor.bot.storage")
    OUTAGE.answered()
    assert not caplog.records
