"""The terminal surface through its real entry point: --script dialogs, restart-resume, ask."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Button, ConversationState, Dialog, Reply
from gpu_advisor.bot.dialog.reply import Section
from gpu_advisor.bot.store import Store
from gpu_advisor.bot.terminal import (
    BOLD,
    COLOURS,
    Session,
    button_for,
    card_text,
    read_message,
    run_interactive,
)


def script(*lines: str, db: Path | None = None) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "gpu_advisor.bot.cli", "chat", "--script"] + (
        ["--db", str(db)] if db else []
    )
    proc = subprocess.run(
        cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120, check=True
    )
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_script_prints_one_json_reply_per_line_with_the_contract_fields() -> None:
    replies = script("I want to serve a 13B model", "16 concurrent users", "24/7")
    assert len(replies) == 3
    contract = {"text", "buttons", "lang", "requirements", "plan"}
    parts = {"lead", "title", "pick", "price", "summary", "sections", "footer", "chart", "job"}
    assert all(set(r) == contract | parts for r in replies)
    assert replies[-1]["plan"]["recommendation"]["offer"]
    assert replies[-1]["requirements"] == {
        "task": "infer",
        "params_b": 13.0,
        "concurrency": 16,
        "always_on": True,
    }


def test_happy_path_in_chinese_with_buttons() -> None:
    first, *_, last = script("我想微调模型", "button:q:model:1", "button:q:method:2", "button:q:data:1")
    assert first["lang"] == "zh" and first["buttons"]
    assert last["plan"]["recommendation"]["method"] == "qlora"
    assert last["requirements"]["train_tokens"] == 1e8


def test_correction_and_language_switch() -> None:
    replies = script("部署 7B，7×24，并发 4", "其实是70B", "/lang en", "/cost")
    assert replies[0]["plan"]["model"]["params_b"] == 7
    assert replies[1]["plan"]["model"]["params_b"] == 70
    assert replies[2]["lang"] == "en" and replies[3]["lang"] == "en"
    assert "Costs" in replies[3]["text"]


def test_skip_uses_defaults() -> None:
    replies = script("serve llama 3 8b", "skip", "skip")
    assert replies[-1]["plan"] is not None
    assumed = {a["id"] for a in replies[-1]["plan"]["assumptions"]}
    assert "assumed_concurrency" in assumed


def test_a_restart_resumes_mid_dialog(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    first = script("我想部署一个13B的模型", db=db)
    assert first[0]["buttons"]
    # A new process on the same database continues the same conversation.
    second = script("并发 8", "7×24", db=db)
    assert second[-1]["plan"] is not None
    assert second[-1]["requirements"]["params_b"] == 13.0


def test_ask_json_is_one_shot_with_missing_and_assumed() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", "ask", "--json", "deploy qwen 14b, 20 QPS"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    data = json.loads(out.stdout)
    assert set(data) == {"lang", "requirements", "missing", "assumed", "plan", "text"}
    assert data["plan"]["recommendation"] and data["lang"] == "en"
    assert "assumed_context_len" in data["assumed"]


def test_ask_without_a_model_returns_the_question_and_no_plan() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", "ask", "--json", "--lang", "zh", "我想训练"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    data = json.loads(out.stdout)
    assert data["plan"] is None and "model" in data["missing"]


def chat(*lines: str, db: Path) -> str:
    """The interactive chat with its input piped in (no terminal, so no colour)."""
    cmd = [sys.executable, "-m", "gpu_advisor.bot.cli", "chat", "--db", str(db)]
    proc = subprocess.run(
        cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120, check=True
    )
    return proc.stdout


def test_the_chat_says_how_to_leave_and_get_help_before_the_first_question(tmp_path: Path) -> None:
    out = chat("/quit", db=tmp_path / "state.db")
    assert "/quit" in out and "/help" in out


def test_the_chat_prints_the_answer_as_a_card_with_its_price_and_numbered_buttons(tmp_path: Path) -> None:
    out = chat("部署 7B，7×24，并发 4", "/quit", db=tmp_path / "state.db")
    card = out.split("> ", 1)[1]
    assert "¥" in card and "/月" in card and "  [1] " in card and "\033[" not in card


def test_a_card_in_colour_has_a_bold_title_and_bold_headings() -> None:
    reply = Reply(
        kind="answer",
        lang="en",
        title="✅ 1× T4 · $120/mo",
        summary=["fits in 11 of 15 GiB"],
        sections=[Section(id="reasoning", heading="Why:", lines=["bandwidth"])],
        buttons=[Button(label="Why?", payload="/why")],
    )
    lines = card_text(reply, colour=True).splitlines()
    assert lines[0] == f"{BOLD}{COLOURS['answer']}✅ 1× T4 · $120/mo{COLOURS['reset']}"
    assert lines[2] == f"{BOLD}Why:{COLOURS['reset']}" and lines[-1] == "  [1] Why?"
    assert card_text(reply, colour=False).splitlines()[0] == "✅ 1× T4 · $120/mo"


def lines(*given: str) -> Callable[[], str]:
    it = iter(given)
    return lambda: next(it)


def test_a_bracketed_paste_is_one_message() -> None:
    read = lines("/analyze \x1b[200~8×A100 80G SXM", "2×EPYC 7763", "1TB DDR4\x1b[201~", "next")
    assert read_message(read, lambda: False) == "/analyze 8×A100 80G SXM\n2×EPYC 7763\n1TB DDR4"


def test_lines_arriving_together_are_one_message() -> None:
    waiting = iter([True, True, False])
    read = lines("/analyze", "8×A100 80G SXM", "2×EPYC 7763")
    assert read_message(read, lambda: next(waiting)) == "/analyze\n8×A100 80G SXM\n2×EPYC 7763"


def test_a_pasted_sheet_after_analyze_gets_one_analysis_not_one_reply_per_line(tmp_path: Path) -> None:
    paste = "/analyze \x1b[200~GPU: 8×A100 80G SXM4\nCPU: 2×EPYC 7763\n内存: 1TB\n网络: 2×25GbE\x1b[201~"
    out = chat(paste, "/quit", db=tmp_path / "state.db")
    assert out.count("> ") == 2  # one prompt for the paste, one for /quit
    assert "没看懂" not in out and "didn't catch" not in out


def test_a_digit_presses_a_button_of_an_answer_card_too() -> None:
    card = Reply(kind="answer", lang="zh", buttons=[Button(label="为什么？", payload="/why")])
    assert button_for("1", card) == "/why" and button_for("1 个人", card) is None


def test_help_in_the_terminal_names_quit(tmp_path: Path) -> None:
    out = chat("/help", "/quit", db=tmp_path / "state.db")
    after_help = out.split("> ", 2)[1]
    assert "/quit" in after_help and "/plan" in after_help


def test_empty_and_blank_lines_are_ignored_and_the_chat_goes_on(tmp_path: Path) -> None:
    out = chat("", "   ", "\t", "\u3000", "部署 7B，7×24，并发 4", "/quit", db=tmp_path / "state.db")
    assert out.count("> ") == 6  # a prompt for each line: none of them ended the chat
    assert "¥" in out.split("> ")[5]  # the message after the blank lines got its card
    assert "消息是空的" not in out and "empty" not in out


def test_only_ctrl_d_or_quit_ends_the_chat(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "gpu_advisor.bot.cli", "chat", "--db", str(tmp_path / "state.db")]
    proc = subprocess.run(cmd, check=False, input="\n \n/QUIT\n", capture_output=True, text=True, timeout=120)
    eof = subprocess.run(cmd, check=False, input="\n\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.count("> ") == 3 and not proc.stderr
    assert eof.returncode == 0 and eof.stdout.count("> ") == 3 and not eof.stderr


def test_a_turn_that_fails_is_apologised_for_and_the_chat_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dialog = Dialog(knowledge.load())
    real_handle = dialog.handle

    def handle(state: ConversationState, text: str, today: date | None = None) -> Any:
        if text == "boom":
            raise RuntimeError("a fault in the core")
        return real_handle(state, text, today)

    monkeypatch.setattr(dialog, "handle", handle)
    typed = iter(["boom", "部署 7B，7×24，并发 4", "/quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    session = Session(dialog, Store(tmp_path / "state.db"), "tester")
    assert run_interactive(session) == 0
    out = capsys.readouterr().out
    assert "出了点问题" in out and "¥" in out.split("出了点问题", 1)[1]
