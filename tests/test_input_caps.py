"""One cap per kind of input, and a visible note whenever input is cut (issue 15 §3).

The reported case: an 8,918-character sheet sent as ``/analyze`` in chat was cut at the
chat message's 4,000 characters with no note and lost its 200 GbE line, while
``gpu-advisor analyze`` read it whole.
"""

from __future__ import annotations

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import sheet_render
from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.limits import CHAT_CHARS, SHEET_CHARS, clean, is_sheet
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.sheet import analyze

_FILLER = "备注：4U 机架式，冗余电源，前置硬盘位，标准导轨，三年质保\n"


def long_sheet(length: int) -> str:
    """A sheet of about ``length`` characters whose network card is on its last line."""
    head = "GPU：8 × A100 80G SXM\nCPU：2 × EPYC 7763\n内存：1TB DDR4\n"
    tail = "网络：2 × 200GbE\n"
    filler = _FILLER * ((length - len(head) - len(tail)) // len(_FILLER))
    return head + filler + tail


def test_the_reported_sheet_is_longer_than_a_chat_message_and_ends_with_its_network() -> None:
    sheet = long_sheet(8918)
    assert CHAT_CHARS < len(sheet) < SHEET_CHARS and sheet.rstrip().endswith("200GbE")


def test_a_long_sheet_sent_in_chat_is_read_as_the_cli_reads_it(dialog: Dialog, kb: Knowledge) -> None:
    sheet = long_sheet(8918)
    reply, _ = dialog.handle(ConversationState(lang="zh"), "/analyze " + sheet)
    cli = sheet_render.analysis_card("zh", analyze(sheet, kb))
    assert reply.title == cli.title and reply.sections == cli.sections


def test_a_long_sheet_sent_in_chat_keeps_its_last_line(dialog: Dialog, kb: Knowledge) -> None:
    sheet = long_sheet(8918)
    assert analyze(sheet, kb).parsed.max_nic_gbps == 200
    kept, cut = clean("/analyze " + sheet)
    assert not cut and kept.endswith("200GbE")


def test_a_sheet_over_the_sheet_cap_says_it_was_cut(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(lang="zh"), "/analyze " + long_sheet(SHEET_CHARS + 5000))
    note = locales.t("zh", "sheet.section.truncated", max_chars=SHEET_CHARS)
    assert note in reply.text


def test_a_chat_message_over_the_chat_cap_says_it_was_cut(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(lang="en"), "serve a 7B model " + "please " * CHAT_CHARS)
    assert locales.t("en", "dialog.cut", limit=CHAT_CHARS) in reply.text


@pytest.mark.parametrize("text", ["/analyze GPU: 8x A100", "/analyze@GpuAdvisorBot GPU", "/ANALYZE\nGPU"])
def test_analyze_commands_are_capped_as_sheets(text: str) -> None:
    assert is_sheet(text)


@pytest.mark.parametrize("text", ["/analyzer x", "analyze this", "/plan", "部署 /analyze"])
def test_other_messages_are_capped_as_chat(text: str) -> None:
    assert not is_sheet(text)
