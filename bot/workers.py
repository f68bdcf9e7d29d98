"""Worker processes that answer calls over a socket pair, for an asyncio program.

``concurrent.futures.ProcessPoolExecutor`` costs the calling process about 200 µs of
CPU per call (a feeder thread, a result thread and the GIL handed between them and the
event loop), more than a whole conversation turn. Here each worker is a fresh Python
process connected to the event loop by one Unix socket pair: a call is a pickled,
length-prefixed frame written to the socket, and one reader task per worker reads the
answers back; about 15 µs per call in the caller, no threads.

Workers are started with ``python -m bot.workers`` rather than forked: a forked child
would inherit the parent's SQLite connections and event loop, which neither survives.
A worker builds its handler by calling ``setup(**setup_args)`` (a ``module:function``
name and JSON arguments) and then runs ``handler(method, args)`` for each call; an
exception is sent back and raised in the caller. A worker that dies fails its pending
calls with ``WorkerDied`` and is started again on the next call. A worker leaves when
its socket closes, which also happens when the parent is killed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
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


def _frame(obj: Any) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


class _Worker:
    """One worker process and the parent's end of its socket."""

    def __init__(self, proc: asyncio.subprocess.Process, writer: asyncio.StreamWriter) -> None:
        self.proc = proc
        self.writer = writer
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.alive = True
        self.task: asyncio.Task[None] | None = None


class Workers:
    """``count`` worker processes; ``call`` goes to the least busy one."""

    def __init__(self, count: int, setup: str, setup_args: dict[str, Any]) -> None:
        self.count = count
        self.setup = setup
        self.setup_args = setup_args
        self._workers: list[_Worker] = []
        self._ids = 0
        self._starting = asyncio.Lock()

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
            await asyncio.gather(*(self._send(w, READY, ()) for w in new))

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
        for w in workers:
            if w.task is not None:
                await w.task

    async def _send(self, worker: _Worker, method: str, args: tuple[Any, ...]) -> Any:
        self._ids += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        worker.pending[self._ids] = future
        worker.writer.write(_frame((self._ids, method, args)))
        return await future

    async def _spawn(self) -> _Worker:
        parent_end, child_end = socket.socketpair()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot.workers",
                str(child_end.fileno()),
                self.setup,
                json.dumps(self.setup_args),
                pass_fds=(child_end.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
            )
        finally:
            child_end.close()
        reader, writer = await asyncio.open_unix_connection(sock=parent_end)
        worker = _Worker(proc, writer)
        worker.task = asyncio.create_task(self._read(worker, reader), name=f"worker-{proc.pid}")
        log.info("worker process %d started", proc.pid)
        return worker

    async def _read(self, worker: _Worker, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                (size,) = HEADER.unpack(await reader.readexactly(HEADER.size))
                call_id, ok, value = pickle.loads(await reader.readexactly(size))
                future = worker.pending.pop(call_id, None)
                if future is not None and not future.done():
                    future.set_result(value) if ok else future.set_exception(value)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            worker.alive = False
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
        except Exception as exc:  # an answer or an exception that cannot be pickled
            frame = _frame((call_id, False, RuntimeError(f"{method}: unpicklable answer: {exc!r}")))
        stream.write(frame)
        stream.flush()


def _load_setup(name: str) -> Callable[..., Handler]:
    module, _, function = name.partition(":")
    setup: Callable[..., Handler] = getattr(importlib.import_module(module), function)
    return setup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="a worker process (started by bot.workers.Workers)")
    parser.add_argument("fd", type=int, help="this worker's end of the socket pair")
    parser.add_argument("setup", help="module:function that returns the handler")
    parser.add_argument("args", help="the setup function's keyword arguments, as JSON")
    ns = parser.parse_args(argv)
    # Ctrl-C reaches the whole process group; the parent stops its workers by closing the socket.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=os.environ.get("GPU_ADVISOR_WORKER_LOG", "WARNING"))
    sock = socket.socket(fileno=ns.fd)
    serve(sock, _load_setup(ns.setup)(**json.loads(ns.args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
