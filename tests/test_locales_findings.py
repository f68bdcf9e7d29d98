"""Every finding the engine emits reads as a sentence in Chinese and in English.

The sample values below use the value names each engine module really sets
(engine/reasoning.py, pitfalls.py, myths.py, whatifs.py, defaults.py, architecture.py)
with figures of the size the shipped knowledge base produces.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_advisor import locales

LOCALES = Path(locales.__file__).parent
FILES = {"zh": LOCALES / "zh-CN" / "findings.yaml", "en": LOCALES / "en" / "findings.yaml"}

SAMPLES: dict[str, dict[str, Any]] = {
    # assumptions (engine/defaults.py, engine/architecture.py)
    "assumed_batch_size": {"value": 1},
    "assumed_concurrency": {"value": 4},
    "assumed_utilisation_target": {"value": 0.7},
    "assumed_context_len": {"value": 4096},
    "assumed_kv_per_user": {"tokens": 768, "context_len": 4096},
    "assumed_gradient_checkpointing": {"value": True},
    "assumed_kv_dtype": {"value": "fp16"},
    "assumed_lora_rank": {"value": 16, "targets": "all_linear"},
    "assumed_method": {"value": "full"},
    "assumed_optimizer": {"value": "adamw"},
    "assumed_recipe_defaults": {
        "recipe": "ms_swift",
        "checkpointing": True,
        "states": "bf16",
        "loss": "loss_standard",
        "optimizer": "adamw",
        "foreach": True,
    },
    "assumed_output_tokens": {"value": 256},
    "assumed_prompt_tokens": {"value": 512},
    "assumed_seq_len": {"value": 2048},
    "assumed_weight_dtype_search": {"value": ["bf16", "fp8", "int8", "awq"]},
    # engine/lengths.py: llama-3.1-8b asked for 8k answers beside the default 512-token prompt
    "context_raised_for_output": {
        "context_len": 8704,
        "was": 4096,
        "prompt_tokens": 512,
        "output_tokens": 8192,
        "max_context": 131072,
    },
    "bare_size_shape": {
        "params_b": 13.0,
        "layers": 40,
        "hidden_size": 5120,
        "num_heads": 40,
        "num_kv_heads": 40,
        "vocab_size": 32000,
        "template": "Llama-2-13B config.json",
    },
    "model_from_config": {  # engine/architecture.py, a pasted config.json
        "name": "deepseek_v3",
        "params_b": 671.03,
        "active_params_b": 37.55,
        "layers": 61,
        "attention": "mla",
        "num_experts": 256,
        "experts_per_token": 8,
        "native_dtype": "fp8",
    },
    # reasoning (engine/reasoning.py)
    "model_shape": {
        "model": "Llama 3.1 8B",
        "params_b": 8.03,
        "active_params_b": 8.03,
        "layers": 32,
        "num_heads": 32,
        "num_kv_heads": 8,
        "kv_kib_per_token": 128.0,
    },
    "model_states": {
        "method": "full",
        "trainable_params_b": 7.0,
        "bytes_per_param": 16.0,
        "states_gib": 104.31,
        "optimizer": "adamw",
    },
    "sharding": {"zero_stage": 3, "gpus": 8, "per_gpu_states_gib": 13.04},
    "activations": {
        "seq_len": 2048,
        "batch_size": 1,
        "gradient_checkpointing": True,
        "activations_gib": 1.25,
    },
    "training_fit": {
        "gpu": "NVIDIA A100 80GB SXM4",
        "total_gib": 17.6,
        "capacity_gib": 79.15,
        "overhead_gib": 2.5,
    },
    "scaling": {
        "interconnect": "nvlink",
        "link_gbs": 240.0,
        "sync_s": 0.012,
        "compute_s": 1.84,
        "efficiency": 0.982,
        "machines": 1,
    },
    "training_time": {
        "train_tokens": 2e8,
        "hours": 5.42,
        "gpu_hours": 43.4,
        "mfu": 0.4,
        "tokens_per_s": 10250,
    },
    "serving_memory": {
        "gpu": "NVIDIA T4",
        "weight_dtype": "awq",
        "bits": 4.25,
        "weights_gib": 4.1,
        "kv_gib": 1.5,
        "overhead_gib": 1.2,
        "total_gib": 6.8,
        "capacity_gib": 14.58,
        "batch": 4,
        "tokens_per_seq": 768,
        "tensor_parallel": 1,
    },
    "full_context_kv": {"context_len": 4096, "kv_gib_per_seq": 2.0, "max_batch": 9},
    "decode_speed": {
        "tokens_per_s": 38.6,
        "batch": 4,
        "bound": "memory",
        "bandwidth_gbs": 320.0,
        "runtime": "vLLM",
        "bw_efficiency": 0.78,
        "aggregate_tokens_per_s": 150.2,
    },
    "ttft": {"ttft_ms": 180.0, "prompt_tokens": 512, "target_ms": 500.0},
    "replicas": {
        "concurrency": 1,
        "qps": 20.0,
        "replicas": 2,
        "machines": 2,
        "requests_per_s": 24.6,
        "gpus_per_machine": 1,
    },
    "cost_compare": {
        "offer": "t4-1x",
        "amount": 900.0,
        "currency": "CNY",
        "per": "month",
        "monthly": 900.0,
        "candidates": 5,
        "next_gpu": "NVIDIA GeForce RTX 3090",
        "next_amount": 1750.0,
    },
    "nothing_fits": {"largest_offer": "h100-sxm-8x", "gpus": 8, "capacity_gib": 79.11, "need_gib": 310.5},
    # engine/reasoning.py: the user's card limits leave no offer
    "nothing_allowed": {"excluded": 2},
    "nothing_allowed_domestic": {},
    "nothing_allowed_vendor": {"vendor": "amd"},
    # pitfalls (engine/pitfalls.py)
    "inference_on_training_machine": {
        "gpu": "NVIDIA A100 40GB SXM4",
        "gpus": 8,
        "requested_monthly": 22400.0,
        "pick_monthly": 900,
        "pick_gpu": "NVIDIA T4",
        "pick_gpus": 1,
        "saving_monthly": 21500,
        "utilization_pct": 6.5,
        "currency": "CNY",
    },
    "training_on_inference_card": {
        "gpu": "NVIDIA T4",
        "capacity_gib": 14.58,
        "need_gib": 210.3,
        "method": "full",
        "pick_gpu": "NVIDIA A100 40GB SXM4",
        "pick_gpus": 8,
    },
    "pcie_card_sold_as_nvlink_trainer": {
        "gpu": "NVIDIA A100 80GB PCIe",
        "gpus": 8,
        "pcie_gbs": 18.9,
        "nvlink_gbs": 240.0,
        "efficiency": 0.41,
    },
    "slow_network_for_multi_node": {
        "machines": 2,
        "network_gbps": 10,
        "efficiency": 0.22,
        "sync_s": 14.5,
        "compute_s": 4.1,
    },
    "multi_node_replica": {
        "machines": 4,
        "replicas": 1,
        "tokens_per_s": 83,
        "need_gbps": 0.1,
        "network_gbps": 200,
    },
    "multi_node_replica_network_short": {
        "machines": 2,
        "replicas": 1,
        "tokens_per_s": 1900,
        "need_gbps": 152.0,
        "network_gbps": 10,
    },
    "p99_ttft_unreachable": {"target_ms": 200.0, "best_ms": 5316.2, "qps": 1.0},
    "p99_tpot_unreachable": {"target_ms": 2.0, "best_ms": 9.6, "qps": 1.0},
    "deadline_missed": {
        "deadline_hours": 48.0,
        "hours": 174442.6,
        "ratio": 3634.2,
        "gpus": 32,
        "gpu": "H100",
    },
    "monthly_rental_for_short_job": {
        "hours": 6.5,
        "billed": 2800,
        "effective_hourly": 430.8,
        "currency": "CNY",
    },
    "quantize_before_deploy": {
        "weight_dtype": "awq",
        "gpu": "NVIDIA T4",
        "monthly": 900,
        "pick_monthly": 1750,
        "saving_monthly": 850,
    },
    "kv_cache_dominates": {
        "kv_gib": 12.5,
        "weights_gib": 3.9,
        "batch": 16,
        "num_kv_heads": 32,
        "num_heads": 32,
    },
    "nvlink_useless_for_inference": {"gpu": "NVIDIA A100 40GB SXM4", "nvlink_gbs": 600.0, "replicas": 2},
    "nvlink_needed_for_tensor_parallel": {
        "tensor_parallel": 4,
        "nvlink_ms_per_token": 1.28,
        "pcie_ms_per_token": 3.84,
        "layers": 80,
    },
    "bandwidth_over_capacity": {
        "gpu": "NVIDIA T4",
        "bandwidth_gbs": 320.0,
        "tokens_per_s": 22.4,
        "other_gpu": "NVIDIA GeForce RTX 3090",
        "other_bandwidth_gbs": 936.0,
        "other_tokens_per_s": 65.5,
        "other_monthly": 1750,
        "monthly": 900,
    },
    "release_training_machine": {"monthly": 2800, "hours": 12.5, "currency": "CNY"},
    "cpu_ram_storage_starve_gpus": {
        "gpus": 8,
        "cpu_cores": 8,
        "ram_gb": 64,
        "need_cores": 64,
        "need_ram_gb": 512,
        "addons": ["cpu-16c", "ram-128g"],
        "addon_monthly": 1000.0,
        "currency": "CNY",
    },
    "consumer_card_limits": {"gpu": "NVIDIA GeForce RTX 3090", "memory_gb": 24.0, "nvlink_gbs": 0.0},
    "china_variant_limits": {
        "gpu": "NVIDIA A800 80GB SXM4",
        "nvlink_gbs": 400.0,
        "bf16_tflops": 312.0,
        "bandwidth_gbs": 2039.0,
    },
    "free_gpu_platform_limits": {"session_hours": 12, "job_hours": 30.5},
    "own_hardware_is_enough": {
        "gpu": "NVIDIA GeForce RTX 4090",
        "gpus": 1,
        "total_gib": 19.4,
        "capacity_gib": 23.6,
        "pick_monthly": 1750,
        "currency": "CNY",
    },
    "software_stack_matters": {
        "runtime": "vLLM",
        "baseline": "transformers_generate",
        "speedup": 1.56,
        "continuous_batching": True,
    },
    # myths (engine/myths.py)
    "myth_adam_doubles_memory": {
        "params_b": 13.0,
        "claimed_gb": 52.0,
        "true_gb": 208.0,
        "bytes_per_param": 16,
    },
    "myth_full_finetune_7b_fits_40gb": {"params_b": 7.0, "true_gb": 112.0, "card_gb": 40.0},
    "myth_full_finetune_13b_fits_80gb": {
        "params_b": 13.0,
        "true_gb": 208.0,
        "card_gb": 80.0,
        "cards_needed": 3,
    },
    "myth_q4_405b_on_one_h100": {"weights_gb": 245.6, "card_gb": 80.0, "cards_needed": 4},
    "myth_t4_int8_65_tops": {"int8_tops": 130.0, "fp16_tflops": 65.0},
    "myth_a100_nvlink_900": {"a100_gbs": 600.0, "h100_gbs": 900.0},
    "myth_pcie_64_gbs": {"per_direction_gbs": 31.5, "both_gbs": 63.0},
    "myth_a100_4g_slice": {"smallest_40gb": "1g.5gb", "smallest_80gb": "1g.10gb"},
    "myth_h100_10t_tokens_per_day": {
        "params_b": 6.74,
        "tokens_per_day": 6_760_000_000,
        "mfu": 0.4,
        "claimed": 10e12,
        "ratio": 1479,
    },
    "myth_t4_high_bandwidth": {"t4_gbs": 320.0, "rtx3090_gbs": 936.0, "a100_gbs": 1555.0},
    "myth_nvlink_useless_for_inference": {"true_for": "replicas", "false_for": "tensor_parallel"},
    "assumed_colocated_plan": {"prefill_gpus": 2},
    "assumed_expert_parallel_as_tensor": {"value": 8},
    # engine/disaggregation.py: Llama 3.1 70B FP8 on 8× H100, 2 prefill + 6 decode GPUs, 4000/500 tokens
    "disaggregation_prefill_bound": {
        "prefill_gpus": 2,
        "decode_gpus": 6,
        "prefill_rps": 2.456,
        "decode_rps": 17.099,
        "balanced_prefill_gpus": 6,
        "balanced_decode_gpus": 2,
        "balanced_rps": 5.7,
        "decode_per_prefill_gpu": 0.431,
        "colocated_rps": 5.64,
    },
    "disaggregation_decode_bound": {
        "prefill_gpus": 6,
        "decode_gpus": 2,
        "prefill_rps": 7.4,
        "decode_rps": 5.7,
        "balanced_prefill_gpus": 6,
        "balanced_decode_gpus": 2,
        "balanced_rps": 5.7,
        "decode_per_prefill_gpu": 0.431,
        "colocated_rps": 5.64,
    },
    # what-ifs (engine/whatifs.py)
    "what_if_double_concurrency": {
        "gpu": "NVIDIA GeForce RTX 3090",
        "gpus": 1,
        "amount": 1750,
        "pick_amount": 900,
        "currency": "CNY",
        "concurrency": 8,
    },
    "what_if_double_qps": {
        "gpu": "NVIDIA T4",
        "gpus": 4,
        "amount": 3600,
        "pick_amount": 1800,
        "currency": "CNY",
        "qps": 40.0,
    },
    "what_if_longer_context": {
        "gpu": "NVIDIA A100 40GB SXM4",
        "gpus": 1,
        "amount": 2800,
        "pick_amount": 900,
        "currency": "CNY",
        "context_len": 16384,
    },
    "what_if_longer_seq": {
        "gpu": "NVIDIA A100 40GB SXM4",
        "gpus": 2,
        "amount": 5600,
        "pick_amount": 2800,
        "currency": "CNY",
        "seq_len": 4096,
    },
    "what_if_8bit_optimizer": {
        "gpu": "NVIDIA A100 40GB SXM4",
        "gpus": 2,
        "amount": 5600,
        "pick_amount": 22400,
        "currency": "CNY",
    },
    "what_if_longer_seq_late": {
        "gpu": "NVIDIA A100 40GB SXM4",
        "gpus": 8,
        "amount": 49020,
        "pick_amount": 320000,
        "currency": "CNY",
        "seq_len": 4096,
        "hours": 810.5,
        "deadline_hours": 24.0,
    },
    "what_if_8bit_optimizer_late": {
        "gpu": "NVIDIA A100 40GB SXM4",
        "gpus": 8,
        "amount": 24510,
        "pick_amount": 320000,
        "currency": "CNY",
        "hours": 572.0,
        "deadline_hours": 24.0,
    },
    "what_if_int4": {"gpu": "NVIDIA A100 40GB SXM4", "amount": 2800},
    "what_if_without_limits": {"gpu": "NVIDIA T4", "gpus": 1, "amount": 900, "currency": "CNY"},
    "what_if_qlora": {"gpu": "NVIDIA T4", "gpus": 1, "amount": 900},
    "what_if_yearly": {"monthly": 2800, "yearly_monthly": 2240, "saving_year": 6720, "currency": "CNY"},
}

# The values each finding may carry as None, and the sibling key ``<id>_none`` used then.
OPTIONAL: dict[str, tuple[str, ...]] = {
    "context_raised_for_output": ("max_context",),
    "ttft": ("target_ms",),
    "replicas": ("qps",),
    "cost_compare": ("next_gpu", "next_amount"),
    "nothing_fits": ("need_gib",),
    "training_on_inference_card": ("pick_gpu", "pick_gpus"),
    "pcie_card_sold_as_nvlink_trainer": ("efficiency",),
    "release_training_machine": ("hours",),
    "free_gpu_platform_limits": ("job_hours",),
    "own_hardware_is_enough": ("pick_monthly",),
    "disaggregation_prefill_bound": ("colocated_rps",),
    "disaggregation_decode_bound": ("colocated_rps",),
    "what_if_double_concurrency": ("gpu", "gpus", "amount"),
    "what_if_double_qps": ("gpu", "gpus", "amount"),
    "what_if_longer_context": ("gpu", "gpus", "amount"),
    "what_if_longer_seq": ("gpu", "gpus", "amount"),
    "what_if_8bit_optimizer": ("gpu", "gpus", "amount"),
    "what_if_int4": ("gpu", "amount"),
    "what_if_without_limits": ("gpu", "gpus", "amount"),
    "what_if_qlora": ("gpu", "gpus", "amount"),
}

MONEY = {
    "amount",
    "monthly",
    "pick_amount",
    "next_amount",
    "requested_monthly",
    "pick_monthly",
    "saving_monthly",
    "other_monthly",
    "billed",
    "effective_hourly",
    "addon_monthly",
    "saving_year",
    "yearly_monthly",
}
FRACTIONS = {"efficiency", "bw_efficiency", "mfu"}
NUMBER_SPECS = {"n", "n0", "n1", "pct", "big", "money"}

# Latin words a Chinese engineer writes as they are: units, product and format names, terms of art.
ZH_ALLOWED_WORDS = {
    "GiB", "GB", "GB/s", "KiB", "Gbps", "ms", "bit", "token", "token/s",
    "TOPS", "TFLOPS", "QPS", "TTFT", "MFU",
    "GPU", "CPU", "NVMe", "PCIe", "NVLink", "SXM", "InfiniBand", "RoCE", "MIG", "ZeRO", "stage",
    "KV", "cache", "batch", "rank", "checkpoint", "LoRA", "QLoRA", "GQA", "AdamW", "CUDA",
    "FP16", "FP32", "FP8", "BF16", "INT4", "INT8", "AWQ", "Q4", "B", "H100", "A100", "G", "T4",
    "Llama", "g", "gb",
}  # fmt: skip

CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")


def _flat_keys(node: Any, prefix: str = "") -> set[str]:
    if not isinstance(node, dict):
        return {prefix}
    return set().union(*(_flat_keys(v, f"{prefix}.{k}" if prefix else str(k)) for k, v in node.items()))


def _file_keys(lang: str) -> set[str]:
    return _flat_keys(yaml.safe_load(FILES[lang].read_text(encoding="utf-8")))


def _fields(template: str) -> list[tuple[str, str]]:
    return [(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template) if name]


def _finding_keys() -> list[str]:
    return sorted(k.removeprefix("finding.") for k in _file_keys("en") if k.startswith("finding."))


def _sample_for(key: str) -> dict[str, Any]:
    """Values for a template key: the finding's sample, with its optional values None for ``_none``."""
    if key in SAMPLES:
        return SAMPLES[key]
    base = key.removesuffix("_none")
    return {k: (None if k in OPTIONAL[base] else v) for k, v in SAMPLES[base].items()}


def _has_number(values: dict[str, Any]) -> bool:
    return any(isinstance(v, int | float) and not isinstance(v, bool) for v in values.values())


def test_both_languages_have_the_same_keys() -> None:
    assert _file_keys("zh") == _file_keys("en")


def test_only_finding_caveat_and_common_keys_are_defined() -> None:
    for lang in FILES:
        assert {k.split(".")[0] for k in _file_keys(lang)} == {"finding", "caveat", "common"}
        assert {"common.yes", "common.no"} <= _file_keys(lang)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_caveat_is_a_short_form_of_a_finding_and_renders_from_its_values(lang: str) -> None:
    for key in sorted(k for k in _file_keys(lang) if k.startswith("caveat.")):
        finding = key.removeprefix("caveat.")
        assert f"finding.{finding}" in _file_keys(lang), key
        text = locales.t(lang, key, **SAMPLES[finding])
        assert "?" not in text and len(text) <= 100, (key, text)


def test_every_sampled_finding_has_a_template() -> None:
    keys = set(_finding_keys())
    assert set(SAMPLES) <= keys


def test_every_template_is_covered_by_a_sample() -> None:
    for key in _finding_keys():
        if key == "_generic":
            continue
        base = key.removesuffix("_none")
        assert key in SAMPLES or (key.endswith("_none") and base in OPTIONAL), key


def test_none_siblings_exist_for_every_optional_value() -> None:
    keys = set(_finding_keys())
    assert {f"{k}_none" for k in OPTIONAL} <= keys


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("key", _finding_keys())
def test_template_uses_only_the_values_its_finding_carries(lang: str, key: str) -> None:
    if key == "_generic":
        return
    template = locales.messages(lang)[f"finding.{key}"]
    carried = set(_sample_for(key))
    for name, spec in _fields(template):
        assert name in carried, f"{lang} {key}: {{{name}}}"
        if name in MONEY:
            assert spec == "money", f"{lang} {key}: {{{name}}} should use :money"
        if name in FRACTIONS:
            assert spec == "pct", f"{lang} {key}: {{{name}}} is a fraction, use :pct"
        value = SAMPLES[key.removesuffix("_none")][name]
        if isinstance(value, int | float) and not isinstance(value, bool):
            numeric = spec in NUMBER_SPECS or spec.startswith("plural:")
            assert numeric, f"{lang} {key}: {{{name}}} needs a number spec"
        if isinstance(value, bool):
            assert spec == "yesno", f"{lang} {key}: {{{name}}} is a boolean, use :yesno"


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("key", _finding_keys())
def test_template_renders_with_realistic_values(lang: str, key: str) -> None:
    if key == "_generic":
        return
    values = _sample_for(key)
    text = locales.render_finding(lang, key, values)
    assert "{" not in text and "}" not in text, text
    if _has_number({k: v for k, v in values.items() if v is not None}):
        assert re.search(r"\d", text), text


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("key", sorted(OPTIONAL))
def test_none_sibling_does_not_print_question_marks(lang: str, key: str) -> None:
    text = locales.render_finding(lang, f"{key}_none", _sample_for(f"{key}_none"))
    assert "?" not in text, text


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_template_survives_every_value_missing(lang: str, key: str) -> None:
    text = locales.render_finding(lang, key, dict.fromkeys(SAMPLES[key]))
    assert "{" not in text


def test_money_reads_in_the_users_currency_style() -> None:
    values = SAMPLES["what_if_yearly"]
    assert "¥2,240" in locales.render_finding("zh", "what_if_yearly", values)
    assert "CN¥2,240" in locales.render_finding("en", "what_if_yearly", values)


def test_train_tokens_read_as_big_numbers() -> None:
    values = SAMPLES["training_time"]
    assert "2亿" in locales.render_finding("zh", "training_time", values)
    assert "200M" in locales.render_finding("en", "training_time", values)


def test_myths_state_the_true_figure() -> None:
    # NVIDIA T4 datasheet: 130 TOPS INT8, 65 TFLOPS FP16.
    for lang in ("zh", "en"):
        text = locales.render_finding(lang, "myth_t4_int8_65_tops", SAMPLES["myth_t4_int8_65_tops"])
        assert "130" in text
    # ZeRO paper: 16 bytes per parameter for mixed-precision Adam, so 7B needs ~112 GB.
    seven_b = SAMPLES["myth_full_finetune_7b_fits_40gb"]
    assert "112" in locales.render_finding("zh", "myth_full_finetune_7b_fits_40gb", seven_b)


def test_unknown_finding_falls_back_to_the_generic_line() -> None:
    for lang in ("zh", "en"):
        text = locales.render_finding(lang, "brand_new_rule", {"gpus": 8})
        assert "brand_new_rule" in text and "gpus=8" in text


@pytest.mark.parametrize("key", _finding_keys())
def test_chinese_template_is_chinese(key: str) -> None:
    template = locales.messages("zh")[f"finding.{key}"]
    assert CJK.search(template), template
    prose = re.sub(r"\{[^}]*\}", " ", template)
    words = set(re.findall(r"[A-Za-z][A-Za-z0-9]*(?:/s\b)?", prose))
    assert words <= ZH_ALLOWED_WORDS, f"{key}: untranslated {sorted(words - ZH_ALLOWED_WORDS)}"


@pytest.mark.parametrize("key", _finding_keys())
def test_english_template_has_no_chinese(key: str) -> None:
    template = locales.messages("en")[f"finding.{key}"]
    assert not CJK.search(template), template


def test_booleans_render_as_words() -> None:
    zh = locales.render_finding("zh", "activations", SAMPLES["activations"])
    en = locales.render_finding("en", "activations", SAMPLES["activations"])
    assert "True" not in zh and "是" in zh
    assert "True" not in en and "yes" in en
