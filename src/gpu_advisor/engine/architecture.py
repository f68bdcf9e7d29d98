"""Turn a Workload's model description into a full transformer shape.

A named model comes from the knowledge base. A bare size ("13B") borrows the shape of
the nearest published dense model (a Llama-family template) and scales its depth so
the parameter count matches; the assumption is reported, never hidden.

The parameter counts those shapes imply (attention, MLP, experts, LoRA adapters) are
``engine.param_count``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.model_config import arch_from_config
from gpu_advisor.engine.param_count import layer_params
from gpu_advisor.engine.specs import ModelArch
from gpu_advisor.engine.workload import Workload
from gpu_advisor.text.names import resolve as resolve_name

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


def resolve(workload: Workload, models: dict[str, ModelArch]) -> Resolved:
    """The model's shape: from a config.json, named, or a template scaled to ``params_b``."""
    if workload.hf_config is not None:
        return _from_config(workload.hf_config, workload.model)
    if workload.model is not None:
        arch = find_model(workload.model, models)
        if arch is None:
            raise EngineError("unknown_model", "model", name=workload.model, known=len(models))
        return Resolved(arch, ())
    assert workload.params_b is not None
    return _from_size(workload)


def _from_config(config: dict[str, object], name: str | None) -> Resolved:
    """The shape a pasted config.json defines, reported so the user sees what was read."""
    arch = arch_from_config(config, name)
    read = finding(
        "model_from_config",
        name=arch.name,
        params_b=round(arch.params_b, 2),
        active_params_b=round(arch.active_b, 2),
        layers=arch.layers,
        attention=arch.attention,
        num_experts=arch.num_experts,
        experts_per_token=arch.experts_per_token,
        native_dtype=arch.native_dtype,
    )
    return Resolved(arch, (read,))


def find_model(name: str, models: dict[str, ModelArch]) -> ModelArch | None:
    """The library model ``name`` stands for, resolved as chat resolves it (see text.names)."""
    return resolve_name(name, models)


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
