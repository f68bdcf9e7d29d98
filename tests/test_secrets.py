"""Bot tokens stay out of stderr, even in the tracebacks of a rejected token or a wrong server."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import discord
import pytest
import yarl

from gpu_advisor.bot.discord import run as discord_run
from gpu_advisor.bot.secrets import RedactingFormatter, RedactToken, install_redaction
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram

TOKEN = "987654:REVOKED-token-must-not-leak"
SECRET_PART = "REVOKED-token"
ROOT = Path(__file__).resolve().parents[1]


async def _run_cli(*args: str, env: dict[str, str], timeout: float = 60) -> tuple[int, str]:
    """The real ``python -m gpu_advisor.bot.cli`` in a child process; returns its exit code and stderr."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "gpu_advisor.bot.cli",
        *args,
        cwd=ROOT,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode is not None
    return proc.returncode, err.decode("utf-8", "replace")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "GPU_ADVISOR_DB": str(tmp_path / "tg.db")}


@pytest.mark.parametrize("status", [401, 404])
async def test_a_rejected_token_is_reported_without_the_token(
    tg: FakeTelegram, tmp_path: Path, status: int
) -> None:
    tg.fail_next("getMe", status=status, times=10)
    code, stderr = await _run_cli("telegram", "--base-url", tg.base_url, "--workers", "0", env=_env(tmp_path))
    assert tg.calls_of("getMe", include_failed=True), f"the bot never reached the fake server:\n{stderr}"
    assert code == 1 and "rejected the token" in stderr  # said plainly, once, at the end
    assert SECRET_PART not in stderr


def _record_with_exception(message: str) -> logging.LogRecord:
    try:
        raise RuntimeError(f"The token `{TOKEN}` was rejected by the server.")
    except RuntimeError:
        return logging.LogRecord("t", logging.ERROR, __file__, 1, message, (TOKEN,), sys.exc_info())


def test_the_formatter_redacts_the_exception_text_and_traceback() -> None:
    formatter = RedactingFormatter(logging.Formatter("%(message)s"), TOKEN)
    record = _record_with_exception("failed with %s")
    line = formatter.format(record)
    assert "RuntimeError" in line and "<token>" in line
    assert SECRET_PART not in line
    assert record.exc_text is not None and SECRET_PART not in record.exc_text


def test_the_formatter_redacts_the_stack_info() -> None:
    formatter = RedactingFormatter(logging.Formatter("%(message)s"), TOKEN)
    record = logging.LogRecord("t", logging.ERROR, __file__, 1, "ok", None, None, sinfo=f"Stack: {TOKEN}")
    assert SECRET_PART not in formatter.format(record)


def test_the_filter_cleans_message_and_arguments_for_every_handler() -> None:
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "url %s/getMe", (f"bot{TOKEN}",), None)
    RedactToken(TOKEN).filter(record)
    assert record.getMessage() == "url bot<token>/getMe"


def test_install_redaction_keeps_each_handlers_own_format() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        install_redaction(TOKEN)
        assert handler.formatter is not None
        line = handler.formatter.format(_record_with_exception("boom %s"))
    finally:
        root.removeHandler(handler)
    assert line.startswith("[ERROR] boom <token>") and SECRET_PART not in line


@contextmanager
def discord_elsewhere(token: str) -> Iterator[FakeDiscord]:
    """The fake Discord on a loop of its own, so ``run.main`` can start its own with asyncio.run."""
    loop, up, fake = asyncio.new_event_loop(), threading.Event(), FakeDiscord(token)
    done = asyncio.Event()

    async def serve() -> None:
        async with fake:
            up.set()
            await done.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert up.wait(10), "the fake Discord did not start"
    try:
        yield fake
    finally:
        loop.call_soon_threadsafe(done.set)
        thread.join(10)
        loop.close()


def test_a_token_discord_refuses_ends_with_a_sentence_and_is_never_logged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("DISCORD_BOT_TOKEN", TOKEN)
    args = argparse.Namespace(db=str(tmp_path / "d.db"), catalog=None, guild=None, no_sync=True)
    with discord_elsewhere("the-right-token") as fake:
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(fake.gateway_url))
        with pytest.raises(SystemExit, match="refused the token"):
            discord_run.main(args)
    assert all(SECRET_PART not in caplog.handler.format(r) for r in caplog.records)
