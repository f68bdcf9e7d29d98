"""Bot-stack benchmark: our Telegram Application against an echo Application, same fake server, same run.

Run ``python -m bench.bot_bench [--chats 300 --turns 10 --repeats 3]``. Each chat is a
user in a private chat sending a scripted ten-turn dialog; all chats send turn k
together and the driver waits for every reply before turn k+1. Latency is
push-to-sendMessage per message. The echo Application replies "ok" through the same
transport settings (``application_builder``), so the ratio isolates what our handlers
cost. Every application runs once per round and the ratios are taken per round.
Telegram's own 30 messages/s global limit is switched off in both, or it would be
the only thing measured.
Also printed: cold start (process start to first reply) and bytes per stored
conversation.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

import knowledge
from bot.dialog import Dialog
from bot.store import Store
from bot.telegram.app import TelegramConfig, application_builder, build_application
from bot.turns import auto_workers
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


@dataclass
class RunResult:
    messages: int
    seconds: float
    latencies_ms: list[float]
    lost: int
    duplicated: int

    @property
    def per_second(self) -> float:
        return self.messages / self.seconds if self.seconds else 0.0

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


async def drive(factory: AppFactory, chats: int, turns: int, tmp: Path) -> RunResult:
    """All chats send turn k at once; wait for every reply; repeat. Count lost and duplicated replies."""
    async with FakeTelegram() as tg:
        users = [tg.user(10_000 + i, f"u{i}", "zh") for i in range(chats)]
        app = factory(tg, tmp)
        pushed: dict[int, list[float]] = {u.id: [] for u in users}
        runner = app.bot_data.get("turns")  # our turn workers; echo apps have none
        async with app:
            if runner is not None:
                await runner.start()
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0, timeout=1)
            started = time.monotonic()
            for turn in range(turns):
                for u in users:
                    pushed[u.id].append(time.monotonic())
                    tg.send_text(u, SCRIPT[turn % len(SCRIPT)])
                await tg.wait_for("sendMessage", count=chats * (turn + 1), timeout=120)
            seconds = time.monotonic() - started
            await asyncio.sleep(0.2)  # a late duplicate would show up here
            await app.updater.stop()
            await app.stop()
            if runner is not None:
                await runner.stop()
    return _score(tg, pushed, seconds)


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
            "bot.cli",
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


async def measure(chats: int, turns: int, repeats: int, tmp: Path) -> dict[str, list[RunResult]]:
    """Every application once per round, rounds back to back, so a slow spell on a shared machine
    hits all of them alike; each run gets a fresh database (update ids restart at 1)."""
    runs: dict[str, list[RunResult]] = {name: [] for name, _ in APPS}
    for round_ in range(repeats):
        for i, (name, factory) in enumerate(APPS):
            folder = tmp / f"round{round_}-app{i}"
            folder.mkdir()
            runs[name].append(await drive(factory, chats, turns, folder))
    return runs


def _row(name: str, results: list[RunResult]) -> tuple[str, ...]:
    """The median run of an application (by messages per second); lost and duplicated over all runs."""
    r = sorted(results, key=lambda x: x.per_second)[len(results) // 2]
    lost, dup = sum(x.lost for x in results), sum(x.duplicated for x in results)
    return (
        name,
        str(r.messages),
        f"{r.seconds:.2f}",
        f"{r.per_second:.0f}",
        f"{r.pct(0.5):.1f}",
        f"{r.pct(0.99):.1f}",
        str(lost),
        str(dup),
    )


def _ratios(runs: dict[str, list[RunResult]], mine: str, base: str) -> list[float]:
    """Per-round ratios: each pair ran minutes apart at most."""
    return [a.per_second / b.per_second for a, b in zip(runs[mine], runs[base], strict=True)]


async def main_async(chats: int, turns: int, repeats: int) -> int:
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        runs = await measure(chats, turns, repeats, tmp)
        per_conv = bytes_per_conversation(tmp / "round0-app0")
        cold = await cold_start_s(tmp)
    print(
        f"machine: {platform.machine()} {platform.processor() or ''}; {os.cpu_count()} CPUs; "
        f"python {platform.python_version()}; {chats} chats x {turns} turns; "
        f"{repeats} round(s), median run shown; turn workers: {auto_workers()}"
    )
    header = ("application", "msgs", "wall s", "msgs/s", "p50 ms", "p99 ms", "lost", "dup")
    print(table([header, *(_row(name, results) for name, results in runs.items())]))
    for mine, base, note in (
        ("gpu-advisor", "echo", " (target >= 0.9x)"),
        ("gpu-advisor", "echo, answer-sized reply", ""),
        ("gpu-advisor, turns in-process", "echo", ""),
    ):
        ratios = _ratios(runs, mine, base)
        shown = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"throughput ratio {mine} / {base}: {statistics.median(ratios):.2f}x{note}  [rounds: {shown}]")
    latency = statistics.median(runs["gpu-advisor"][0].latencies_ms) / statistics.median(
        runs["echo"][0].latencies_ms
    )
    print(f"median latency ratio gpu-advisor / echo: {latency:.2f}x")
    print(f"cold start to first reply: {cold:.2f} s; stored state: {per_conv:.0f} bytes per conversation")
    ours_runs = runs["gpu-advisor"] + runs["gpu-advisor, turns in-process"]
    return 0 if all(r.lost == r.duplicated == 0 for r in ours_runs) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=300)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of all applications")
    args = parser.parse_args()
    return asyncio.run(main_async(args.chats, args.turns, args.repeats))


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["RunResult", "drive", "echo", "measure", "ours", "ours_in_process"]
