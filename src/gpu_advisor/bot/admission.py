"""Admission control in front of the turn workers: a bounded, fair queue, one per process.

Why: the workers run turns one at a time each, and before this the calls waiting for them
queued without bound, first come first served, their deadline starting only when a worker
took them. One client with sixteen connections sending slow-but-valid messages kept every
worker busy and pushed everybody else's ordinary chat from tens of milliseconds to tens of
seconds. The rules, the way a service that shares a scarce resource applies them:

- **Slots**: at most ``slots`` requests (one per turn worker) run at once; the rest wait.
- **A share per client**: one client key (a web client's network, a Telegram chat, a Discord
  user) holds at most ``per_client`` slots (half of them, at least one), so another
  client always finds a worker when there are two or more.
- **Fair shares over a window**: a freed slot goes to the waiting *client* that has used
  the least worker time lately (decayed with a half-life of ``FAIR_HALF_LIFE_S``), not to
  the next request, and a client is remembered between its requests: one that sends its
  requests one after another is not new each time.
- **Bounded**: at most ``queue_limit`` requests wait, and at most ``per_client_queue`` of
  one client; past either the request is refused at once (``Overloaded``). With
  ``queue_limit=None`` the bound follows what the workers drain: as many requests as
  ``slots`` workers finish within ``DRAIN_S`` at the measured service time, so a burst waits
  briefly instead of being shed, and no request admitted to the queue waits much longer than
  that (issue 41: p99 within a second under a thousand chats); a request the slots cannot
  reach before its deadline at that pace is refused at once rather than after waiting.
- **Deadline from arrival**: a request that has waited ``wait_s`` since it *arrived* is
  refused rather than answered late (the web answers 503 with ``Retry-After``).
- **A latency target** (``target_s``, the web's 0.8 s): a request is admitted to the queue only
  when the slots will reach it within the target at the *pace* measured (the
  interval between completions while every slot is busy, which counts the event loop's own
  time between turns, not only the workers'); the rest are refused at arrival, at once, rather
  than answered late (issue 41: p99 of answered turns within a second under a thousand chats);
  and one that the slots have still not reached by then (the pace slowed: the machine's other
  work) is refused then, not answered late.
- **Retry-After is kept for the client** (``hold_early``): a client refused and told to come back
  in N seconds that sends again sooner is held, on a timer that costs no CPU, until its N seconds
  are up, and then admitted or refused like any arrival. A client that honours Retry-After is
  recognisable only by its behaviour; one that does not would otherwise turn each refusal into
  another request at once, and a thousand of them spend the cores (theirs and ours) on refusals
  while the workers starve.

**Exactly once** (issue 40). A grant is a ``Holder`` kept in one registry; ``running`` is
the number of live holders, never a separate count. Whether a waiter is granted, timed out
or cancelled is decided by its future, in one callback that never awaits: ``_dispatch``
skips a future already done (cancelled by a client that went away), the deadline's timer
fails only a future not yet granted, and a waiter that finds itself granted as it gives up
releases the holder it was given. ``Holder.release`` is idempotent, and ``reclaim`` (the
watchdog) releases holders whose task has ended or that were held past ``hard_limit_s``,
so no slot is lost even to a bug elsewhere.

What a request costs is measured before it queues (``cost_of``): a message is read after
Unicode compatibility normalisation, which turns one character into up to eighteen (U+FDFA),
and the parser's time grows with the normalised length. A surface refuses a message
whose normalised form is more than ``COST_FACTOR`` times the characters the dialog keeps.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import math
import random
import time
import unicodedata
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Hashable
from contextlib import asynccontextmanager
from typing import Literal

from gpu_advisor.bot import metrics
from gpu_advisor.bot.dialog.limits import limit_of

log = logging.getLogger(__name__)
Reason = Literal["queue_full", "client_queue_full", "waited_too_long"]
# The parser spends about 10 µs per normalised character (measured on a 2-core CI machine:
# 4,000 ordinary characters 47 ms, U+FDFA × 666 = 11,988 normalised characters 114 ms), so
# 1.5 × the 4,000 characters a chat keeps bounds a turn near 60 ms.
COST_FACTOR = 1.5
# One client may keep its share of the workers busy DUTY of the time, after a burst of BURST_S
# worker-seconds: a person's turns (milliseconds, seconds apart) never meet the limit; a flood of
# slow ones runs at half speed, leaving CPU for everybody else.
DUTY = 0.5
BURST_S = 0.5
RETRY_AFTER_S = 2
# Fair shares: the worker time a client used counts half after this many seconds, so a client
# that ran a slow turn a moment ago waits behind one that ran nothing, but not for ever.
FAIR_HALF_LIFE_S = 10.0
REMEMBERED = 10_000  # clients whose usage is kept (least recently seen forgotten first)
# The drained queue: the service time assumed until one is measured (a turn is tens of ms), the
# weight of each new measurement, and the bounds of the automatic limit.
FIRST_SERVICE_S = 0.05
SERVICE_WEIGHT = 0.05
DRAIN_S = 1.0  # the queue holds what the slots finish in this long (never more than the wait)
MIN_QUEUE, MAX_QUEUE = 32, 4096
PACE_WEIGHT = 0.05  # the weight of each new interval between completions, measured while saturated
MAX_HELD = 4096  # requests held until their Retry-After at once; past it one is refused at once


class Overloaded(Exception):
    """Refused by admission control; ``retry_after`` is the seconds to wait before trying again."""

    def __init__(self, reason: Reason, retry_after: int = RETRY_AFTER_S) -> None:
        super().__init__(reason)
        self.reason, self.retry_after = reason, retry_after


def cost_of(text: str, limit: int | None = None) -> tuple[int, int]:
    """(normalised characters of what is read, the most allowed): a message's price.

    ``limit``: the characters the reader keeps; by default what the dialog keeps of a chat message.
    """
    limit = limit_of(text) if limit is None else limit
    return len(unicodedata.normalize("NFKC", text[:limit])), math.floor(limit * COST_FACTOR)


def too_costly(text: str | None, limit: int | None = None) -> tuple[int, int] | None:
    """(cost, allowed) when ``text`` costs more than a turn may; None when it may run."""
    if text is None:
        return None
    cost, allowed = cost_of(text, limit)
    return (cost, allowed) if cost > allowed else None


class Holder:
    """One granted slot: who holds it, since when, in which task. ``release`` gives it back once."""

    __slots__ = ("_admission", "key", "since", "task")

    def __init__(
        self, admission: Admission, key: Hashable, since: float, task: asyncio.Task[object] | None
    ) -> None:
        self._admission, self.key, self.since, self.task = admission, key, since, task

    @property
    def live(self) -> bool:
        return self in self._admission._holders

    def release(self) -> bool:
        """Give the slot back; False (and nothing done) if it was already given back."""
        return self._admission._release(self)


class Admission:
    """``admit(key)`` holds one of ``slots`` for the block, fairly across keys (module docstring)."""

    def __init__(
        self,
        slots: int,
        queue_limit: int | None = 32,
        per_client_queue: int = 4,
        wait_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        hard_limit_s: float | None = None,
        target_s: float | None = None,
    ) -> None:
        self.slots = max(1, slots)
        self.per_client = max(1, self.slots // 2)
        self.fixed_queue, self.per_client_queue, self.wait_s = queue_limit, per_client_queue, wait_s
        self.clock = clock
        # Past this a holder is lost (its turn has a shorter deadline): the watchdog takes it back.
        self.hard_limit_s = hard_limit_s if hard_limit_s is not None else 3 * wait_s + 10.0
        self._holders: dict[Holder, None] = {}  # insertion-ordered set: the registry of grants
        self._held: dict[Hashable, int] = {}  # live holders by key, kept with the registry
        self._waiting: dict[Hashable, deque[asyncio.Future[Holder]]] = {}
        self._depth = 0  # futures in ``_waiting``
        # The waiting clients in the order they are served: a heap of (slots held, fair-share
        # rank, arrival) with lazy deletion (``_turns[key]`` is a key's one valid entry), so a
        # freed slot finds its client in O(log n) with a thousand waiting, not by a scan.
        self._heap: list[tuple[int, float, int, Hashable]] = []
        self._turns: dict[Hashable, tuple[int, float, int, Hashable]] = {}
        self._seq = itertools.count()
        # Worker time: each client earns DUTY × per_client slot-seconds a second, up to BURST_S,
        # and spends what its requests hold; one in debt waits until it has earned it back.
        self._credit: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()  # (seconds, as of)
        self._usage: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()  # decayed seconds, as of
        self._timer: asyncio.TimerHandle | None = None
        self.service_s = FIRST_SERVICE_S  # a slot's mean time per request, measured
        # Admitted to wait only if answered within this at the pace (None: within the deadline).
        self.target_s = target_s
        self._pace: float | None = None  # seconds between completions while every slot is busy
        self._busy_since: float | None = None  # the last completion (or start) of a saturated stretch
        # Clients told Retry-After: when each may come back (the oldest first), and the requests
        # held until then now.
        self._told: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()  # (due, held until)
        self.holding = 0
        self.held_early = 0  # requests held until their Retry-After, since start
        self.rejected: dict[str, int] = {}
        self.reclaimed = 0

    # --- what it shows --------------------------------------------------------------
    @property
    def depth(self) -> int:
        """Requests waiting for a slot now."""
        return self._depth

    @property
    def running(self) -> int:
        """Slots held now: the live holders."""
        return len(self._holders)

    @property
    def holders(self) -> list[Holder]:
        return list(self._holders)

    @property
    def pace(self) -> float:
        """Seconds between completions with every slot busy: measured once the slots have been
        saturated, until then the service time shared among the slots."""
        return self._pace if self._pace is not None else self.service_s / self.slots

    @property
    def queue_limit(self) -> int:
        """The most requests that may wait: fixed, or what the slots drain in ``DRAIN_S``."""
        if self.fixed_queue is not None:
            return self.fixed_queue
        drained = min(DRAIN_S, self.wait_s) / max(self.pace, 1e-4)
        return int(min(MAX_QUEUE, max(MIN_QUEUE, drained)))

    def _drained_in(self) -> float:
        """Seconds until the slots reach a request queued now, at the pace measured."""
        return (self.depth + 1) * self.pace

    def stalled(self, held_s: float) -> bool:
        """Every slot has been held longer than ``held_s``: no new request can start (readiness)."""
        now = self.clock()
        return self.running >= self.slots and all(now - h.since > held_s for h in self._holders)

    # --- the entry --------------------------------------------------------------------
    @asynccontextmanager
    async def admit(self, key: Hashable, arrived: float | None = None) -> AsyncIterator[Holder]:
        """Wait for a slot (``Overloaded`` if refused); ``arrived`` is when the request came in."""
        holder = await self.acquire(key, arrived)
        try:
            yield holder
        finally:
            holder.release()

    def check(self, key: Hashable, arrived: float | None = None) -> None:
        """Raise ``Overloaded`` now if a request of ``key`` would be refused at once: a surface
        calls this before it reads the request, so a refusal costs next to nothing."""
        if (reason := self._refusal(key, self.clock() if arrived is None else arrived)) is not None:
            raise self._refuse(reason, key)

    async def acquire(self, key: Hashable, arrived: float | None = None) -> Holder:
        """A slot for ``key``: its holder, to ``release`` when done (``admit`` does it for you)."""
        arrived = self.clock() if arrived is None else arrived
        if (reason := self._refusal(key, arrived)) is not None:
            raise self._refuse(reason, key)
        if self.running < self.slots and self._eligible(key):
            return self._grant(key)  # a free slot means nobody eligible waits (``_dispatch``)
        return await self._wait(key, self._budget(key, arrived))

    def _refusal(self, key: Hashable, arrived: float) -> Reason | None:
        if arrived + self.wait_s - self.clock() <= 0:
            return "waited_too_long"
        if self.running < self.slots and self._eligible(key):
            return None
        if self.depth >= self.queue_limit:
            return "queue_full"
        if self.fixed_queue is None and self._drained_in() > self._budget(key, arrived):
            return "queue_full"  # the workers cannot reach it in time: say so now, not late
        if len(self._waiting.get(key, ())) >= self.per_client_queue:
            return "client_queue_full"
        return None

    def _budget(self, key: Hashable, arrived: float) -> float:
        """The longest a request that arrived then may still wait for a slot: until its deadline,
        and no longer than the latency target after it arrived, plus the wait its own client owes
        for worker time it overspent (that wait is the client's, not the queue's)."""
        deadline = arrived + self.wait_s
        if self.target_s is not None:
            owed = max(0.0, -self._balance(key)) / (DUTY * self.per_client)
            deadline = min(deadline, arrived + self.target_s + owed)
        return deadline - self.clock()

    # --- clients that come back before their Retry-After ---------------------------------
    def early(self, key: Hashable) -> float:
        """Seconds ``key`` is held if it comes now: 0 unless it was refused and its Retry-After
        is not up yet; then until that is up and a random share of it more (``_tell``)."""
        told = self._told.get(key)
        if told is None:
            return 0.0
        due, until = told
        now = self.clock()
        if now >= due:
            del self._told[key]
            return 0.0
        return until - now

    async def hold_early(self, key: Hashable) -> bool:
        """Hold a request of a client that came back before its Retry-After until that is up
        (a timer: no CPU while it waits); True if it was held. Past ``MAX_HELD`` held at once,
        False: the surface refuses it at once instead."""
        told = self._told.get(key)
        if told is None or self.early(key) <= 0 or self.holding >= MAX_HELD:
            return False
        self.holding += 1
        self.held_early += 1
        try:
            while (left := told[1] - self.clock()) > 0:  # a timer may ring a hair early
                await asyncio.sleep(left)
        finally:
            self.holding -= 1
        return True

    def _tell(self, key: Hashable, retry_after: float) -> None:
        """Remember that ``key`` was told to come back in ``retry_after`` seconds, and until when
        to hold it if it comes sooner: up to half as long again, at random, so that the clients
        refused together in a burst are not let go together, all but a few to be refused again
        while the workers, having drained the few, sit idle until the next wave."""
        now = self.clock()
        due = now + retry_after
        self._told[key] = (due, due + retry_after * random.random() / 2)
        self._told.move_to_end(key)
        while self._told:  # forget those whose time is up, oldest first, and past REMEMBERED
            oldest, (first_due, _) = next(iter(self._told.items()))
            if first_due > now and len(self._told) <= REMEMBERED:
                break
            del self._told[oldest]

    async def _wait(self, key: Hashable, left: float) -> Holder:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Holder] = loop.create_future()
        self._waiting.setdefault(key, deque()).append(future)
        self._depth += 1
        if key not in self._turns:
            self._place(key)
        expiry = loop.call_later(left, self._expire, key, future)
        self._show()
        try:
            holder = await future
        except BaseException:
            # Cancelled (the client went away) or refused by ``_expire``. A grant that raced the
            # cancellation is in the future's result: give it back, so no slot is ever lost.
            if future.done() and not future.cancelled() and future.exception() is None:
                future.result().release()
            else:
                future.cancel()
                self._drop(key, future)
            raise
        finally:
            expiry.cancel()
        holder.task = asyncio.current_task()  # the watchdog's sign that the request is still alive
        return holder

    def _expire(self, key: Hashable, future: asyncio.Future[Holder]) -> None:
        """The deadline: refuse the waiter, unless it has been granted already (one decision)."""
        if future.done():
            return
        self._drop(key, future)
        future.set_exception(self._refuse("waited_too_long", key))

    # --- granting and releasing -------------------------------------------------------
    def _grant(self, key: Hashable, queued: bool = False) -> Holder:
        """A holder for ``key``; a queued waiter's task is set when it wakes (``_wait``)."""
        holder = Holder(self, key, self.clock(), None if queued else asyncio.current_task())
        self._holders[holder] = None
        self._held[key] = self._held.get(key, 0) + 1
        if self._busy_since is None and self.running >= self.slots:
            self._busy_since = holder.since  # a saturated stretch begins: completions are paced
        if key in self._turns:
            self._place(key)
        return holder

    def _release(self, holder: Holder) -> bool:
        if holder not in self._holders:
            return False
        del self._holders[holder]
        key = holder.key
        if self._held[key] <= 1:
            del self._held[key]
        else:
            self._held[key] -= 1
        now = self.clock()
        held = now - holder.since
        self._spend(key, held)
        if key in self._turns:
            self._place(key)
        self.service_s += SERVICE_WEIGHT * (held - self.service_s)
        if self._busy_since is not None:  # every slot was busy since the last completion
            interval = now - self._busy_since
            self._pace = self.pace + PACE_WEIGHT * (interval - self.pace)  # from the service time at first
        self._dispatch()
        # Still saturated: the next completion is timed from this one; otherwise the stretch ends.
        self._busy_since = now if self.running >= self.slots else None
        return True

    def held_by(self, key: Hashable) -> int:
        return self._held.get(key, 0)

    def reclaim(self) -> int:
        """The watchdog's sweep: release holders whose task has ended without releasing, or held
        past ``hard_limit_s``; the number released. Normal code never leaves one behind."""
        now = self.clock()
        lost = [
            h
            for h in self._holders
            if (h.task is not None and h.task.done()) or now - h.since > self.hard_limit_s
        ]
        for holder in lost:
            holder.release()
        if lost:
            self.reclaimed += len(lost)
            metrics.ADMISSION_RECLAIMED.inc(len(lost))
            log.warning("admission: took back %d slot(s) held by ended or overdue requests", len(lost))
        return len(lost)

    def _next(self) -> Hashable | None:
        """The waiting client holding the fewest slots, then the one that used the least worker
        time lately, then the one waiting longest; None if every waiting client holds its share
        or is in debt."""
        found: Hashable | None = None
        passed: list[tuple[int, float, int, Hashable]] = []
        while self._heap:
            entry = self._heap[0]
            key = entry[3]
            if self._turns.get(key) is not entry:  # superseded or no longer waiting
                heapq.heappop(self._heap)
                continue
            if self._eligible(key):
                found = key
                break
            passed.append(heapq.heappop(self._heap))
        for entry in passed:
            heapq.heappush(self._heap, entry)
        return found

    def _place(self, key: Hashable) -> None:
        """(Re)enter a waiting key in the serving order, as it stands now."""
        entry = (self._held.get(key, 0), self._rank(key), next(self._seq), key)
        self._turns[key] = entry
        heapq.heappush(self._heap, entry)
        if len(self._heap) > 4 * len(self._turns) + 64:  # too many stale entries: rebuild
            self._heap = list(self._turns.values())
            heapq.heapify(self._heap)

    def _rank(self, key: Hashable) -> float:
        """Orders clients as their decayed usage does, at any instant: usage decays by the same
        factor for everybody, so log2(seconds) + since / half-life never needs recomputing."""
        seconds, since = self._usage.get(key, (0.0, 0.0))
        return math.log2(seconds) + since / FAIR_HALF_LIFE_S if seconds > 0 else -math.inf

    def _eligible(self, key: Hashable) -> bool:
        """Under its share of the slots and not in debt for worker time."""
        if self.held_by(key) >= self.per_client:
            return False
        debt = -self._balance(key)
        if debt > 0:
            self._wake_in(debt / (DUTY * self.per_client))
        return debt <= 0

    def _balance(self, key: Hashable) -> float:
        seconds, since = self._credit.get(key, (BURST_S, 0.0))
        return min(BURST_S, seconds + (self.clock() - since) * DUTY * self.per_client)

    def _used(self, key: Hashable) -> float:
        seconds, since = self._usage.get(key, (0.0, 0.0))
        return float(seconds * 0.5 ** ((self.clock() - since) / FAIR_HALF_LIFE_S))

    def _spend(self, key: Hashable, held: float) -> None:
        now = self.clock()
        # The debt is capped: one turn that ran to its deadline costs its client a second's wait.
        self._credit[key] = (max(-BURST_S, self._balance(key) - held), now)
        self._credit.move_to_end(key)
        while self._credit:  # forget the clients whose credit is full again, oldest first
            oldest = next(iter(self._credit))
            if self._balance(oldest) < BURST_S:
                break
            del self._credit[oldest]
        # At least a millisecond a request: a client's share counts its requests, not only its CPU.
        self._usage[key] = (self._used(key) + max(held, 1e-3), now)
        self._usage.move_to_end(key)
        while len(self._usage) > REMEMBERED:
            self._usage.popitem(last=False)

    def _wake_in(self, delay: float) -> None:
        """Dispatch again when a client in debt may run (one timer, the earliest)."""
        loop = asyncio.get_running_loop()
        when = loop.time() + delay
        if self._timer is None or self._timer.when() > when or self._timer.cancelled():
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(when, self._ring)

    def _ring(self) -> None:
        self._timer = None
        self._dispatch()

    def _dispatch(self) -> None:
        """Give free slots to waiting clients in turn (``_next``); a done future is dropped, never granted."""
        while self.running < self.slots and (key := self._next()) is not None:
            queue = self._waiting[key]
            future = queue.popleft()
            self._depth -= 1
            if not queue:
                del self._waiting[key]
                del self._turns[key]
            if future.done():  # cancelled while queued: its waiter is leaving
                continue
            future.set_result(self._grant(key, queued=True))
        self._show()

    def _drop(self, key: Hashable, future: asyncio.Future[Holder]) -> None:
        queue = self._waiting.get(key)
        if queue is not None and future in queue:
            queue.remove(future)
            self._depth -= 1
            if not queue:
                del self._waiting[key]
                del self._turns[key]
        self._show()

    def _refuse(self, reason: Reason, key: Hashable) -> Overloaded:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1
        metrics.ADMISSION_REJECTED.labels(reason).inc()
        retry_after = max(1, math.ceil(min(self.wait_s, RETRY_AFTER_S)))
        self._tell(key, retry_after)
        return Overloaded(reason, retry_after)

    def _show(self) -> None:
        metrics.ADMISSION_WAITING.set(self.depth)
