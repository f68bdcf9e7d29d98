"""Turn a Workload's model description into a full transformer shape.

A named model comes from the knowledge base. A bare size ("13B") borrows the shape of
the nearest published dense model (a Llama-family template) and scales its depth so
the parameter count matches; the assumption is reported, never hidden.

Parameter count of a decoder layer with hidden size h, q heads × head dim d, KV heads
k, intermediate size i (gated MLP has three matrices, plain MLP two):
    attention = h·(n·d) + 2·h·(k·d) + (n·d)·h,   mlp = 3·h·i (gated) or 2·h·i,
plus the embedding (vocab × h) and an untied LM head of the same size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import EngineError
from engine.findings import Finding, finding
from engine.specs import ModelArch
from engine.workload import Workload

# Bare-size templates: (max params_b, layers, hidden, heads, kv_heads, inter/hidden, vocab, source).
# Below 30B we assume full multi-head attention (Llama-2 style), which is the conservative
# choice for KV-cache size; from 30B on, grouped-query attention with 8 KV heads.
_TEMPLATES: tuple[tuple[float, int, int, int, int, float, int, str], ...] = (
    (1.0, 24, 896, 14, 14, 5.43, 32000, "Qwen2.5-0.5B config.json, MHA assumed"),
    (2.5, 28, 1536, 12, 12, 5.83, 32000, "Qwen2.5-1.5B config.json, MHA assumed"),
    (5.0, 36, 2048, 16, 16, 5.5, 32000, "Qwen2.5-3B config.json, MHA assumed"),
    (10.0, 32, 4096, 32, 32, 2.6875, 32000, "Llama-2-7B config.json"),
    (25.0, 40, 5120, 40, 40, 2.6875, 32000, "Llama-2-13B config.json"),
    (50.0, 60, 7168, 56, 8, 2.857, 64000, "Yi-34B config.json"),
    (150.0, 80, 8192, 64, 8, 3.5, 32000, "Llama-2-70B config.json"),
    (math.inf, 126, 16384, 128, 8, 3.25, 128256, "Llama-3.1-405B config.json"),
)


@dataclass(frozen=True, slots=True)
class Resolved:
    arch: ModelArch
    assumed: tuple[Finding, ...]


def layer_params(arch: ModelArch) -> float:
    """Weights in one decoder layer (all experts counted for MoE)."""
    h, q, kv = arch.hidden_size, arch.num_heads * arch.head_dim, arch.num_kv_heads * arch.head_dim
    attention = h * q + 2 * h * kv + q * h
    mlp = (3 if arch.gated_mlp else 2) * h * arch.intermediate_size * arch.num_experts
    return float(attention + mlp + 2 * h)


def counted_params(arch: ModelArch) -> float:
    return arch.layers * layer_params(arch) + arch.embedding_params


def resolve(workload: Workload, models: dict[str, ModelArch]) -> Resolved:
    """The model's shape: named, or a template scaled to ``params_b`` with overrides applied."""
    if workload.model is not None:
        arch = find_model(workload.model, models)
        if arch is None:
            raise EngineError("unknown_model", "model", name=workload.model, known=len(models))
        return Resolved(arch, ())
    assert workload.params_b is not None
    return _from_size(workload)


def find_model(name: str, models: dict[str, ModelArch]) -> ModelArch | None:
    key = name.strip().lower()
    if key in models:
        return models[key]
    squashed = key.replace("_", "-").replace(" ", "-")
    for arch in models.values():
        forms = {arch.id, *arch.aliases}
        if key in forms or squashed in {f.replace(" ", "-") for f in forms}:
            return arch
    return None


def _from_size(w: Workload) -> Resolved:
    params_b = float(w.params_b or 0)
    t = next(t for t in _TEMPLATES if params_b <= t[0])
    _, layers, hidden, heads, kv, ratio, vocab, src = t
    hidden = w.hidden_size or hidden
    heads = w.num_heads or heads
    head_dim = w.head_dim or max(1, hidden // heads)  # a tiny hidden_size must not give 0
    kv = w.num_kv_heads or min(kv, heads)
    inter = w.intermediate_size or max(256, int(round(hidden * ratio / 256) * 256))
    vocab = w.vocab_size or vocab
    probe = ModelArch(
        id="custom",
        name=f"{params_b:g}B",
        family="custom",
        params_b=params_b,
        layers=1,
        hidden_size=hidden,
        num_heads=heads,
        num_kv_heads=_valid_kv(heads, kv),
        head_dim=head_dim,
        intermediate_size=inter,
        vocab_size=vocab,
        source=src,
    )
    if w.layers is None:
        per_layer = layer_params(probe)
        layers = max(1, round((params_b * 1e9 - probe.embedding_params) / per_layer))
    else:
        layers = w.layers
    arch = probe.model_copy(update={"layers": layers})
    assumed = finding(
        "bare_size_shape",
        params_b=params_b,
        layers=layers,
        hidden_size=hidden,
        num_heads=heads,
        num_kv_heads=arch.num_kv_heads,
        vocab_size=vocab,
        template=src,
    )
    return Resolved(arch, (assumed,))


def _valid_kv(heads: int, kv: int) -> int:
    """The largest divisor of ``heads`` not above ``kv`` (a user's KV head count must divide heads)."""
    return next(k for k in range(min(kv, heads), 0, -1) if heads % k == 0)


def lora_trainable_params(arch: ModelArch, rank: int, targets: str = "all_linear") -> float:
    """LoRA adds A (r×in) and B (out×r) to each targeted matrix: r·(in+out) per matrix.

    ``all_linear`` (q,k,v,o,gate,up,down — the QLoRA paper's choice) or ``attention``
    (q,v only — the original LoRA paper's choice).
    """
    h, q, kv, i = (
        arch.hidden_size,
        arch.num_heads * arch.head_dim,
        arch.num_kv_heads * arch.head_dim,
        arch.intermediate_size,
    )
    if targets == "attention":
        per_layer = rank * ((h + q) + (h + kv))
    else:
        attn = rank * ((h + q) + 2 * (h + kv) + (q + h))
        mlp = rank * (3 if arch.gated_mlp else 2) * (h + i) * arch.num_experts
        per_layer = attn + mlp
    return float(per_layer * arch.layers)
