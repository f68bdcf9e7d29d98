"""Load through the real PTB Application on loopback: every message gets exactly one answer.

CI runs a small load; ``python -m bench.bot_bench --chats 1000 --rounds 10`` runs 1,000 chats × 10 turns.
"""

from __future__ import annotations

from pathlib import Path

from bench.bot_bench import APPS, drive, measure, ours, spread


async def test_concurrent_chats_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    result = await drive(ours, chats=60, turns=3, tmp=tmp_path)
    assert result.messages == 180
    assert result.lost == 0 and result.duplicated == 0
    assert result.pct(0.99) < 10_000


async def test_the_benchmark_interleaves_every_application_and_loses_nothing(tmp_path: Path) -> None:
    """``make bench`` in miniature: every application gets one burst per round, all answered."""
    runs = await measure(chats=5, rounds=3, tmp=tmp_path)
    assert list(runs) == [name for name, _ in APPS]
    for measured in runs.values():
        assert [b.messages for b in measured.bursts] == [5, 5, 5]
        assert measured.total.messages == 15
        assert measured.total.lost == measured.total.duplicated == 0
        assert measured.total.main_cpu_s > 0
    assert runs["gpu-advisor, turns in-process"].total.worker_cpu_s == 0  # no workers to count


def test_a_spread_reports_the_median_and_the_middle_half() -> None:
    assert spread([0.8, 0.9, 1.0, 1.1, 1.2]) == "1.00x [middle half 0.90-1.10, all 0.80-1.20]"
    assert spread([0.5, 1.5]) == "1.00x [rounds 0.50-1.50]"
