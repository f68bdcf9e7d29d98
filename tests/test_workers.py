"""Worker processes over socket pairs: answers, errors, deaths, replacement, shutdown."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable

import pytest

from gpu_advisor.bot.workers import CallTimedOut, WorkerDied, Workers


async def started(count: int = 2) -> Workers:
    workers = Workers(count, "tests.fakes.worker_setup:toy", {"prefix": "got "})
    await workers.start()
    return workers


def exited(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_calls_are_answered_by_the_worker_processes_concurrently() -> None:
    workers = await started(2)
    try:
        answers = await asyncio.gather(*(workers.call("echo", i) for i in range(50)))
        assert answers == [f"got {i}" for i in range(50)]
        pids = set(await asyncio.gather(*(workers.call("pid") for _ in range(20))))
        assert pids <= set(workers.pids) and os.getpid() not in pids
        # Two slow calls at once take one sleep, not two: the least busy worker gets the second.
        loop = asyncio.get_running_loop()
        began = loop.time()
        assert await asyncio.gather(workers.call("slow", 0.5), workers.call("slow", 0.5)) == ["late"] * 2
        assert loop.time() - began < 0.9
    finally:
        await workers.stop()


async def test_an_exception_in_the_worker_is_raised_in_the_caller_and_the_worker_carries_on() -> None:
    workers = await started(1)
    try:
        with pytest.raises(ValueError, match="refused 7"):
            await workers.call("fail", 7)
        assert await workers.call("echo", "after") == "got after"
    finally:
        await workers.stop()


async def test_a_worker_that_dies_fails_its_calls_and_is_replaced_on_start() -> None:
    workers = await started(2)
    try:
        before = set(workers.pids)
        with pytest.raises(WorkerDied):
            await workers.call("die")
        assert not workers.full and len(workers.pids) == 1
        assert await workers.call("echo", "still") == "got still"  # the survivor answers meanwhile
        await workers.start()
        assert workers.full and len(set(workers.pids) - before) == 1
    finally:
        await workers.stop()


async def test_stop_lets_every_worker_exit_cleanly() -> None:
    workers = await started(2)
    pids = workers.pids
    await workers.stop()
    assert all(exited(pid) for pid in pids)  # exited and collected: no zombies left behind
    with pytest.raises(WorkerDied):
        await workers.call("echo", 1)


async def test_a_worker_that_cannot_build_its_handler_fails_start() -> None:
    workers = Workers(1, "tests.fakes.worker_setup:broken", {})
    with pytest.raises(WorkerDied):
        await workers.start()
    await workers.stop()


async def eventually(condition: Callable[[], bool], within_s: float = 20.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition() and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return condition()


async def test_a_call_past_its_deadline_fails_and_its_worker_is_killed_and_replaced() -> None:
    workers = Workers(1, "tests.fakes.worker_setup:toy", {"prefix": "got "}, deadline_s=0.5)
    await workers.start()
    try:
        (stuck,) = workers.pids
        with pytest.raises(CallTimedOut):
            await workers.call("slow", 600)
        assert await eventually(lambda: exited(stuck))
        assert not workers.full
        await workers.start()
        assert workers.full and workers.pids != [stuck]
        assert await workers.call("echo", "after") == "got after"
    finally:
        await workers.stop()


async def test_calls_queued_behind_a_killed_call_fail_as_worker_died() -> None:
    workers = Workers(1, "tests.fakes.worker_setup:toy", {"prefix": "got "}, deadline_s=0.5)
    await workers.start()
    try:
        outcomes = await asyncio.gather(
            workers.call("slow", 600), workers.call("echo", "queued"), return_exceptions=True
        )
        assert [type(o) for o in outcomes] == [CallTimedOut, WorkerDied]
    finally:
        await workers.stop()


async def test_time_spent_queued_behind_a_slow_call_does_not_count_against_the_deadline() -> None:
    """Each call sleeps 1.2 s of a 2.5 s deadline; the second waits 1.2 s more in the queue."""
    workers = Workers(1, "tests.fakes.worker_setup:toy", {"prefix": "got "}, deadline_s=2.5)
    await workers.start()
    try:
        answers = await asyncio.gather(workers.call("slow", 1.2), workers.call("slow", 1.2))
        assert list(answers) == ["late"] * 2
    finally:
        await workers.stop()


async def test_a_broadcast_reaches_every_worker_and_each_one_started_later() -> None:
    workers = await started(2)
    try:
        await workers.broadcast("remember", "catalog v2")
        with pytest.raises(WorkerDied):
            await workers.call("die")
        await workers.start()  # the replacement hears the broadcast before it takes calls
        answers = await asyncio.gather(*(workers.call("recall") for _ in range(20)))
        assert set(answers) == {"catalog v2"}
    finally:
        await workers.stop()


async def test_an_exception_that_cannot_be_rebuilt_from_its_args_still_reaches_the_caller() -> None:
    """One whose __init__ wants two arguments pickles but does not unpickle; the caller's reader
    used to die on it, failing every other call on that worker."""
    workers = await started(1)
    try:
        with pytest.raises(RuntimeError, match="unpicklable answer"):
            await workers.call("fail_oddly")
        assert await workers.call("echo", "after") == "got after"
    finally:
        await workers.stop()
