"""``--processes N``: N server processes on one port, over one shared database.

Used by ``gpu-advisor web`` and by ``gpu-advisor telegram --webhook-url`` (the Telegram
webhook server). Each process is a whole ``gpu-advisor <surface>`` (its own event loop, its
own turn workers); they bind the same address with ``SO_REUSEPORT``, so the kernel spreads
new connections over them. A server that binds by itself (aiohttp) passes
``reuse_port=reuse_port()``; one that only takes a ready socket (PTB's webhook server) gets
``shared_socket``. They share nothing but the database: with ``--database-url postgresql://…`` a
conversation's turns may land on any process (or any machine running the same command),
and ``Storage.hold`` keeps them in order. This supervisor only starts the processes, starts
again one that dies (say killed with ``-9``: its conversations go on in the others at once),
and passes SIGINT/SIGTERM on.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType

log = logging.getLogger(__name__)
REUSE_PORT_VARIABLE = "GPU_ADVISOR_REUSE_PORT"  # set for the children: bind with SO_REUSEPORT
RESPAWN_PAUSE_S = 0.5  # a process that dies at once (a bad flag) is not restarted in a tight loop
POLL_S = 0.2


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


def serve_processes(count: int, argv: Sequence[str], what: str = "server") -> int:
    """Run ``count`` children of ``gpu-advisor <argv>`` until told to stop; 0 once they are gone."""
    command = [sys.executable, "-m", "gpu_advisor.bot.cli", *child_argv(argv)]
    env = {**os.environ, REUSE_PORT_VARIABLE: "1"}
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    children = [subprocess.Popen(command, env=env) for _ in range(count)]
    log.warning("%s: serving with %d processes: %s", what, count, [c.pid for c in children])
    while not stopping:
        time.sleep(POLL_S)
        for i, child in enumerate(children):
            if child.poll() is not None and not stopping:
                log.error("%s process %d ended (%s); starting another", what, child.pid, child.returncode)
                time.sleep(RESPAWN_PAUSE_S)
                children[i] = subprocess.Popen(command, env=env)
    for child in children:
        child.send_signal(signal.SIGTERM)
    for child in children:
        child.wait()
    return 0
