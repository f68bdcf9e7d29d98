"""One client address floods the web server with slow messages: how much slower is everybody else?

Starts ``gpu-advisor web --processes N`` on SQLite, measures an ordinary user's chat (a
short script of turns, one request at a time, from 127.0.0.2) while idle, then again while
one address (127.0.0.1) keeps ``--attackers`` requests in flight, each a new conversation
carrying a long run of a rare character: U+00BD × 2,000 (allowed, about 60 ms of parsing)
and U+FDFA × 3,000 (18 characters each once normalised: refused before a worker). The
attacker runs in its own process so its client does not steal the measuring loop's time.
Its per-address limits are raised out of the way, so admission control (``bot.admission``)
alone has to keep the ordinary user's latency near idle. Prints the idle and loaded p50/p99
and their ratio, and what the attacker got back, by HTTP status.

    python -m bench.overload_bench [--requests 20] [--rounds 3] [--attackers 16] [--processes 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bench.scale_bench import STDERR, ready

# An ordinary user states a whole requirement, a new one each time, so the plan is worked out
# afresh (about 8 ms of CPU; a plan already made comes from a cache in a millisecond), then
# asks why. The issue measured this kind of chat at a p50 of about 34 ms on an idle server.
ORDINARY = ("部署 {size}B 聊天模型，并发 {users} 个用户，上下文 8k，7×24 运行", "/why")
SIZES = (7, 8, 13, 14, 32, 34, 70, 72)
SLOW = ("\u00bd" * 2000, "\ufdfa" * 3000)
ORDINARY_ADDRESS, ATTACKER_ADDRESS = "127.0.0.2", "127.0.0.1"
UNLIMITED = "1000000"
STEADY = 2  # answers per attacking connection before the measuring starts
RTT_S = 0.02  # the attacker's round trip to the server: it sends again no sooner than this


@dataclass
class Result:
    idle: list[float]
    loaded: list[float]
    attacker: dict[str, int]

    @property
    def ratio(self) -> float:
        return pct(self.loaded, 0.5) / pct(self.idle, 0.5)

    def report(self) -> str:
        idle = f"p50 {pct(self.idle, 0.5) * 1000:.1f} ms p99 {pct(self.idle, 0.99) * 1000:.1f} ms"
        loaded = f"p50 {pct(self.loaded, 0.5) * 1000:.1f} ms p99 {pct(self.loaded, 0.99) * 1000:.1f} ms"
        return (
            f"idle {idle}; under attack {loaded}; p50 ratio {self.ratio:.2f}x; attacker got {self.attacker}"
        )


def pct(xs: Sequence[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextmanager
def web_servers(db: str, processes: int, workers: int) -> Iterator[int]:
    """``gpu-advisor web --processes N`` with the per-address limits raised, on a port the kernel
    picks (``--port 0``); the port, read back once ready."""
    argv = ["web", "--db", db, "--port", "0", "--processes", str(processes), "--workers", str(workers)]
    argv += ["--sessions-per-hour", UNLIMITED]  # the attacker's conversations are all new
    proc = subprocess.Popen([sys.executable, "-m", "gpu_advisor.bot.cli", *argv], stderr=STDERR)
    try:
        yield asyncio.run(ready(processes, proc, workers))
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def client(address: str) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(local_addr=(address, 0), limit=0)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60))


async def ordinary(port: int, requests: int, offset: int = 0) -> list[float]:
    """``requests`` turns of the ordinary script, one at a time; each one's seconds."""
    seconds: list[float] = []
    session: str | None = None
    async with client(ORDINARY_ADDRESS) as http:
        for i in range(requests):
            n = i // len(ORDINARY) + offset
            text = ORDINARY[i % len(ORDINARY)].format(size=SIZES[n % len(SIZES)], users=n + 2)
            body = {"text": text} if i % len(ORDINARY) == 0 else {"session_id": session, "text": text}
            start = time.perf_counter()
            async with http.post(f"http://127.0.0.1:{port}/api/chat", json=body) as response:
                answer = await response.json()
                if response.status != 200:
                    raise RuntimeError(f"the ordinary user got HTTP {response.status}: {answer}")
            seconds.append(time.perf_counter() - start)
            session = answer["session_id"]
    return seconds


async def attack(port: int, connections: int) -> Counter[str]:
    """Keep ``connections`` slow requests in flight until stdin closes; the statuses got back."""
    statuses: Counter[str] = Counter()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_reader(sys.stdin.fileno(), stop.set)

    async def one(http: aiohttp.ClientSession, n: int) -> None:
        while not stop.is_set():
            body = {"text": SLOW[n % len(SLOW)]}
            n += 1
            try:
                async with http.post(f"http://127.0.0.1:{port}/api/chat", json=body) as response:
                    await response.read()
                    status = str(response.status)
            except aiohttp.ClientError as exc:
                status = type(exc).__name__
            statuses[status] += 1
            if statuses.total() == STEADY * connections:
                print("ready", flush=True)  # every connection has been answered a few times
            if status != "200":
                await asyncio.sleep(RTT_S)  # a refusal takes a round trip to reach a remote client

    async with client(ATTACKER_ADDRESS) as http:
        await asyncio.gather(*(one(http, n) for n in range(connections)))
    return statuses


@contextmanager
def attacker(port: int, connections: int) -> Iterator[dict[str, int]]:
    """The attack in its own process, in full swing (``STEADY`` answers a connection); its statuses after."""
    argv = [sys.executable, "-m", "bench.overload_bench", "--attack", str(port)]
    argv += ["--attackers", str(connections)]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    assert proc.stdout is not None
    got: dict[str, int] = {}
    try:
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the attacker did not start")
        yield got
    finally:
        proc.stdin.close()  # the attacker stops and prints what it got
        out = proc.stdout.read()
        proc.wait(60)
        got.update(json.loads(out.strip().splitlines()[-1]) if out.strip() else {})


def measure(requests: int, attackers: int, processes: int, workers: int, tmp: str, rounds: int = 3) -> Result:
    """``rounds`` of (idle, under attack), ``requests`` ordinary turns each: the machine's other
    load falls on both sides alike."""
    result = Result([], [], {})
    with web_servers(str(Path(tmp) / "overload.db"), processes, workers) as port:
        asyncio.run(ordinary(port, len(ORDINARY) * 2))  # warm up: the workers have read everything
        for r in range(rounds):
            result.idle += asyncio.run(ordinary(port, requests, 1000 * r))
            with attacker(port, attackers) as got:
                result.loaded += asyncio.run(ordinary(port, requests, 1000 * r + 500))
            result.attacker = dict(Counter(result.attacker) + Counter(got))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=20, help="ordinary turns a round, idle and under attack")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--attackers", type=int, default=16, help="the attacker's requests in flight")
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--workers", type=int, default=2, help="turn workers per server process")
    p.add_argument("--tiny", action="store_true", help="a few requests, one round: does the bench still run?")
    p.add_argument("--attack", type=int, metavar="PORT", help=argparse.SUPPRESS)  # the attacker process
    args = p.parse_args(argv)
    if args.tiny:
        args.requests, args.rounds, args.attackers = 4, 1, 4
    if args.attack:
        # niced: on a real site the attacker's client runs on its own machine, not the server's CPUs
        os.nice(int(os.environ.get("OVERLOAD_NICE", "10")))
        print(json.dumps(asyncio.run(attack(args.attack, args.attackers))), flush=True)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        result = measure(args.requests, args.attackers, args.processes, args.workers, tmp, args.rounds)
    setup = f"{args.processes} processes × {args.workers} worker(s), {args.attackers} attackers"
    print(f"overload, {setup}: {result.report()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
