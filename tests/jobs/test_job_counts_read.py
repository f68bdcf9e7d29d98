"""Counts a non-LLM job states are its own numbers, never "which number is that?" (issue 43).

- A training set said after the training word ("SDXL LoRA 训练 30张图") is the LoRA's images:
  kohya counts steps as images × repeats × epochs (10 × 10 by default here: 30 → 3,000,
  40 → 4,000; engine.jobs.image_train's defaults).
- Items an embedding job indexes, counted with 笔/条 and what they are ("200 萬筆商品",
  "1.5 亿条评论") or in English ("3 million products"), are its documents, 万/亿 multiplied.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.message import read_message
from tests.dialogs import simplified, talk

TRAINING_SETS: list[tuple[str, int]] = [
    ("Flux LoRA 训练，素材 25 张照片，4090 要跑多久", 25),
    ("SDXL LoRA 訓練 30張圖 用3090 大概要多久", 30),
    ("train an SDXL LoRA on 40 photos with a 3090, how long?", 40),
]


@pytest.mark.parametrize(("text", "images"), TRAINING_SETS, ids=[t for t, _ in TRAINING_SETS])
def test_a_training_set_said_after_the_training_word_is_the_loras_images(
    dialog: Dialog, text: str, images: int
) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "image_train"
    assert msg.job_slots["dataset_images"] == images
    assert not msg.unplaced


def test_thirty_images_make_three_thousand_steps(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "SDXL LoRA 训练 30张图 用3090 大概要多久")
    said = simplified(reply.text)
    assert "3,000" in said and "没用上" not in said  # 30 images × 10 repeats × 10 epochs


ITEMS: list[tuple[str, int]] = [
    ("用 bge-m3 給 300 萬筆商品建向量索引，L4 要多久", 3_000_000),
    ("把 1.5 亿条评论用 bge-m3 做 embedding，A100 要多久", 150_000_000),
    ("embed 3 million products with bge-m3 on an L4, how long?", 3_000_000),
]


@pytest.mark.parametrize(("text", "documents"), ITEMS, ids=[t for t, _ in ITEMS])
def test_items_counted_with_their_noun_are_the_embedding_jobs_documents(
    dialog: Dialog, text: str, documents: int
) -> None:
    msg = read_message(text, dialog.vocab)
    assert msg.job == "embedding"
    assert msg.job_slots["documents"] == documents
    assert not msg.unplaced


def test_two_million_items_are_said_back_and_timed(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "用 bge-m3 幫 200 萬筆商品做向量，租 T4 大概要跑多久？")
    said = simplified(reply.text)
    assert "2,000,000" in said and "没用上" not in said
    assert "12.9 小时" in said  # 2e6 docs ÷ 42.9 docs/s on a T4 (engine.jobs.embedding) ≈ 12.9 h
