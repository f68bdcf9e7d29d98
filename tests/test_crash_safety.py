"""kill -9 the Telegram bot mid-dialog, start it again: the conversation resumes.

The bot runs its turns in a worker process, as it does in production on a machine with
two or more CPUs; the worker must not outlive the killed bot.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.fakes.telegram_api import FakeTelegram

TOKEN = "999:CRASH-TEST"


async def start_bot(tg: FakeTelegram, db: Path) -> asyncio.subprocess.Process:
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "gpu_advisor.bot.cli",
        "telegram",
        "--base-url",
        tg.base_url,
        "--db",
        str(db),
        "--workers",
        "1",
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    polls = len(tg.calls_of("getUpdates"))
    await tg.wait_for("getUpdates", count=polls + 1, timeout=30)
    return proc


async def worker_of(proc: asyncio.subprocess.Process) -> int:
    """The bot's turn worker, once it is up (Linux lists a process's children in /proc)."""
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    for _ in range(200):
        pids = children.read_text().split()
        if pids:
            return int(pids[0])
        await asyncio.sleep(0.1)
    raise AssertionError("the bot started no worker process")


async def gone(pid: int, deadline_s: float = 10.0) -> bool:
    """Whether ``pid`` exits within the deadline: an orphaned worker notices its parent's
    death on its next read of the socket pair, a moment after the kill, not at the instant."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s
    while running(pid):
        if loop.time() > end:
            return False
        await asyncio.sleep(0.05)
    return True


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


async def test_a_killed_bot_resumes_the_conversation_after_restart(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    async with FakeTelegram() as tg:
        user = tg.user(77, "Kim", "zh")
        first = await start_bot(tg, db)
        try:
            worker = await worker_of(first)
            tg.send_text(user, "我想部署一个13B的模型")
            await tg.wait_for("sendMessage", timeout=20)
        finally:
            first.send_signal(signal.SIGKILL)
            # wait() also waits for the stderr pipe, which an orphaned worker would hold open.
            await asyncio.wait_for(first.wait(), 10)
        assert first.returncode == -signal.SIGKILL
        assert await gone(worker)
        second = await start_bot(tg, db)
        try:
            tg.send_text(user, "并发 8")
            sent = await tg.wait_for("sendMessage", count=2, timeout=20)
        finally:
            second.terminate()
            await second.wait()
    # The second process knew the model and the task from before the crash: it asks the next question.
    assert "7×24" in str(sent[-1].params["text"])
    assert len(tg.calls_of("sendMessage")) == 2  # every message got exactly one answer
