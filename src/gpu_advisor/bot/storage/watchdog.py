"""A client-side deadline for PostgreSQL statements: a hung server must not hang the caller.

When the server's processes stop (SIGSTOP, a frozen VM, a stuck storage layer) the kernel still
acknowledges TCP, so neither ``connect_timeout`` (the connection already exists),
``tcp_user_timeout``, keepalives nor the server's own ``statement_timeout`` fire: a synchronous
psycopg call simply waits. Measured before this: a readiness probe blocked 12.7 s and a chat
turn failed with a 500 after 10 s while the server was stopped for 12 s.

A ``Watchdog`` is one daemon thread per store that looks at the running statement's deadline a
few times a second and, when it has passed, shuts the connection's socket down. The blocked
call then returns at once with psycopg's "server closed the connection" ``OperationalError``,
which the store reports as ``StorageUnavailable`` (a 503 with Retry-After on the web), and the
next call opens a fresh connection. Arming costs two attribute writes, no lock and no thread per
statement, so it stays out of the per-turn cost.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator

POLL_S = 0.1


class Watchdog:
    """Cuts the socket that ``fileno()`` names when an armed block outlives its deadline."""

    def __init__(self, fileno: Callable[[], int | None]) -> None:
        self._fileno = fileno
        self._deadline: float | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.cuts = 0

    @contextlib.contextmanager
    def armed(self, seconds: float) -> Iterator[None]:
        """The block must finish within ``seconds``; an enclosing armed block keeps its own deadline."""
        if self._deadline is not None:  # nested: the outer deadline already covers this block
            yield
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="pg-watchdog", daemon=True)
            self._thread.start()
        self._deadline = time.monotonic() + seconds
        try:
            yield
        finally:
            self._deadline = None

    def rearm(self, seconds: float) -> None:
        """A new deadline ``seconds`` from now, whether or not one is set (``disarm`` ends it)."""
        self._deadline = time.monotonic() + seconds

    def disarm(self) -> None:
        self._deadline = None

    def stop(self) -> None:
        """The thread leaves at its next look (a store closed, a one-off probe done)."""
        self._stopped = True
        self._deadline = None

    def _watch(self) -> None:
        while not self._stopped:
            time.sleep(POLL_S)
            deadline = self._deadline
            if deadline is not None and time.monotonic() > deadline:
                self._cut()

    def _cut(self) -> None:
        fd = self._fileno()
        if fd is None or fd < 0:
            return
        try:
            dup = os.dup(fd)
        except OSError:
            return
        with socket.socket(fileno=dup) as sock, contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # the other descriptor (libpq's) sees end of file
        self.cuts += 1
        self._deadline = None
