"""Bot-stack benchmark: our Telegram Application against an echo Application, same fake server, same run.

Run ``python -m bench.bot_bench [--chats 100 --rounds 30]``. Each chat is a user in a
private chat working through a scripted ten-turn dialog (then starting over); a burst
is one turn of every chat, sent at once, and lasts until the last reply. Latency is
push-to-sendMessage per message. The echo Application replies "ok" through the same
transport settings (``application_builder``), so the ratio isolates what our handlers
cost. Telegram's own 30 messages/s global limit is switched off in all of them, or it
would be the only thing measured. ``--chats 1000 --rounds 10`` is the 1,000 chats × 10
turns load.

On a shared VM the same application differs by ±20 % between runs a minute apart, more
than the difference being measured. So all applications run at once, each polling its
own fake server, and take turns: a round is one burst of each, in rotating order, each
ratio is taken within a round (bursts seconds apart), and the median is printed with
the middle half of the rounds. Also printed is the CPU time this process spends per
message during the bursts: the Application and its fake server share this process and
saturate it, so that figure compares the applications without the hypervisor's steal.
Cold start (process start to first reply) and bytes per stored conversation close the
report.

``--rss`` measures instead whether the process's memory is bounded (issue 41: a server
grew 84 → 98 MB over 10,000 conversations and kept growing): 10,000 conversations
through the dialog core in this process, each with other numbers (model size,
concurrency, training tokens) so every cache sees new keys, and the resident set
(/proc/self/statm) and Python's live allocated blocks after 1,000, 5,000 and 10,000 of
them, printed side by side with their ratios. It levels when the last 5,000
conversations add under ``RSS_LEVEL`` (5 %) to what the first 5,000 left. ``--tiny``
also runs it over 20/50/100 conversations, to show it still runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.execution import auto_workers
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.telegram.app import TelegramConfig, application_builder, build_application
from gpu_advisor.engine.specs import Knowledge
from tests.fakes.telegram_api import FakeTelegram

TOKEN = "4242:BENCH"
SCRIPT = (
    "部署 13B 模型",
    "并发 8",
    "7×24",
    "/why",
    "/cost",
    "其实是70B",
    "/new",
    "微调 7B",
    "LoRA",
    "1亿 token",
)
CONFIG = TelegramConfig(token=TOKEN)  # the transport settings both applications share
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
AppFactory = Callable[[FakeTelegram, Path], Application]  # type: ignore[type-arg]


class _Rates:
    """Throughput and CPU per message, for one burst or a whole run."""

    messages: int
    seconds: float
    main_cpu_s: float  # this process (Application and fake server) while messages flowed
    worker_cpu_s: float  # the turn workers over the same span; 0 for the echo bots

    @property
    def per_second(self) -> float:
        return self.messages / self.seconds if self.seconds else 0.0

    @property
    def main_ms_per_message(self) -> float:
        return 1e3 * self.main_cpu_s / self.messages if self.messages else 0.0

    @property
    def worker_ms_per_message(self) -> float:
        return 1e3 * self.worker_cpu_s / self.messages if self.messages else 0.0


@dataclass
class RunResult(_Rates):
    messages: int
    seconds: float
    latencies_ms: list[float]
    lost: int
    duplicated: int
    main_cpu_s: float = 0.0
    worker_cpu_s: float = 0.0

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def ours(tg: FakeTelegram, tmp: Path, workers: int | None = None) -> Application:  # type: ignore[type-arg]
    """Our Application as ``gpu-advisor telegram`` builds it (turn workers: CPUs - 1, at most 4)."""
    config = TelegramConfig(
        token=TOKEN,
        base_url=tg.base_url,
        db_path=str(tmp / "bench.db"),
        messages_per_minute=10_000,
        overall_max_rate=0,
        workers=auto_workers() if workers is None else workers,
    )
    return build_application(config, dialog=Dialog(knowledge.load()), store=Store(tmp / "bench.db"))


def ours_in_process(tg: FakeTelegram, tmp: Path) -> Application:  # type: ignore[type-arg]
    """Our Application with every turn on the event loop (what a one-CPU machine runs)."""
    return ours(tg, tmp, workers=0)


def _echo_app(tg: FakeTelegram, reply: Handler) -> Application:  # type: ignore[type-arg]
    """An Application with our transport settings whose only handler is ``reply``."""
    config = replace(CONFIG, base_url=tg.base_url, overall_max_rate=0)
    app = application_builder(config).build()
    app.add_handler(MessageHandler(filters.ALL, reply))
    return app


def echo(tg: FakeTelegram, tmp: Path) -> Application:  # type: ignore[type-arg]
    async def reply(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if update.effective_message is not None:
            await update.effective_message.reply_text("ok")

    return _echo_app(tg, reply)


def echo_sized(tg: FakeTelegram, tmp: Path) -> Application:  # type: ignore[type-arg]
    """An echo bot whose reply is as long as a typical answer of ours, in HTML with two buttons.

    Separates what a long reply costs the transport (PTB encoding, the server parsing and
    checking the HTML, the Message coming back) from what our handlers cost.
    """
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    body = (
        "<b>✅ 推荐：1× NVIDIA T4（t4-1x）· ¥900/月</b>\n"
        + "• 每张 NVIDIA T4：权重 6.9 GiB + KV 2.3 GiB\n" * 24
    )
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("为什么？", callback_data="/why"),
                InlineKeyboardButton("费用明细", callback_data="/cost"),
            ]
        ]
    )

    async def reply(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if update.effective_message is not None:
            await update.effective_message.reply_text(body, parse_mode="HTML", reply_markup=markup)

    return _echo_app(tg, reply)


@dataclass
class Burst(_Rates):
    """One turn of every chat: how long until the last reply, and the CPU it took."""

    seconds: float
    main_cpu_s: float
    worker_cpu_s: float
    messages: int


class Running:
    """An application polling its own fake server, sent one burst (a turn of every chat) at a time."""

    def __init__(self, tg: FakeTelegram, app: Application, chats: int) -> None:  # type: ignore[type-arg]
        self.tg = tg
        self.users = [tg.user(10_000 + i, f"u{i}", "zh") for i in range(chats)]
        self.pushed: dict[int, list[float]] = {u.id: [] for u in self.users}
        self.bursts: list[Burst] = []
        turn = getattr(app.bot_data, "turn", None)  # echo apps take no turns
        self.runner = turn.executor if turn is not None else None  # where our turns run

    async def burst(self) -> Burst:
        """Every chat sends its next scripted turn at once; wait for every reply."""
        turn = len(self.bursts)
        pids = self.runner.pids if self.runner is not None else []
        cpu, worker_cpu, started = time.process_time(), _cpu_of(pids), time.monotonic()
        for u in self.users:
            self.pushed[u.id].append(time.monotonic())
            self.tg.send_text(u, SCRIPT[turn % len(SCRIPT)])
        await self.tg.wait_for("sendMessage", count=len(self.users) * (turn + 1), timeout=120)
        burst = Burst(
            time.monotonic() - started,
            time.process_time() - cpu,
            _cpu_of(pids) - worker_cpu,
            len(self.users),
        )
        self.bursts.append(burst)
        return burst

    async def result(self) -> RunResult:
        """All bursts so far; a late duplicate reply gets a moment to show up first."""
        await asyncio.sleep(0.2)
        scored = _score(self.tg, self.pushed, sum(b.seconds for b in self.bursts))
        return replace(
            scored,
            main_cpu_s=sum(b.main_cpu_s for b in self.bursts),
            worker_cpu_s=sum(b.worker_cpu_s for b in self.bursts),
        )


@contextlib.asynccontextmanager
async def running(factory: AppFactory, chats: int, tmp: Path) -> AsyncIterator[Running]:
    """Start the application as production does (turn workers first, then long polling); stop it after."""
    async with FakeTelegram() as tg:
        app = factory(tg, tmp)
        bench = Running(tg, app, chats)
        async with app:
            if bench.runner is not None:
                await bench.runner.initialize()
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0, timeout=1)
            try:
                yield bench
            finally:
                await app.updater.stop()
                await app.stop()
                if bench.runner is not None:
                    await bench.runner.shutdown()


async def drive(factory: AppFactory, chats: int, turns: int, tmp: Path) -> RunResult:
    """One application alone: ``turns`` bursts. Counts lost and duplicated replies."""
    async with running(factory, chats, tmp) as bench:
        for _ in range(turns):
            await bench.burst()
        return await bench.result()


def _cpu_of(pids: list[int]) -> float:
    """User + system CPU seconds of other processes so far (Linux ``/proc``; 0 elsewhere)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _score(tg: FakeTelegram, pushed: dict[int, list[float]], seconds: float) -> RunResult:
    replies: dict[int, list[float]] = {}
    for call in tg.calls_of("sendMessage"):
        replies.setdefault(int(call.params["chat_id"]), []).append(call.time)
    latencies, lost, dup = [], 0, 0
    for chat, times in pushed.items():
        got = sorted(replies.get(chat, []))
        lost += max(0, len(times) - len(got))
        dup += max(0, len(got) - len(times))
        latencies += [(r - p) * 1e3 for p, r in zip(times, got, strict=False)]
    total = sum(len(t) for t in pushed.values())
    return RunResult(total, seconds, latencies, lost, dup)


async def cold_start_s(tmp: Path) -> float:
    """Process start to first reply, through the real ``gpu-advisor telegram`` entry point."""
    async with FakeTelegram() as tg:
        user = tg.user(1, "cold", "zh")
        tg.send_text(user, "/start")
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN}
        started = time.monotonic()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "gpu_advisor.bot.cli",
            "telegram",
            "--base-url",
            tg.base_url,
            "--db",
            str(tmp / "cold.db"),
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await tg.wait_for("sendMessage", timeout=60)
            return time.monotonic() - started
        finally:
            proc.terminate()
            await proc.wait()


def bytes_per_conversation(tmp: Path) -> float:
    store = Store(tmp / "bench.db")
    count = store.stats()["conversations"]
    rows = store.db.execute("select sum(length(state)) from conversations").fetchone()[0] or 0
    store.close()
    return rows / count if count else 0.0


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


APPS: tuple[tuple[str, AppFactory], ...] = (
    ("gpu-advisor", ours),
    ("gpu-advisor, turns in-process", ours_in_process),
    ("echo", echo),
    ("echo, answer-sized reply", echo_sized),
)


@dataclass
class Measured:
    """An application over the whole benchmark: the totals, and each of its bursts."""

    total: RunResult
    bursts: list[Burst]


async def measure(chats: int, rounds: int, tmp: Path) -> dict[str, Measured]:
    """All applications up at once, then round after round of one burst each, in rotating order.

    A burst takes about half a second, so the bursts compared within a round ran seconds
    apart, and a slow spell of the machine hits the applications alike; each round's ratio
    is taken within it. Each application has its own fake server and database.
    """
    async with contextlib.AsyncExitStack() as stack:
        benches: list[tuple[str, Running]] = []
        for i, (name, factory) in enumerate(APPS):
            folder = tmp / f"app{i}"
            folder.mkdir()
            benches.append((name, await stack.enter_async_context(running(factory, chats, folder))))
        for round_ in range(rounds):
            shift = round_ % len(benches)
            for _, bench in benches[shift:] + benches[:shift]:
                await bench.burst()
        return {name: Measured(await bench.result(), bench.bursts) for name, bench in benches}


def steal_share() -> Callable[[], float]:
    """Start counting; the returned function gives the share of CPU time the hypervisor took since.

    On a shared VM this is what makes runs minutes apart differ by ±20 %; printed so a
    reader can tell a noisy run from a regression. 0 where ``/proc/stat`` does not exist.
    """

    def totals() -> tuple[int, int]:
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return 0, 0
        return fields[7] if len(fields) > 7 else 0, sum(fields[:8])

    steal0, total0 = totals()

    def since() -> float:
        steal1, total1 = totals()
        return (steal1 - steal0) / (total1 - total0) if total1 > total0 else 0.0

    return since


def _row(name: str, measured: Measured) -> tuple[str, ...]:
    """Throughput is the median burst's; latency, CPU, lost and duplicated are over all bursts."""
    r = measured.total
    return (
        name,
        str(r.messages),
        f"{r.seconds:.2f}",
        f"{statistics.median(b.per_second for b in measured.bursts):.0f}",
        f"{r.pct(0.5):.1f}",
        f"{r.pct(0.99):.1f}",
        f"{r.main_ms_per_message:.2f}",
        f"{r.worker_ms_per_message:.2f}",
        str(r.lost),
        str(r.duplicated),
    )


def _ratios(runs: dict[str, Measured], mine: str, base: str, of: Callable[[Burst], float]) -> list[float]:
    """Per-round ratios ``of(mine) / of(base)``: the two bursts ran seconds apart."""
    pairs = zip(runs[mine].bursts, runs[base].bursts, strict=True)
    return [of(a) / of(b) for a, b in pairs]


def spread(ratios: list[float]) -> str:
    """Median with the middle half of the rounds (all of them when there are fewer than four)."""
    if len(ratios) < 4:
        return f"{statistics.median(ratios):.2f}x [rounds {min(ratios):.2f}-{max(ratios):.2f}]"
    q1, q2, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return f"{q2:.2f}x [middle half {q1:.2f}-{q3:.2f}, all {min(ratios):.2f}-{max(ratios):.2f}]"


async def main_async(chats: int, rounds: int) -> int:
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        stolen = steal_share()
        runs = await measure(chats, rounds, tmp)
        steal = stolen()
        per_conv = bytes_per_conversation(tmp / "app0")
        cold = await cold_start_s(tmp)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''}; {os.cpu_count()} CPUs; "
        f"python {platform.python_version()}; {chats} chats; {rounds} rounds of one turn per chat "
        f"per application; turn workers: {auto_workers()}; "
        f"CPU time taken by the hypervisor (steal) meanwhile: {steal:.0%}"
    )
    header = (
        "application",
        "msgs",
        "wall s",
        "msgs/s",
        "p50 ms",
        "p99 ms",
        "main ms/msg",
        "worker ms/msg",
        "lost",
        "dup",
    )
    print(table([header, *(_row(name, measured) for name, measured in runs.items())]))
    for mine, base, note in (
        ("gpu-advisor", "echo", " (target >= 0.9x)"),
        ("gpu-advisor", "echo, answer-sized reply", ""),
        ("gpu-advisor, turns in-process", "echo", ""),
    ):
        ratios = _ratios(runs, mine, base, lambda b: b.per_second)
        print(f"throughput {mine} / {base}: {spread(ratios)}{note}")
    capacity = _ratios(runs, "echo", "gpu-advisor", lambda b: b.main_ms_per_message)
    print(f"CPU of this process per message, echo / gpu-advisor: {spread(capacity)}")
    latency = statistics.median(runs["gpu-advisor"].total.latencies_ms) / statistics.median(
        runs["echo"].total.latencies_ms
    )
    print(f"median latency ratio gpu-advisor / echo: {latency:.2f}x")
    print(f"cold start to first reply: {cold:.2f} s; stored state: {per_conv:.0f} bytes per conversation")
    ours = (runs["gpu-advisor"].total, runs["gpu-advisor, turns in-process"].total)
    return 0 if all(r.lost == r.duplicated == 0 for r in ours) else 1


RSS_AT = (1_000, 5_000, 10_000)  # conversations after which memory is read
TINY_RSS_AT = (20, 50, 100)
RSS_LEVEL = 0.05  # the last half of the conversations may add at most this share to the resident set


def conversation(i: int) -> tuple[str, ...]:
    """The ``i``-th conversation: serving (two in three) or LoRA training, its numbers varied so
    that plans, rendered views and the engine's tables see new keys, as many users would."""
    if i % 3 == 2:
        return (f"微调 {3 + i % 67}B", "LoRA", f"{1 + i % 9}亿 token")
    return (f"部署 {1 + i % 113}B 模型", f"并发 {1 + i % 41}", "7×24", "/why", "/cost")


def rss_mib() -> float:
    """This process's resident set in MiB (Linux /proc; elsewhere the peak, from getrusage)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass(frozen=True, slots=True)
class Memory:
    """What the process held after ``conversations`` conversations."""

    conversations: int
    rss_mib: float
    blocks: int  # sys.getallocatedblocks(): live Python objects, whatever the allocator keeps
    cpu_s: float  # CPU spent on the conversations so far


def memory_growth(kb: Knowledge, at: tuple[int, ...]) -> list[Memory]:
    """Run conversations through one dialog core, reading memory at each of ``at`` (and before any)."""
    dialog = Dialog(kb)
    gc.collect()
    rows = [Memory(0, rss_mib(), sys.getallocatedblocks(), 0.0)]
    done, start = 0, time.process_time()
    for stop in at:
        while done < stop:
            state = ConversationState()
            for text in conversation(done):
                _, state = dialog.handle(state, text)
            done += 1
        gc.collect()
        rows.append(Memory(done, rss_mib(), sys.getallocatedblocks(), time.process_time() - start))
    return rows


def memory_report(rows: list[Memory]) -> bool:
    """Print the memory table and its ratios; True when the resident set levels off."""
    cells: list[tuple[str, ...]] = [
        ("conversations", "RSS MiB", "alloc blocks", "MiB per 1k since last", "CPU s")
    ]
    for before, row in itertools.pairwise(rows):
        per_k = (row.rss_mib - before.rss_mib) / max(row.conversations - before.conversations, 1) * 1000
        cells.append(
            (
                f"{row.conversations:,}",
                f"{row.rss_mib:.1f}",
                f"{row.blocks:,}",
                f"{per_k:+.2f}",
                f"{row.cpu_s:.1f}",
            )
        )
    print(
        f"memory over conversations through the dialog core (one process; at start {rows[0].rss_mib:.1f} MiB)"
    )
    print(table(cells))
    first, mid, last = rows[1], rows[-2], rows[-1]
    print(
        f"RSS {last.conversations:,} / {first.conversations:,}: {last.rss_mib / first.rss_mib:.3f}x;"
        f" {last.conversations:,} / {mid.conversations:,}: {last.rss_mib / mid.rss_mib:.3f}x;"
        f" blocks {last.conversations:,} / {first.conversations:,}: {last.blocks / first.blocks:.3f}x,"
        f" {last.conversations:,} / {mid.conversations:,}: {last.blocks / mid.blocks:.3f}x"
    )
    level = last.rss_mib <= mid.rss_mib * (1 + RSS_LEVEL)
    said = "levels off" if level else "still growing"
    print(
        f"the last {last.conversations - mid.conversations:,} conversations added"
        f" {last.rss_mib - mid.rss_mib:+.1f} MiB ({last.rss_mib / mid.rss_mib - 1:+.1%}; bound"
        f" {RSS_LEVEL:.0%}): {said}: {'PASS' if level else 'FAIL'}"
    )
    return level


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=30, help="bursts of every application")
    parser.add_argument("--tiny", action="store_true", help="a few chats, one round: does it still run?")
    parser.add_argument("--rss", action="store_true", help="memory over 10,000 conversations, nothing else")
    args = parser.parse_args()
    if args.rss:
        return 0 if memory_report(memory_growth(knowledge.load(), RSS_AT)) else 1
    if args.tiny:
        args.chats, args.rounds = 4, 1
    code = asyncio.run(main_async(args.chats, args.rounds))
    if args.tiny:  # too few conversations for a verdict: the measurement still runs
        memory_report(memory_growth(knowledge.load(), TINY_RSS_AT))
    return code


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["Burst", "RunResult", "drive", "echo", "measure", "ours", "ours_in_process", "running"]
