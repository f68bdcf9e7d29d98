"""Concept facts are computed for what the user asked (issue 27): their model, context, load and card.

Golden figures:
- Llama 3 8B keeps 32 layers × 2 (K and V) × 8 KV heads × 128 head dim × 2 bytes =
  131,072 bytes of KV cache per token (Llama 3 8B config.json; the vLLM paper's method);
  a 32,768-token context is 4.29 GB per stream, 20 streams 85.9 GB.
- A full fine-tune with mixed-precision AdamW keeps 16 bytes per parameter (ZeRO §3.1):
  13B → 208 GB, 70B → 1,120 GB, i.e. 14 cards of 80 GB.
- A100 SXM NVLink 600 GB/s against PCIe 4.0 ×16 ≈ 63 GB/s both ways (A100 datasheet,
  PCIe 4.0 spec): ~9.5×.
- The catalog (seed 000): 8× A100 40GB ¥24,510/month, T4 ¥900/month.
"""

from __future__ import annotations

import pytest

from gpu_advisor.engine.concepts import BY_ID, Asked
from gpu_advisor.engine.concepts.base import TYPICAL_MODEL
from gpu_advisor.engine.specs import Knowledge


def facts(kb: Knowledge, ident: str, **asked: object) -> dict[str, float | str]:
    return BY_ID[ident].facts(kb, Asked(**asked))  # type: ignore[arg-type]


def test_kv_cache_is_computed_for_the_named_model_context_and_users(kb: Knowledge) -> None:
    f = facts(kb, "kv_cache_size", model="llama-3-8b", context_len=32768, concurrency=20)
    assert (f["kb_per_token"], f["per_seq_gb"], f["total_gb"]) == (131, 4.29, 85.9)
    assert f["fp8_total_gb"] == pytest.approx(float(f["total_gb"]) / 2, abs=0.1)
    assert f["typical"] == 0.0


def test_a_concept_without_a_model_uses_the_typical_one_and_says_so(kb: Knowledge) -> None:
    f = facts(kb, "kv_cache_size")
    assert f["model"] == kb.models[TYPICAL_MODEL].name and f["typical"] == 1.0


def test_a_bare_size_gets_a_shape_of_that_size(kb: Knowledge) -> None:
    small, big = facts(kb, "kv_cache_size", params_b=7), facts(kb, "kv_cache_size", params_b=70)
    assert small["typical"] == big["typical"] == 0.0 and big["weights_gb"] > 9 * float(small["weights_gb"])


def test_training_memory_is_sixteen_bytes_per_parameter(kb: Knowledge) -> None:
    f = facts(kb, "memory_breakdown", params_b=13)
    assert f["train_gb"] == 208.0 and f["optim_gb"] == 156.0 and f["weights_gb"] == 26.0


def test_a_70b_full_fine_tune_needs_fourteen_80gb_cards(kb: Knowledge) -> None:
    f = facts(kb, "multi_card_training", params_b=70)
    assert f["full_gb"] == 1120 and f["cards"] == 14 and float(f["qlora_gb"]) < 80


def test_pcie_against_sxm_carries_the_bandwidth_factor(kb: Knowledge) -> None:
    f = facts(kb, "pcie_vs_sxm_training")
    assert f["nvlink_gbs"] == 600 and f["pcie_gbs"] == 63 and f["wire_ratio"] == 9.5
    assert float(f["pcie_s"]) > 5 * float(f["nvlink_s"])


def test_an_idle_training_box_costs_many_serving_cards(kb: Knowledge) -> None:
    f = facts(kb, "keep_training_box")
    assert f["box_price"] == 24510 and f["serve_price"] == 900 and f["idle_share"] == 7 / 8
    assert f["ratio"] == 27


def test_a_model_too_big_for_one_card_is_served_from_a_machine_that_holds_it(kb: Knowledge) -> None:
    f = facts(kb, "train_to_serve", params_b=70)
    assert str(f["serve_card"]).startswith("2×") and f["serve_price"] == 5600


def test_precision_quotes_the_named_cards_rates(kb: Knowledge) -> None:
    f = facts(kb, "precision_choice", gpu="h100-sxm")
    assert (f["low"], f["low_rate"], f["bf16"]) == ("FP8", 1979.0, 989.5)


def test_a_card_without_fp8_is_quoted_at_int8(kb: Knowledge) -> None:
    assert facts(kb, "precision_choice", gpu="t4")["low"] == "INT8"
