"""A worker slot is given back exactly once, whatever ends the request (issue 40).

The admission queue once leaked a slot when a waiter's deadline fired while a finishing
request handed its slot on: the waiter's future was cancelled but still queued, the slot
was counted as granted, ``set_result`` raised, and nobody gave the slot back. Two such
leaks with two workers and the process refused every turn, for ever. These tests drive
the real class: first the exact race, then random arrivals, holds, deadlines and
cancellations on an event loop whose clock the test moves, checking after every step that
the slots held are the requests inside their block and that nothing done stays queued.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_advisor.bot.admission import Admission, Overloaded


async def settle(rounds: int = 8) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


async def test_a_waiter_cancelled_in_the_queue_as_a_slot_frees_does_not_take_the_slot_with_it() -> None:
    admission = Admission(slots=1, wait_s=5.0)
    first = await admission.acquire("a")
    waiter = asyncio.create_task(admission.acquire("b"))
    await settle()
    assert admission.depth == 1
    waiter.cancel()  # what a deadline or a disconnect does: the queued future is cancelled at once...
    first.release()  # ...and before the waiter runs again, the finishing request hands its slot on
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert admission.running == 0 and admission.depth == 0
    late = await asyncio.wait_for(admission.acquire("c"), 0.5)  # the slot is free for the next one
    assert admission.holders == [late]


async def test_a_waiter_granted_just_as_it_was_cancelled_gives_the_slot_back() -> None:
    admission = Admission(slots=1, wait_s=5.0)
    first = await admission.acquire("a")
    waiter = asyncio.create_task(admission.acquire("b"))
    await settle()
    first.release()  # granted to the waiter, which has not run yet...
    waiter.cancel()  # ...and goes away before it could use the slot
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert admission.running == 0 and admission.depth == 0


async def test_releasing_twice_gives_back_one_slot() -> None:
    admission = Admission(slots=2)
    one, two = await admission.acquire("a"), await admission.acquire("b")
    assert one.release() and not one.release()
    assert admission.holders == [two]


# --- random schedules ----------------------------------------------------------------
class SteppedLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock moves only when the test says so: deadlines fire on demand."""

    now = 1000.0

    def time(self) -> float:
        return self.now


@dataclass
class Request:
    task: asyncio.Task[None]
    done: asyncio.Event = field(default_factory=asyncio.Event)
    inside: bool = False


Step = tuple[str, int]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("arrive"), st.integers(0, 4)),  # a request of one of five clients
        st.tuples(st.just("finish"), st.integers(0, 40)),  # the n-th request ends its turn
        st.tuples(st.just("cancel"), st.integers(0, 40)),  # the n-th request's client goes away
        st.tuples(st.just("wait"), st.integers(1, 30)),  # tenths of a second pass
    ),
    max_size=60,
)


async def play(schedule: list[Step], slots: int) -> None:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, SteppedLoop)
    admission = Admission(slots=slots, queue_limit=6, per_client_queue=3, wait_s=1.0, clock=loop.time)
    requests: list[Request] = []

    async def one(request: Request, key: int) -> None:
        try:
            async with admission.admit(key):
                request.inside = True
                try:
                    await request.done.wait()
                finally:
                    request.inside = False
        except Overloaded:
            pass

    def check() -> None:
        inside = sum(r.inside for r in requests)
        assert admission.running == inside <= admission.slots
        assert all(h.live for h in admission.holders)
        assert admission._held == dict(Counter(h.key for h in admission.holders))  # kept with the registry
        assert set(admission._turns) == set(admission._waiting)  # the serving order knows every waiter
        queued = [f for q in admission._waiting.values() for f in q]
        assert not any(f.done() for f in queued), "a done future is still queued"
        waiting = sum(1 for r in requests if not r.task.done() and not r.inside)
        assert admission.depth == len(queued) == waiting

    for action, n in schedule:
        if action == "arrive":
            request = Request(asyncio.ensure_future(asyncio.sleep(0)))  # replaced just below
            request.task = asyncio.create_task(one(request, n))
            requests.append(request)
        elif action == "wait":
            loop.now += n / 10
        elif requests:
            request = requests[n % len(requests)]
            request.done.set() if action == "finish" else request.task.cancel()
        await settle()
        check()
    for request in requests:
        request.done.set()
    loop.now += 10  # past every deadline and every client's debt for worker time
    await settle(20)
    check()
    assert admission.running == 0 and admission.depth == 0
    await asyncio.wait_for(admission.acquire("after"), 0.1)  # every slot came back


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedule=steps, slots=st.integers(1, 3))
def test_whatever_ends_a_request_the_slots_held_are_the_requests_inside(
    schedule: list[Step], slots: int
) -> None:
    with asyncio.Runner(loop_factory=SteppedLoop) as runner:
        runner.run(play(schedule, slots))
