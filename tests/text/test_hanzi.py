"""The one Traditional table (text.hanzi), both ways, on words people and our surfaces write."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.charts.script import to_traditional
from gpu_advisor.text.hanzi import simplified


@pytest.mark.parametrize(
    ("hans", "hant"),
    [
        ("关闭", "關閉"),
        ("点击查看大图", "點擊查看大圖"),
        ("可复制给客服", "可複製給客服"),
        ("优化器状态", "優化器狀態"),
        ("配置太复杂", "配置太複雜"),
    ],
)
def test_a_surface_writes_the_taiwan_spelling_of_a_word(hans: str, hant: str) -> None:
    assert to_traditional(hans) == hant


def test_restore_keeps_the_other_traditional_form_of_fu() -> None:
    """复 is 復 outside the listed words: 恢复 is 恢復, not 恢複."""
    assert to_traditional("恢复") == "恢復"


@pytest.mark.parametrize(
    ("hant", "hans"),
    [
        ("關閉", "关闭"),
        ("點擊", "点击"),
        ("優化器狀態", "优化器状态"),
        ("複製", "复制"),
        ("幾筆查詢", "几笔查询"),
    ],
)
def test_a_reader_reads_the_traditional_word_in_simplified(hant: str, hans: str) -> None:
    assert simplified(hant) == hans
