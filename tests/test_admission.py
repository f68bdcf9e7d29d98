"""Admission control (bot.admission): a bounded, fair queue for the turn workers, and the cost cap.

The queue is driven directly with asyncio tasks; the web tests at the bottom go through a
real aiohttp server on loopback.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from gpu_advisor import locales
from gpu_advisor.bot.admission import Admission, Overloaded, cost_of
from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.context import CONTEXT
from tests.test_web_api import post

Client = TestClient[web.Request, web.Application]


async def eventually(condition: Callable[[], bool], within_s: float = 10.0) -> bool:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition() and loop.time() < deadline:
        await asyncio.sleep(0.01)
    return condition()


async def holding(admission: Admission, key: str, order: list[str], release: asyncio.Event) -> None:
    async with admission.admit(key):
        order.append(key)
        await release.wait()


async def test_a_client_over_its_share_waits_while_another_client_gets_a_worker_at_once() -> None:
    admission = Admission(slots=2)
    order: list[str] = []
    release = asyncio.Event()
    greedy = [asyncio.create_task(holding(admission, "greedy", order, release)) for _ in range(3)]
    assert await eventually(lambda: admission.depth == 2)  # one runs; half the workers is its share
    polite = asyncio.create_task(holding(admission, "polite", order, release))
    assert await eventually(lambda: "polite" in order)
    assert order == ["greedy", "polite"]
    release.set()
    await asyncio.gather(*greedy, polite)


async def test_a_freed_worker_goes_to_the_next_client_in_turn_not_the_next_request() -> None:
    admission = Admission(slots=1)
    order: list[str] = []
    gates = {name: asyncio.Event() for name in ("a1", "a2", "a3", "b1")}

    async def one(key: str, name: str) -> None:
        async with admission.admit(key):
            order.append(name)
            await gates[name].wait()

    tasks = [asyncio.create_task(one("a", n)) for n in ("a1", "a2", "a3")]
    assert await eventually(lambda: admission.depth == 2)
    tasks.append(asyncio.create_task(one("b", "b1")))
    assert await eventually(lambda: admission.depth == 3)
    for name in ("a1", "b1", "a2", "a3"):
        assert await eventually(lambda name=name: name in order)  # type: ignore[misc]
        gates[name].set()
    await asyncio.gather(*tasks)
    assert order == ["a1", "b1", "a2", "a3"]


async def test_one_client_may_queue_only_its_few_and_is_refused_at_once_past_them() -> None:
    admission = Admission(slots=1, per_client_queue=2)
    release = asyncio.Event()
    held = [asyncio.create_task(holding(admission, "a", [], release)) for _ in range(3)]
    assert await eventually(lambda: admission.depth == 2)
    with pytest.raises(Overloaded) as refused:
        async with admission.admit("a"):
            pass
    assert refused.value.reason == "client_queue_full" and refused.value.retry_after >= 1
    release.set()
    await asyncio.gather(*held)


async def test_a_full_queue_refuses_any_client_at_once() -> None:
    admission = Admission(slots=1, queue_limit=2, per_client_queue=2)
    release = asyncio.Event()
    held = [asyncio.create_task(holding(admission, k, [], release)) for k in ("a", "b", "c")]
    assert await eventually(lambda: admission.depth == 2)
    with pytest.raises(Overloaded) as refused:
        async with admission.admit("d"):
            pass
    assert refused.value.reason == "queue_full"
    release.set()
    await asyncio.gather(*held)


async def test_a_request_that_arrived_longer_ago_than_the_wait_is_refused_without_queueing() -> None:
    admission = Admission(slots=4, wait_s=1.0)
    with pytest.raises(Overloaded) as refused:
        async with admission.admit("a", arrived=admission.clock() - 1.5):
            pass
    assert refused.value.reason == "waited_too_long" and admission.running == 0


async def test_a_request_still_waiting_at_its_deadline_is_refused_and_leaves_the_queue() -> None:
    admission = Admission(slots=1, wait_s=0.3)
    release = asyncio.Event()
    held = asyncio.create_task(holding(admission, "a", [], release))
    assert await eventually(lambda: admission.running == 1)
    with pytest.raises(Overloaded) as refused:
        async with admission.admit("b"):
            pass
    assert refused.value.reason == "waited_too_long" and admission.depth == 0
    release.set()
    await held
    assert admission.running == 0


async def test_a_client_that_kept_a_worker_busy_waits_to_run_again_while_another_is_let_in_at_once() -> None:
    admission = Admission(slots=2, wait_s=5.0)
    loop = asyncio.get_running_loop()
    async with admission.admit("busy"):
        await asyncio.sleep(0.7)  # past its 0.5 s burst: 0.2 s in debt, earned back at 0.5 s a second
    start = loop.time()
    async with admission.admit("fresh"):
        fresh_waited = loop.time() - start
    start = loop.time()
    async with admission.admit("busy"):
        busy_waited = loop.time() - start
    assert fresh_waited < 0.1 and busy_waited >= 0.3


def test_a_run_of_a_character_that_normalises_to_eighteen_costs_too_much_and_ordinary_text_does_not() -> None:
    cost, allowed = cost_of("\ufdfa" * 400)  # U+FDFA spells out as 18 characters under NFKC
    assert cost == 7200 and cost > allowed
    ordinary, allowed = cost_of(("部署 13B 模型，并发 8，预算每月一万元。" * 300)[:4000])
    assert ordinary <= allowed


# --- through the web server ---------------------------------------------------------
@asynccontextmanager
async def serving(tmp_path: Path, **overrides: Any) -> AsyncIterator[Client]:
    app = build_app(WebConfig(db_path=str(tmp_path / "web.db"), **overrides))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


async def test_a_chat_too_costly_to_read_is_refused_before_a_worker_in_the_users_language(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as client:
        status, body = await post(client, "/api/chat", {"text": "\ufdfa" * 400, "lang": "en"})
    assert status == 422 and body["error"]["code"] == "too_costly" and body["error"]["field"] == "text"
    assert body["error"]["message"] == locales.t("en", "hardening.too_costly", cost=7200, allowed=6000)


async def test_an_engine_request_the_queue_cannot_take_gets_a_fast_503_with_retry_after(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, queue_limit=0) as client, AsyncExitStack() as stack:
        admission = client.app[CONTEXT].admission
        await stack.enter_async_context(admission.admit("someone else"))  # the one slot is taken
        sheet, zh = {"text": "8 × A100"}, {"Accept-Language": "zh"}
        response = await client.post("/api/analyze", json=sheet, headers=zh)
        body = await response.json()
        metrics = await (await client.get("/metrics")).text()
    assert response.status == 503 and response.headers["Retry-After"] == str(body["error"]["retry_after"])
    assert body["error"]["code"] == "overloaded"
    seconds = body["error"]["retry_after"]
    assert body["error"]["message"] == locales.t("zh", "hardening.overloaded", seconds=seconds)
    assert 'gpu_advisor_admission_rejected_total{reason="queue_full"}' in metrics


# --- a queue that follows what the workers drain (issue 41) ----------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def serve(admission: Admission, clock: Clock, requests: int, each_s: float) -> None:
    for n in range(requests):  # each from its own client: nobody runs into debt for worker time
        holder = await admission.acquire(f"served {n}")
        clock.now += each_s
        holder.release()


async def test_the_queue_holds_what_the_workers_finish_in_a_second_at_the_service_time_measured() -> None:
    fast, slow = Clock(), Clock()
    quick = Admission(slots=2, queue_limit=None, wait_s=5.0, clock=fast)
    sluggish = Admission(slots=2, queue_limit=None, wait_s=5.0, clock=slow)
    await serve(quick, fast, 200, 0.01)
    await serve(sluggish, slow, 200, 0.5)
    assert 180 <= quick.queue_limit <= 220  # 2 slots x 1 s / 10 ms
    assert sluggish.queue_limit == 32  # never below the floor


async def test_a_burst_of_fifty_waits_briefly_for_two_workers_instead_of_being_shed() -> None:
    clock = Clock()
    admission = Admission(slots=2, queue_limit=None, per_client_queue=4, clock=clock)
    await serve(admission, clock, 100, 0.01)
    release = asyncio.Event()
    burst = [asyncio.create_task(holding(admission, f"client {n}", [], release)) for n in range(50)]
    assert await eventually(lambda: admission.depth == 48)
    release.set()
    await asyncio.gather(*burst)  # none refused
    assert admission.rejected == {}


async def test_a_client_is_remembered_between_its_requests_so_one_that_used_less_goes_first() -> None:
    """The old round robin forgot a client once it had nothing running or waiting, so a client
    sending one request after another was new each time and first in line."""
    clock = Clock()
    admission = Admission(slots=1, clock=clock)
    for _ in range(3):  # heavy's requests, one after another, each finished before the next
        holder = await admission.acquire("heavy")
        clock.now += 0.05
        holder.release()
        clock.now += 1.0  # and credit earned back: only the fair share remembers it
    order: list[str] = []
    release = asyncio.Event()
    blocker = await admission.acquire("someone")
    heavy = asyncio.create_task(holding(admission, "heavy", order, release))
    assert await eventually(lambda: admission.depth == 1)
    light = asyncio.create_task(holding(admission, "light", order, release))
    assert await eventually(lambda: admission.depth == 2)
    blocker.release()
    release.set()
    await asyncio.gather(heavy, light)
    assert order == ["light", "heavy"]


async def test_a_request_the_workers_cannot_reach_before_its_deadline_is_refused_at_once() -> None:
    clock = Clock()
    admission = Admission(slots=1, queue_limit=None, wait_s=0.5, clock=clock)
    await serve(admission, clock, 100, 0.2)  # 0.2 s a request: two queued already fill the wait
    release = asyncio.Event()
    held = [asyncio.create_task(holding(admission, f"client {n}", [], release)) for n in range(3)]
    assert await eventually(lambda: admission.depth == 2)
    with pytest.raises(Overloaded) as refused:
        admission.check("late")
    assert refused.value.reason == "queue_full" and admission.queue_limit == 32  # not the size: the pace
    release.set()
    await asyncio.gather(*held)


# --- a latency target, a measured pace, and clients held to their Retry-After (issue 41) -----
async def test_a_request_the_slots_cannot_answer_within_the_latency_target_is_refused_at_arrival() -> None:
    clock = Clock()
    targeted = Admission(slots=1, queue_limit=None, wait_s=5.0, clock=clock, target_s=0.5)
    await serve(targeted, clock, 100, 0.2)  # 0.2 s a request: two waiting fill the target
    release = asyncio.Event()
    held = [asyncio.create_task(holding(targeted, f"client {n}", [], release)) for n in range(3)]
    assert await eventually(lambda: targeted.depth == 2)
    with pytest.raises(Overloaded) as refused:
        targeted.check("late")  # 0.6 s until the slot reaches it: past 0.5 s
    assert refused.value.reason == "queue_full"
    release.set()
    await asyncio.gather(*held)


async def test_without_a_latency_target_the_same_request_waits_for_its_deadline() -> None:
    clock = Clock()
    admission = Admission(slots=1, queue_limit=None, wait_s=5.0, clock=clock)
    await serve(admission, clock, 100, 0.2)
    release = asyncio.Event()
    held = [asyncio.create_task(holding(admission, f"client {n}", [], release)) for n in range(3)]
    assert await eventually(lambda: admission.depth == 2)
    admission.check("late")  # 0.6 s to the slot: well within 5 s
    release.set()
    await asyncio.gather(*held)


async def test_the_pace_is_the_time_between_completions_while_every_slot_is_busy() -> None:
    clock = Clock()
    admission = Admission(slots=2, queue_limit=None, clock=clock)
    for key in ("a", "b"):  # both slots held: saturated from now
        await admission.acquire(key)
    waiters = [asyncio.create_task(admission.acquire(f"c{n}")) for n in range(3)]
    assert await eventually(lambda: admission.depth == 3)
    assert admission.pace == pytest.approx(0.025)  # the first guess: 50 ms a slot, two slots
    for _ in range(100):  # a completion every 30 ms, the slots held 60 ms each
        clock.now += 0.03
        admission.holders[0].release()
        assert await eventually(lambda: admission.running == 2 or admission.depth == 0)
        if admission.depth == 0:
            waiters.append(asyncio.create_task(admission.acquire(f"more {len(waiters)}")))
            assert await eventually(lambda: admission.depth == 1)
    assert admission.pace == pytest.approx(0.03, rel=0.05)
    for holder in admission.holders:
        holder.release()
    for waiter in waiters:
        (await waiter).release()


async def test_a_waiter_the_slots_have_not_reached_by_the_latency_target_is_refused_then() -> None:
    loop = asyncio.get_running_loop()
    admission = Admission(slots=1, queue_limit=None, wait_s=60.0, clock=loop.time, target_s=0.3)
    holder = await admission.acquire("someone")
    started = loop.time()
    with pytest.raises(Overloaded) as refused:
        await asyncio.wait_for(admission.acquire("waiting"), 30)
    assert refused.value.reason == "waited_too_long"
    assert loop.time() - started < 30  # the target's doing, not the 60 s deadline's
    holder.release()


async def test_a_client_that_comes_back_before_its_retry_after_is_held_until_it_is_up() -> None:
    loop = asyncio.get_running_loop()
    admission = Admission(slots=1, queue_limit=0, wait_s=1.0, clock=loop.time)
    holder = await admission.acquire("someone")
    due = loop.time() + 1  # no later than the moment it is told to come back in 1 s
    with pytest.raises(Overloaded) as refused:
        admission.check("impatient")
    assert refused.value.retry_after == 1 and admission.early("impatient") > 0
    assert await admission.hold_early("impatient")
    assert loop.time() >= due and admission.early("impatient") == 0 and admission.held_early == 1
    holder.release()


async def test_a_client_never_refused_or_back_after_its_retry_after_is_not_held() -> None:
    clock = Clock()
    admission = Admission(slots=1, queue_limit=0, clock=clock)
    holder = await admission.acquire("someone")
    with pytest.raises(Overloaded) as refused:
        admission.check("patient")
    clock.now += refused.value.retry_after  # it waited as told
    assert not await admission.hold_early("patient")
    assert not await admission.hold_early("new")
    assert admission.held_early == 0
    holder.release()


async def test_over_the_web_a_client_back_too_soon_is_held_and_then_served_not_refused_again(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, queue_limit=0, queue_wait_s=1.0) as client:
        admission = client.app[CONTEXT].admission
        holder = await admission.acquire("someone else")  # the one slot
        session = {"session_id": "s" * 24}
        refused = await client.post("/api/chat/forget", json=session)
        holder.release()
        again = await client.post("/api/chat/forget", json=session)  # at once, not after Retry-After
    assert refused.status == 503 and refused.headers["Retry-After"] == "1"
    assert again.status == 204 and admission.held_early == 1


async def test_the_ready_made_503_says_the_same_as_the_error_contract(tmp_path: Path) -> None:
    async with serving(tmp_path, queue_limit=0) as client:
        holder = await client.app[CONTEXT].admission.acquire("someone else")
        response = await client.post("/api/chat", json={"text": "hi"}, headers={"Accept-Language": "en"})
        body = await response.json()
        holder.release()
    assert response.status == 503 and response.content_type == "application/json"
    assert response.headers["Retry-After"] == str(body["error"]["retry_after"])
    assert body["error"]["code"] == "overloaded" and body["error"]["field"] is None
    assert body["error"]["message"] == locales.t("en", "hardening.overloaded", seconds=2)
