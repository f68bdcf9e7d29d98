"""Hardware people name (issue 26): form factors, memory classes, slices, several cards, what they pay."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.requirements import Vocabulary, extract


@pytest.fixture(scope="module")
def vocab(dialog: Dialog) -> Vocabulary:
    return dialog.vocab


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("用 A100 PCIe 部署 70B", "a100-40g-pcie"),
        ("A100 80G PCIe 版 跑 70B", "a100-80g-pcie"),
        ("两张 A800 pcie 版的", "a800-80g-pcie"),
        ("H100 PCIe 版推理", "h100-pcie"),
        ("a100 sxm4 训练", "a100-40g-sxm"),
        ("H100 NVL 跑 70B", "h100-nvl"),
        ("4090 48G 魔改 部署 32B", "rtx4090-48g"),
        ("L20 48G 推理", "l20"),
    ],
)
def test_a_form_factor_or_variant_names_its_own_card(vocab: Vocabulary, text: str, gpu: str) -> None:
    assert extract(text, vocab).slots["gpu"] == gpu


@pytest.mark.parametrize(
    ("text", "gb", "count"),
    [
        ("16G 显存的卡能跑 7B 吗", 16, None),
        ("两张 24G 的卡 能不能跑 32B", 24, 2),
        ("two 24gb cards enough for 32B?", 24, 2),
        ("can an 80GB GPU serve Llama 3 70B?", 80, None),
        ("48G 的卡 跑 32B 行吗", 48, None),
    ],
)
def test_a_card_named_by_its_memory_is_a_memory_class(
    vocab: Vocabulary, text: str, gb: float, count: int | None
) -> None:
    result = extract(text, vocab)
    assert result.memory_class_gb == gb and result.slots.get("gpu_count") == count


@pytest.mark.parametrize(
    ("text", "profile"),
    [
        ("A100 的 3g.40gb 切片能跑 13B 吗", "3g.40gb"),
        ("a 1g.10gb MIG slice", "1g.10gb"),
        ("半张 A100 能跑 7B 吗", "half"),
    ],
)
def test_a_slice_is_read_as_a_slice_never_a_card_count(vocab: Vocabulary, text: str, profile: str) -> None:
    result = extract(text, vocab)
    assert result.mig_profile == profile and "gpu_count" not in result.slots


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("部署 13B 7×24 并发 10，现在两张 A100 一个月 5600", 5600, "CNY"),
        ("現在一個月 5600", 5600, "CNY"),
        ("目前每月付 3000 元租一张 A100", 3000, "CNY"),
        ("we currently pay $2000 a month for an A100", 2000, "USD"),
    ],
)
def test_what_the_user_pays_now_is_a_price_not_a_duration(
    vocab: Vocabulary, text: str, amount: float, currency: str
) -> None:
    slots = extract(text, vocab).slots
    assert slots["current_cost"] == {"amount": amount, "currency": currency, "per": "month"}
    assert "duration_hours" not in slots and "budget" not in slots
