"""MIG and quantization questions are concepts with the catalog's and the arithmetic's
numbers (engine.concepts mig_slices, quantized_fit), never a sizing question."""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.concepts import find, memory_named
from gpu_advisor.text.normalize import normalize


def _said(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.text


def test_mig_in_english_is_explained_with_the_catalogs_slice_price(dialog: Dialog) -> None:
    said = _said(dialog, "explain MIG — could I rent a fraction of an A100?")
    assert "Multi-Instance GPU" in said and "1g.5gb" in said and "CN¥210" in said


def test_mig_in_chinese_says_a_slice_can_be_rented_and_its_price(dialog: Dialog) -> None:
    said = _said(dialog, "MIG 切出来的一小块能单独租吗")
    assert "可以只租一个切片" in said and "¥210/月" in said


def test_mig_in_traditional_is_answered_in_traditional(dialog: Dialog) -> None:
    said = _said(dialog, "MIG 是什麼？可以只租一部分顯卡嗎")
    assert "多實例 GPU" in said and "¥210" in said


def test_a_naming_of_mig_profiles_is_not_the_mig_concept(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "A100 3g.20gb 切片能跑 13B 吗")
    assert "多实例 GPU" not in reply.text


def test_quantization_in_english_gives_the_bytes_arithmetic(dialog: Dialog) -> None:
    said = _said(dialog, "how come 4-bit quantization makes a 34B model fit in 24GB?")
    assert "34B × 0.5 B = 17.0 GB" in said and "did not use" not in said


def test_quantization_against_too_small_a_card_says_it_does_not_fit(dialog: Dialog) -> None:
    said = _said(dialog, "how come 4-bit quantization makes a 13B model fit in 8GB?")
    assert "13B × 0.5 B = 6.5 GB" in said and "does not fit" in said


def test_quantization_in_chinese_uses_the_width_named(dialog: Dialog) -> None:
    said = _said(dialog, "为什么 8bit 量化以后 34B 能放进 48G")
    assert "34B × 1 字节 = 34.0 GB" in said and "放得下" in said


def test_quantization_in_traditional_adds_up_two_cards(dialog: Dialog) -> None:
    said = _said(dialog, "為什麼 4-bit 量化能讓 70B 放進兩張 24G 的卡")
    assert "70B × 0.5 字節 = 35.0 GB" in said and "48 GB" in said


def test_two_cards_of_24g_are_48_gb_to_fit_on() -> None:
    assert memory_named("70b 放进两张 24g") == 48.0


def test_the_price_of_a_named_cards_slice_is_the_slices_not_the_whole_cards(dialog: Dialog) -> None:
    said = _said(dialog, "how much is one MIG slice of an A100 per month?")
    assert "1g.5gb" in said and "CN¥2,800" not in said


def test_a_16_bit_memory_question_gets_two_bytes_a_parameter(dialog: Dialog) -> None:
    said = _said(dialog, "why does a 7B model need about 14GB in fp16?")
    assert "7B × 2 B = 14.0 GB" in said and "did not use" not in said


def test_a_memory_the_question_needs_is_no_card_to_fit_on() -> None:
    assert memory_named("为什么 7b 模型 fp16 要 14g 显存") is None


def test_how_to_serve_a_quantized_model_is_no_concept() -> None:
    assert find(normalize("how do I serve 70B in int4 on 48GB")) is None


def test_what_nvlink_is_gets_the_nvlink_concept() -> None:
    assert find(normalize("NVLink 是什么，部署要不要买带 NVLink 的")) == "nvlink_for_inference"


def test_a_serving_stack_word_asked_about_gets_the_serving_stack() -> None:
    assert find(normalize("what does PagedAttention do?")) == "serving_stack"


def test_two_weight_formats_compared_get_the_serving_stack() -> None:
    assert find(normalize("AWQ 跟 GGUF 差别在哪")) == "serving_stack"
