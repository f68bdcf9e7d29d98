"""``--processes N``: N server processes on one port, over one shared database.

Used by ``gpu-advisor web`` and by ``gpu-advisor telegram --webhook-url`` (the Telegram
webhook server). Each process is a whole ``gpu-advisor <surface>`` (its own event loop, its
own turn workers); they bind the same address with ``SO_REUSEPORT``, so the kernel spreads
new connections over them. A server that binds by itself (aiohttp) passes
``reuse_port=reuse_port()``; one that only takes a ready socket (PTB's webhook server) gets
``shared_socket``. They share nothing but the database: with ``--database-url postgresql://…`` a
conversation's turns may land on any process (or any machine running the same command),
and ``Storage.hold`` keeps them in order.

This supervisor reserves the port first and holds it while it runs (in use: it stops at once,
saying so; port 0: a free one, given to the children and said in the log), starts the
processes, starts again one that dies (say killed with ``-9``: its conversations go on in the
others at once) after a back-off, removes a dead process's Prometheus live-gauge files
(``mark_process_dead``, so the queue depth does not keep its last value), and passes
SIGINT/SIGTERM on. A command that keeps crashing at start-up is given up after
``GIVE_UP_AFTER`` tries in a row: restarting the whole service is the service manager's job
(systemd ``Restart=on-failure`` with its start limit, compose ``restart: unless-stopped``).

Why not gunicorn's aiohttp worker: the Telegram webhook server is python-telegram-bot's own
(tornado), which gunicorn cannot host, and each process here owns turn worker processes
(``bot.workers``) that a pre-forking master knows nothing of; one small supervisor serves
both surfaces, and only does what systemd or the container runtime cannot (N processes on
one port, per-process metric files).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the supervisor and the Telegram processes load no aiohttp
    from aiohttp import web

log = logging.getLogger(__name__)
REUSE_PORT_VARIABLE = "GPU_ADVISOR_REUSE_PORT"  # set for the children: bind with SO_REUSEPORT
MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
POLL_S = 0.2
CRASH_WINDOW_S = 10.0  # a child that ends sooner than this after starting crashed at start-up
GIVE_UP_AFTER = 5  # crashes in a row, then exit: systemd's or the container runtime's policy takes over
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)  # before restarting after 0, 1, 2, ... crashes in a row
EXIT_GAVE_UP = 3


def reuse_port() -> bool:
    """This server is one of several on its port (set by the supervisor for its children)."""
    return os.environ.get(REUSE_PORT_VARIABLE) == "1"


def shared_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` that the other processes may bind too.

    Non-blocking, as an asyncio/tornado server that adopts a socket wants it.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, reuse_port=True)
    sock.setblocking(False)
    return sock


KEEPALIVE_REQUESTS = 100
"""Responses on one connection, after which it is closed (``Connection: close``) so the client
opens a new one that the kernel may give to another process; nginx's ``keepalive_requests``
does the same (1,000 by default there). One handshake per hundred requests costs ~1 %."""


def spread_connections(app: web.Application, requests: int = KEEPALIVE_REQUESTS) -> None:
    """Close each kept-alive connection after ``requests`` responses, so load rebalances.

    ``SO_REUSEPORT`` spreads *new* connections over the processes listening at that moment.
    After a ``kill -9`` every client reconnects to the survivors, and a client that keeps its
    connections alive (a proxy's upstream pool, a load generator) would never open another:
    the replacement, listening 0.7 s later, would get nothing (issue 41). Ending connections
    now and then makes every client reconnect, and the kernel hashes the new connections over
    every live process. Call before the app is set up (its signals freeze then)."""
    served: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()

    async def close_now_and_then(request: web.BaseRequest, response: web.StreamResponse) -> None:
        transport = request.transport
        if transport is None:
            return
        count = served[transport] = served.get(transport, 0) + 1
        if count >= requests:
            response.force_close()

    app.on_response_prepare.append(close_now_and_then)


# Not passed on: the children run one process each, and find the database in the environment
# they inherit ($GPU_ADVISOR_DATABASE_URL, set by the CLI): a URL on a command line shows its
# password to every user of the host (``ps``).
NOT_PASSED_ON = ("--processes", "--database-url")


def child_argv(argv: Sequence[str]) -> list[str]:
    """The command line without ``--processes N`` and ``--database-url URL`` (either spelling)."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in NOT_PASSED_ON:
            skip = True
        elif not arg.startswith(tuple(f"{flag}=" for flag in NOT_PASSED_ON)):
            out.append(arg)
    return out


def reserve_port(host: str, port: int, what: str) -> socket.socket:
    """The port held for the children from before they start until the supervisor ends: a
    socket bound with ``SO_REUSEPORT`` and never listening, so it takes no connection of theirs
    while no other program can bind the port (between a ``kill -9`` and the replacement
    either). Port 0 picks a free one, which the children are then told (``on_port``). Another
    program holding the port stops everything at once, saying so."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SystemExit(
            f"{what}: cannot listen on {host}:{port}: {exc.strerror or exc} (another program has"
            " the port, or the address is not this machine's); nothing was started"
        ) from None
    return sock


def on_port(argv: Sequence[str], port: int) -> list[str]:
    """The command line with its ``--port`` (either spelling) set to ``port``, or ``--port`` added."""
    out: list[str] = []
    given = iter(argv)
    for arg in given:
        if arg == "--port":
            next(given, None)
        elif not arg.startswith("--port="):
            out.append(arg)
            continue
        out.append(f"--port={port}")
    return out if any(a.startswith("--port=") for a in out) else [*out, f"--port={port}"]


def forget_dead_processes(directory: str | None = None) -> list[int]:
    """Remove the live-gauge files of server processes that are gone (killed with -9, say), so
    ``gpu_advisor_queue_depth`` (``livesum``) stops counting their last value; the pids cleaned."""
    directory = directory or os.environ.get(MULTIPROCESS_VARIABLE)
    if not directory or not os.path.isdir(directory):
        return []
    from prometheus_client import multiprocess

    gone = sorted({pid for pid in _gauge_pids(directory) if not _alive(pid)})
    for pid in gone:
        multiprocess.mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]
    return gone


def _gauge_pids(directory: str) -> set[int]:
    pids = set()
    for name in os.listdir(directory):  # gauge_livesum_1234.db, gauge_liveall_1234.db, ...
        stem, _, rest = name.rpartition("_")
        if stem.startswith("gauge_live") and rest.removesuffix(".db").isdigit():
            pids.add(int(rest.removesuffix(".db")))
    return pids


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class _Slot:
    """One child position: the process in it, when it started, when the next may start."""

    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    next_start: float = 0.0


class Supervisor:
    """``count`` children of one command, restarted when they die, with a back-off; a command
    that keeps dying within ``CRASH_WINDOW_S`` of starting is given up after ``GIVE_UP_AFTER``
    crashes in a row (the service manager's restart policy decides what happens next)."""

    def __init__(
        self, count: int, command: list[str], what: str, backoff_s: Sequence[float] = BACKOFF_S
    ) -> None:
        self.command, self.what, self.backoff_s = command, what, tuple(backoff_s)
        self.env = {**os.environ, REUSE_PORT_VARIABLE: "1"}
        self.slots = [_Slot() for _ in range(count)]
        self.crashes = 0

    def run(self, stopping: Callable[[], bool]) -> int:
        forget_dead_processes()
        while not stopping():
            now = time.monotonic()
            for slot in self.slots:
                if slot.process is None and now >= slot.next_start:
                    self._start(slot, now)
                elif (
                    slot.process is not None
                    and slot.process.poll() is not None
                    and not self._ended(slot, now)
                ):
                    self.stop()
                    return EXIT_GAVE_UP
            time.sleep(POLL_S)
        self.stop()
        return 0

    def _start(self, slot: _Slot, now: float) -> None:
        slot.process, slot.started = subprocess.Popen(self.command, env=self.env), now
        log.warning("%s: process %d started", self.what, slot.process.pid)

    def _ended(self, slot: _Slot, now: float) -> bool:
        """Note a child's end; False when the crash loop has gone on long enough to give up."""
        assert slot.process is not None
        pid, code, lived = slot.process.pid, slot.process.returncode, now - slot.started
        slot.process = None
        forget_dead_processes()
        self.crashes = self.crashes + 1 if lived < CRASH_WINDOW_S else 0
        if self.crashes >= GIVE_UP_AFTER:
            log.error(
                "%s: process %d exited with %s %.1f s after starting, crash %d of %d in a row;"
                " giving up (its own error is above)",
                self.what,
                pid,
                code,
                lived,
                self.crashes,
                GIVE_UP_AFTER,
            )
            return False
        pause = self.backoff_s[min(self.crashes, len(self.backoff_s) - 1)]
        slot.next_start = now + pause
        log.error(
            "%s: process %d exited with %s after %.1f s; starting another in %g s",
            self.what,
            pid,
            code,
            lived,
            pause,
        )
        return True

    def stop(self) -> None:
        running = [slot.process for slot in self.slots if slot.process is not None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        for process in running:
            process.wait()
        forget_dead_processes()


def serve_processes(
    count: int, argv: Sequence[str], what: str = "server", address: tuple[str, int] | None = None
) -> int:
    """Run ``count`` children of ``gpu-advisor <argv>`` until told to stop: 0 once they are gone,
    ``EXIT_GAVE_UP`` after a crash loop. ``address`` is reserved first (``reserve_port``: a port
    in use stops here; port 0 becomes a free port, said in the log and given to the children)."""
    held = None
    if address is not None:
        held = reserve_port(*address, what)
        port = held.getsockname()[1]
        argv = on_port(argv, port)
        log.warning("%s: listening on %s:%d", what, address[0], port)
    command = [sys.executable, "-m", "gpu_advisor.bot.cli", *child_argv(argv)]
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    log.warning("%s: serving with %d processes", what, count)
    try:
        return Supervisor(count, command, what).run(lambda: stopping)
    finally:
        if held is not None:
            held.close()
