"""Worker processes that answer calls over a socket pair, for an asyncio program.

``concurrent.futures.ProcessPoolExecutor`` costs the calling process about 200 µs of
CPU per call (a feeder thread, a result thread and the GIL handed between them and the
event loop), more than a whole conversation turn. Here each worker is a fresh Python
process connected to the event loop by one Unix socket pair: a call is a pickled,
length-prefixed frame written to the socket, and one reader task per worker reads the
answers back; about 15 µs per call in the caller, no threads.

Workers are started with ``python -m gpu_advisor.bot.workers`` rather than forked: a forked child
would inherit the parent's SQLite connections and event loop, which neither survives.
A worker builds its handler by calling ``setup(**setup_args)`` (a ``module:function``
name and JSON arguments) and then runs ``handler(method, args)`` for each call; an
exception is sent back and raised in the caller. A worker that dies fails its pending
calls with ``WorkerDied`` and is started again on the next call. A worker leaves when
its socket closes, which also happens when the parent is killed.

The setup name and arguments go to the worker as the first frame on its socket, never on
its command line, where ``ps`` would show a database password to every user of the host.

With a ``deadline_s``, a call that runs longer is failed with ``CallTimedOut`` and its
worker is killed (a pure-Python loop cannot be interrupted any other way). A worker runs
its calls one at a time, in the order sent, so a call's clock starts when the answer
before it arrives: time spent queued behind a slow call does not count against it. The
calls queued behind the killed one fail with ``WorkerDied``; the caller may send them again.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import logging
import os
import pickle
import signal
import socket
import struct
import sys
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)
Handler = Callable[[str, tuple[Any, ...]], Any]
HEADER = struct.Struct("!I")
READY = "__ready__"
EXIT_WAIT_S = 5.0


class WorkerDied(RuntimeError):
    """The worker process ended before it answered."""


class CallTimedOut(RuntimeError):
    """The call ran past the deadline; its worker was killed."""


def _frame(obj: Any) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


class _Worker:
    """One worker process and the parent's end of its socket."""

    def __init__(self, proc: asyncio.subprocess.Process, writer: asyncio.StreamWriter) -> None:
        self.proc = proc
        self.writer = writer
        self.pending: dict[int, asyncio.Future[Any]] = {}  # in the order sent, the running one first
        self.untimed: set[int] = set()  # READY: building the handler may take longer than a call
        self.alive = True
        self.task: asyncio.Task[None] | None = None
        self.timer: asyncio.TimerHandle | None = None


class Workers:
    """``count`` worker processes; ``call`` goes to the least busy one."""

    def __init__(
        self, count: int, setup: str, setup_args: dict[str, Any], deadline_s: float | None = None
    ) -> None:
        self.count = count
        self.setup = setup
        self.setup_args = setup_args
        self.deadline_s = deadline_s
        self._workers: list[_Worker] = []
        self._ids = 0
        self._starting = asyncio.Lock()
        self._broadcast: dict[str, tuple[Any, ...]] = {}
        self._readers: set[asyncio.Task[None]] = set()

    @property
    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers if w.alive]

    @property
    def full(self) -> bool:
        """Every worker is running (a dead one is replaced by ``start``)."""
        return sum(w.alive for w in self._workers) == self.count

    async def start(self) -> None:
        """Start the missing workers and wait until each has built its handler."""
        async with self._starting:
            self._workers = [w for w in self._workers if w.alive]
            new = [await self._spawn() for _ in range(self.count - len(self._workers))]
            self._workers += new  # listed at once, so that stop() collects one that fails to start
            await asyncio.gather(*(self._greet(w) for w in new))

    async def broadcast(self, method: str, *args: Any) -> None:
        """Run ``method`` in every worker now and in every worker started later (the latest
        call per method is kept): state that every worker must share, such as a new catalog."""
        self._broadcast[method] = args
        await asyncio.gather(*(self._send(w, method, args) for w in self._workers if w.alive))

    async def call(self, method: str, *args: Any) -> Any:
        """Run ``method`` in the least busy worker; ``WorkerDied`` if none is running or it dies."""
        alive = [w for w in self._workers if w.alive]
        if not alive:
            raise WorkerDied("no worker process is running")
        return await self._send(min(alive, key=lambda w: len(w.pending)), method, args)

    async def stop(self) -> None:
        """Close every socket (a worker leaves when it reads the end) and collect the processes."""
        workers, self._workers = self._workers, []
        for w in workers:
            w.writer.close()
        if self._readers:  # killed workers already dropped from the list are collected too
            await asyncio.wait(set(self._readers))

    async def _greet(self, worker: _Worker) -> None:
        await self._send(worker, READY, (), timed=False)
        for method, args in self._broadcast.items():
            await self._send(worker, method, args)

    async def _send(self, worker: _Worker, method: str, args: tuple[Any, ...], timed: bool = True) -> Any:
        self._ids += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        worker.pending[self._ids] = future
        if not timed:
            worker.untimed.add(self._ids)
        worker.writer.write(_frame((self._ids, method, args)))
        if len(worker.pending) == 1:
            self._arm(worker)
        return await future

    def _arm(self, worker: _Worker) -> None:
        """Start the deadline of the call the worker is running now: the first one pending."""
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None
        if self.deadline_s is None or not worker.pending or not worker.alive:
            return
        call_id = next(iter(worker.pending))
        if call_id not in worker.untimed:
            loop = asyncio.get_running_loop()
            worker.timer = loop.call_later(self.deadline_s, self._expire, worker, call_id)

    def _expire(self, worker: _Worker, call_id: int) -> None:
        """Fail the overdue call and kill its worker; the reader task fails the calls queued behind it."""
        future = worker.pending.pop(call_id, None)
        if future is None:
            return
        if not future.done():
            future.set_exception(CallTimedOut(f"no answer within {self.deadline_s:g} s"))
        log.warning("worker process %d ran one call past %g s; killing it", worker.proc.pid, self.deadline_s)
        worker.alive = False  # no new calls go to it
        with contextlib.suppress(ProcessLookupError):
            worker.proc.kill()

    async def _spawn(self) -> _Worker:
        parent_end, child_end = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "gpu_advisor.bot.workers",
                str(child_end.fileno()),
                pass_fds=(child_end.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
            )
        finally:
            child_end.close()
        reader, writer = await asyncio.open_unix_connection(sock=parent_end)
        writer.write(_frame((self.setup, self.setup_args)))  # the settings, over the pipe
        worker = _Worker(proc, writer)
        worker.task = asyncio.create_task(self._read(worker, reader), name=f"worker-{proc.pid}")
        self._readers.add(worker.task)
        worker.task.add_done_callback(self._readers.discard)
        log.info("worker process %d started", proc.pid)
        return worker

    async def _read(self, worker: _Worker, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
                call_id, ok, value = pickle.loads(await reader.readexactly(size))
                future = worker.pending.pop(call_id, None)
                worker.untimed.discard(call_id)
                self._arm(worker)
                if future is not None and not future.done():
                    future.set_result(value) if ok else future.set_exception(value)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            worker.alive = False
            if worker.timer is not None:
                worker.timer.cancel()
            for future in worker.pending.values():
                if not future.done():
                    future.set_exception(WorkerDied(f"worker process {worker.proc.pid} ended"))
            worker.pending.clear()
            worker.writer.close()
            await _collect(worker.proc)


async def _collect(proc: asyncio.subprocess.Process) -> None:
    """Wait for the exit status (no zombies); a worker that will not leave is killed."""
    try:
        await asyncio.wait_for(proc.wait(), EXIT_WAIT_S)
    except TimeoutError:
        log.warning("worker process %d did not leave; killing it", proc.pid)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
    if proc.returncode:
        log.warning("worker process %d exited with %s", proc.pid, proc.returncode)


# --- the worker side -----------------------------------------------------------------
def serve(sock: socket.socket, handler: Handler) -> None:
    """Answer calls until the socket closes."""
    stream = sock.makefile("rwb")
    while header := stream.read(HEADER.size):
        (size,) = HEADER.unpack(header)
        call_id, method, args = pickle.loads(stream.read(size))
        try:
            answer = (call_id, True, None if method == READY else handler(method, args))
        except Exception as exc:  # the caller gets it raised; the worker carries on
            answer = (call_id, False, exc)
        try:
            frame = _frame(answer)
            if not answer[1]:  # an exception must also be rebuilt from its args in the caller
                pickle.loads(frame[HEADER.size :])
        except Exception as exc:  # an answer or an exception that cannot be pickled
            frame = _frame((call_id, False, RuntimeError(f"{method}: unpicklable answer: {exc!r}")))
        try:
            stream.write(frame)
            stream.flush()
        except (BrokenPipeError, ConnectionResetError):  # the parent is gone (killed): leave quietly
            return


def _read_setup(sock: socket.socket) -> tuple[str, dict[str, Any]]:
    """The first frame: the setup function's name and its keyword arguments."""
    (size,) = HEADER.unpack(sock.recv(HEADER.size, socket.MSG_WAITALL))
    setup, setup_args = pickle.loads(sock.recv(size, socket.MSG_WAITALL))
    return str(setup), dict(setup_args)


def _load_setup(name: str) -> Callable[..., Handler]:
    module, _, function = name.partition(":")
    setup: Callable[..., Handler] = getattr(importlib.import_module(module), function)
    return setup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="a worker process (started by bot.workers.Workers)")
    parser.add_argument("fd", type=int, help="this worker's end of the socket pair")
    ns = parser.parse_args(argv)
    # Ctrl-C reaches the whole process group; the parent stops its workers by closing the socket.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from gpu_advisor.bot.logs import configure

    # The parent's format ($GPU_ADVISOR_LOG_FORMAT, inherited): a worker's traceback is one JSON line too.
    environ = os.environ
    configure(environ.get("GPU_ADVISOR_LOG_FORMAT", "text"), environ.get("GPU_ADVISOR_WORKER_LOG", "WARNING"))
    sock = socket.socket(fileno=ns.fd)
    setup, setup_args = _read_setup(sock)
    serve(sock, _load_setup(setup)(**setup_args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
