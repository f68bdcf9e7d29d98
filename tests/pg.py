"""A throw-away PostgreSQL cluster for the tests: initdb + pg_ctl on a Unix socket in a temp dir.

The binaries come from ``$GPU_ADVISOR_PG_BIN`` (``.ci/run`` sets it after installing Debian's
``postgresql``) or ``/usr/lib/postgresql/*/bin``; without them the PostgreSQL tests skip,
saying so — except when ``$GPU_ADVISOR_PG_BIN`` is set, where a missing server is a failure.
``initdb`` refuses to run as root, so as root the cluster runs as the ``postgres`` user.
Each test gets its own schema (``search_path`` in the URL), so tests never see each other's rows.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

PORT = 54329  # only names the socket file: the cluster listens on no TCP port
_schemas = itertools.count()


@dataclass(frozen=True)
class Cluster:
    socket_dir: str

    def url(self, schema: str | None = None) -> str:
        base = f"postgresql://postgres@/postgres?host={quote(self.socket_dir)}&port={PORT}"
        return base if schema is None else f"{base}&options={quote(f'-csearch_path={schema}')}"

    def fresh_url(self) -> str:
        """A URL whose tables land in a new, empty schema."""
        import psycopg

        schema = f"t{os.getpid()}_{next(_schemas)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"create schema {schema}")
        return self.url(schema)


def pg_bin() -> Path | None:
    named = os.environ.get("GPU_ADVISOR_PG_BIN")
    if named:
        return Path(named)
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_owner(argv: list[str], owner: str | None) -> list[str]:
    return ["runuser", "-u", owner, "--", *argv] if owner else argv


@contextmanager
def running_cluster() -> Iterator[Cluster]:
    """Start a cluster in a new temp dir; stop it and delete the dir afterwards."""
    bin_dir = pg_bin()
    if bin_dir is None or not (bin_dir / "initdb").exists():
        if os.environ.get("GPU_ADVISOR_PG_BIN"):
            pytest.fail(f"$GPU_ADVISOR_PG_BIN={bin_dir} has no initdb")
        pytest.skip(
            "PostgreSQL server binaries not found (apt-get install postgresql, or set $GPU_ADVISOR_PG_BIN)"
        )
    import psycopg  # noqa: F401  (the extra must be installed too)

    owner = "postgres" if os.geteuid() == 0 else None
    root = tempfile.mkdtemp(prefix="gpu-advisor-pg-")
    if owner:
        entry = pwd.getpwnam(owner)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    data = f"{root}/data"

    def run(*argv: str, check: bool = True) -> None:
        """A server binary as the cluster's owner, from a directory that owner may enter."""
        done = subprocess.run(
            _as_owner([str(bin_dir / argv[0]), *argv[1:]], owner),
            check=False,
            cwd=root,
            capture_output=True,
            text=True,
        )
        if check and done.returncode:
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")

    try:
        run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        options = f"-k {root} -p {PORT} -c listen_addresses='' -c fsync=off -c max_connections=200"
        run("pg_ctl", "-D", data, "-l", f"{root}/log", "-o", options, "-w", "-t", "60", "start")
        yield Cluster(root)
    finally:
        run("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    with running_cluster() as cluster:
        yield cluster
