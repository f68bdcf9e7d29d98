"""The engine's side of bench/gpu_measure.py and the rows it writes (no torch here).

For each figure the GPU script takes, this module builds the same workload for the
engine (the preset's config.json read by engine/model_config.py), asks for its
prediction, and shapes the figure as a row of tests/calibration/*.yaml. Kept apart
from the measuring code so the tests can check shapes, predictions and rows without
torch, transformers or peft installed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCE = "own measurement, bench/gpu_measure.py"
GIB = 1024**3


@dataclass(frozen=True, slots=True)
class Shape:
    """The numbers that define a Llama decoder, as in its config.json."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    tie: bool


# Shapes of public Llama-architecture models (from their config.json), rebuilt with random weights.
PRESETS: dict[str, Shape] = {
    "tiny": Shape(2, 64, 4, 2, 128, 1000, tie=False),
    # Qwen2.5-0.5B's shape (Qwen/Qwen2.5-0.5B config.json) as a Llama block.
    "0.5b": Shape(24, 896, 14, 2, 4864, 151936, tie=True),
    # meta-llama/Llama-3.2-1B config.json.
    "1b": Shape(16, 2048, 32, 8, 8192, 128256, tie=True),
    # meta-llama/Llama-3.2-3B config.json.
    "3b": Shape(28, 3072, 24, 8, 8192, 128256, tie=True),
}


@dataclass(frozen=True, slots=True)
class Measured:
    """One figure, the workload it was taken on, and what the engine predicts for it."""

    record: dict[str, Any]
    predicted: float | None
    label: str


def hf_config(preset: str) -> dict[str, Any]:
    """The preset as a transformers LlamaConfig dict (the engine reads the same dict)."""
    p = PRESETS[preset]
    return {
        "model_type": "llama",
        "_name_or_path": f"llama-shape-{preset}",
        "num_hidden_layers": p.layers,
        "hidden_size": p.hidden,
        "num_attention_heads": p.heads,
        "num_key_value_heads": p.kv_heads,
        "intermediate_size": p.intermediate,
        "vocab_size": p.vocab,
        "tie_word_embeddings": p.tie,
        "max_position_embeddings": 8192,
        "hidden_act": "silu",
    }


def predicted_training_gib(
    config: dict[str, Any], method: str, checkpointing: bool, args: argparse.Namespace
) -> float:
    """The engine's peak per GPU for the same shape and settings, as max_memory_allocated reads it.

    torch's allocated counter sees neither the ~1 GiB CUDA context nor the allocator's
    fragmentation, so both are taken off the engine's total before comparing
    (``notes`` of engine.memory.training_memory, engine.train_terms).
    """
    from gpu_advisor.engine.memory import TrainSetup, training_memory
    from gpu_advisor.engine.model_config import arch_from_config

    arch = arch_from_config(config)
    setup = TrainSetup(
        method=method,
        weight_dtype="bf16",
        optimizer="adamw",
        batch_size=args.batch,
        seq_len=args.seq,
        gradient_checkpointing=checkpointing,
        flash_attention=True,  # transformers' default SDPA keeps no s×s score matrix
        lora_rank=16,
    )
    mem = training_memory(arch, setup)
    return (mem.total - mem.notes["cuda_context_bytes"] - mem.notes["fragmentation_bytes"]) / GIB


def predicted_decode(config: dict[str, Any], gpu: Any, batch: int, args: argparse.Namespace) -> float | None:
    """The engine's per-sequence decode tokens/s for transformers on this card (None: card unknown)."""
    if gpu is None:
        return None
    from gpu_advisor import knowledge
    from gpu_advisor.engine.model_config import arch_from_config
    from gpu_advisor.engine.throughput import serving_point

    arch, rt = arch_from_config(config), knowledge.load().runtimes["transformers"]
    point = serving_point(arch, gpu, rt, "bf16", "fp16", batch, args.prompt_tokens, args.new_tokens)
    return float(point.tokens_per_s_per_seq)


def record(
    kind: str,
    preset: str,
    config: dict[str, Any],
    env: dict[str, Any],
    settings: dict[str, Any],
    batch: int,
    value: float,
    unit: str,
) -> dict[str, Any]:
    """One row in the format of tests/calibration/measurements.yaml, plus shape, settings and versions."""
    return {
        "id": f"own_{env['gpu_name'].lower().replace(' ', '_')}_{preset}_{kind}_{_slug(settings)}_b{batch}",
        "kind": kind,
        "runtime": "transformers",
        "gpu": env.get("gpu_id"),
        "gpu_count": 1,
        "model": f"llama-shape-{preset}",
        "weight_dtype": "bf16",
        "batch": batch,
        "prompt_tokens": settings.get("seq_len", env.get("prompt_tokens")),
        "output_tokens": env.get("output_tokens") if kind == "decode_tokens_per_s" else None,
        "value": value,
        "unit": unit,
        "split": "holdout",
        "source": SOURCE,
        "date": dt.date.today().strftime("%Y-%m"),
        "environment": {
            k: v for k, v in env.items() if k not in ("gpu_id", "prompt_tokens", "output_tokens")
        },
        "model_config": dict(config),
        "settings": settings,
    }


def _slug(settings: dict[str, Any]) -> str:
    if "gradient_checkpointing" in settings:
        return f"{settings['method']}_{'ckpt' if settings['gradient_checkpointing'] else 'nockpt'}"
    return "decode"


def card_spec(name: str) -> Any:
    """The knowledge base's GpuSpec for the card torch names ("NVIDIA H200"), or None."""
    from gpu_advisor import knowledge
    from gpu_advisor.text.names import resolve

    return resolve(name.removeprefix("NVIDIA ").strip(), knowledge.load().gpus) or resolve(
        name, knowledge.load().gpus
    )


def print_table(rows: list[Measured]) -> None:
    print(f"\n{'workload':44} {'measured':>10} {'engine':>10} {'ratio':>7}  unit")
    for m in rows:
        value = m.record["value"]
        engine = f"{m.predicted:10.2f}" if m.predicted is not None else f"{'—':>10}"
        ratio = f"{value / m.predicted:7.2f}" if m.predicted else f"{'—':>7}"
        print(f"{m.label:44} {value:10.2f} {engine} {ratio}  {m.record['unit']}")


def write_records(rows: list[Measured], path: Path) -> None:
    """YAML when PyYAML is present (it is, with the project installed), else JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [m.record for m in rows]
    try:
        import yaml

        path.write_text(yaml.safe_dump(records, sort_keys=False, allow_unicode=True))
    except ImportError:
        path.with_suffix(".json").write_text(json.dumps(records, indent=2))
    print(f"\n{len(records)} records written to {path}")


def default_out(env: dict[str, Any], device: str) -> Path:
    """Real cards: tests/calibration/own/<card>.yaml, to review and commit. CPU: a temp folder."""
    slug = env["gpu_name"].lower().replace(" ", "-")
    if not device.startswith("cuda"):
        return Path(tempfile.mkdtemp(prefix="gpu_measure_")) / f"{slug}.yaml"
    return Path(__file__).resolve().parent.parent / "tests" / "calibration" / "own" / f"{slug}.yaml"
