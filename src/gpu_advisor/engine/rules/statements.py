"""Findings that are not rules: what a plan states whenever it computes it.

A rule (``Rule``) fires on a condition and proves each branch with a scenario. A
statement has no condition of its own: the plan's reasoning steps (the model's shape,
its memory, its speed), the defaults it assumed, its what-ifs, the notes of a judged
quote or a buy-versus-rent answer are said whenever the module that computes them runs.
So a statement is declared by its id alone, beside the module that emits it and the
locale file and key under which its sentence lives. With the rule families
(``engine.rules.families``) this is every finding id the engine can emit:
``tests/engine/test_findings_declared.py`` scans every ``finding(...)`` in the source and
every plan the tests build for an id declared in neither, and holds each declared id to
a sentence in both languages.

Adding a statement: emit it, add its id to its module's group below, add its sentence
to both locale files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Statements:
    """Statement ids emitted by ``modules`` whose sentences share a locale file and key prefix."""

    modules: tuple[str, ...]  # the emitting modules, as paths under ``gpu_advisor/``
    locale_file: str
    key_prefix: str
    ids: tuple[str, ...]


STATEMENTS: tuple[Statements, ...] = (
    Statements(
        ("engine/reasoning.py",),
        "findings",
        "finding.",
        (
            "model_shape",
            "model_states",
            "sharding",
            "activations",
            "training_fit",
            "scaling",
            "training_time",
            "serving_memory",
            "full_context_kv",
            "decode_speed",
            "ttft",
            "replicas",
            "cost_compare",
            "nothing_fits",
            "nothing_allowed",
            "nothing_allowed_domestic",
            "nothing_allowed_vendor",
        ),
    ),
    Statements(("engine/reasoning.py",), "plans", "finding.", ("decode_speed_split",)),
    Statements(
        ("engine/defaults.py",),
        "findings",
        "finding.",
        (
            "assumed_concurrency",
            "assumed_weight_dtype_search",
            "assumed_kv_dtype",
            "assumed_expert_parallel_as_tensor",
            "assumed_utilisation_target",
            "assumed_method",
            "assumed_seq_len",
            "assumed_batch_size",
            "assumed_optimizer",
            "assumed_gradient_checkpointing",
            "assumed_lora_rank",
            "assumed_recipe_defaults",
        ),
    ),
    Statements(
        ("engine/lengths.py",),
        "findings",
        "finding.",
        (
            "assumed_prompt_tokens",
            "assumed_output_tokens",
            "assumed_context_len",
            "context_raised_for_output",
        ),
    ),
    Statements(("engine/architecture.py",), "findings", "finding.", ("model_from_config", "bare_size_shape")),
    Statements(("engine/estimate.py",), "findings", "finding.", ("assumed_kv_per_user",)),
    Statements(("engine/recommend.py",), "findings", "finding.", ("assumed_colocated_plan",)),
    Statements(("engine/thinking.py",), "plans", "finding.", ("assumed_reasoning_output",)),
    Statements(
        ("engine/disaggregation.py",),
        "findings",
        "finding.",
        ("disaggregation_prefill_bound", "disaggregation_decode_bound"),
    ),
    Statements(
        ("engine/whatifs.py",),
        "findings",
        "finding.",
        (
            "what_if_double_qps",
            "what_if_double_concurrency",
            "what_if_longer_context",
            "what_if_longer_seq",
            "what_if_longer_seq_late",
            "what_if_8bit_optimizer",
            "what_if_8bit_optimizer_late",
            "what_if_yearly",
            "what_if_int4",
            "what_if_qlora",
            "what_if_without_limits",
        ),
    ),
    Statements(
        ("engine/ownership.py",),
        "money",
        "money.own.",
        (
            "no_purchase_price",
            "assumed_electricity",
            "hosting_not_counted",
            "host_not_priced",
            "no_api_price",
        ),
    ),
    Statements(
        ("engine/quote.py",),
        "money",
        "money.quote.",
        ("quote_above_catalog_range", "quote_needs_machines", "quote_does_not_fit"),
    ),
    Statements(
        ("engine/jobs/offers.py",),
        "compute_jobs",
        "finding.",
        ("job_card_not_rented",),
    ),
    Statements(("engine/jobs/encoding.py",), "compute_jobs", "finding.", ("encode_streams",)),
    Statements(
        ("engine/jobs/speech.py",),
        "compute_jobs",
        "finding.",
        (
            "synthesis_runtime_mismatch",
            "synthesis_arithmetic",
            "text_chars_to_audio",
            "text_words_to_audio",
            "daily_audio_load",
        ),
    ),
    Statements(
        ("engine/smallest_change.py",),
        "serving",
        "finding.",
        ("change_memory_share", "change_kv_fp8", "change_fewer_streams", "change_max_model_len"),
    ),
    Statements(
        ("engine/estimate.py",),
        "serving",
        "finding.",
        (
            "assumed_scheduler_limits",
            "ttft_p99_band",
            "ttft_p99_may_saturate",
            "chosen_layout",
            "chosen_layout_dp",
        ),
    ),
    Statements(
        ("engine/releases.py",),
        "serving",
        "finding.",
        (
            "assumed_runtime_release",
            "runtime_release_older",
            "runtime_release_newer",
            "runtime_release_no_change",
        ),
    ),
    Statements(
        (
            "engine/jobs/diffusion.py",
            "engine/jobs/image.py",
            "engine/jobs/image_train.py",
            "engine/jobs/video.py",
        ),
        "diffusion",
        "finding.",
        (
            "diffusion_memory",
            "diffusion_model_unknown",
            "diffusion_card_unknown",
            "image_seconds",
            "image_fleet",
            "train_steps",
            "train_memory",
            "train_seconds",
            "video_seconds",
            "assumed_resolution",
            "assumed_steps",
            "assumed_weight_format",
            "assumed_guidance",
            "assumed_peak_share",
            "assumed_cached_latents",
            "assumed_frames",
            "assumed_video_utilisation",
        ),
    ),
)
