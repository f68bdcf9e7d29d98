"""Load through the real PTB Application on loopback: every message gets exactly one answer.

CI runs a small load; ``python -m bench.bot_bench`` runs 1,000 chats × 10 turns.
"""

from __future__ import annotations

from pathlib import Path

from bench.bot_bench import drive, ours


async def test_concurrent_chats_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    result = await drive(ours, chats=60, turns=3, tmp=tmp_path)
    assert result.messages == 180
    assert result.lost == 0 and result.duplicated == 0
    assert result.pct(0.99) < 10_000
