"""Turn a Workload's model description into a full transformer shape.

A named model comes from the knowledge base. A bare size ("13B") borrows the shape of
the nearest published dense model (a Llama-family template) and scales its depth so
the parameter count matches; the assumption is reported, never hidden.

Parameter count of a decoder layer with hidden size h, q heads × head dim d, KV heads
k, intermediate size i (gated MLP has three matrices, plain MLP two):
    attention = h·(n·d) + 2·h·(k·d) + (n·d)·h,   mlp = 3·h·i (gated) or 2·h·i,
plus the embedding (vocab × h) and an untied LM head of the same size.

Multi-head latent attention (DeepSeek-V2 paper, arXiv:2405.04434, §2.1.2) replaces the
K/V projections by a down-projection to a latent of ``kv_lora_rank`` plus a shared
rotary key of ``qk_rope_head_dim``, and up-projections back to every head:
    q = h·q_lora + q_lora·n·d   (or h·n·d without a query latent)
    kv = h·(r_kv + d_rope) + r_kv·n·(d_nope + d_v),   o = n·d_v·h.
Mixture of experts (Mixtral, arXiv:2401.04088; DeepSeekMoE, arXiv:2401.06066): a MoE
layer holds E routed experts and S shared experts, each a gated MLP of the expert
intermediate size i_e, plus a router h·E; the first ``dense_layers`` layers keep a
dense MLP of ``intermediate_size``. Routed experts are what a token mostly skips:
    routed = moe_layers · E · 3·h·i_e,   active = total − routed · (1 − k/E).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.findings import Finding, finding
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


def attention_params(arch: ModelArch) -> float:
    """Weights of one layer's attention block (q, k, v, o or their MLA latents)."""
    h, n = arch.hidden_size, arch.num_heads
    if arch.attention == "mla":
        rank, rope = arch.kv_lora_rank or 0, arch.qk_rope_head_dim or 0
        nope = arch.qk_nope_head_dim or arch.head_dim - rope
        v = arch.v_head_dim or arch.head_dim
        q_lora = arch.q_lora_rank
        q = h * q_lora + q_lora * n * arch.head_dim if q_lora else h * n * arch.head_dim
        return float(q + h * (rank + rope) + rank * n * (nope + v) + n * v * h)
    q, kv = n * arch.head_dim, arch.num_kv_heads * arch.head_dim
    return float(h * q + 2 * h * kv + q * h)


def mlp_params(arch: ModelArch, intermediate: int) -> float:
    """One MLP (or one expert): gate, up and down projections when gated."""
    return float((3 if arch.gated_mlp else 2) * arch.hidden_size * intermediate)


def routed_expert_params(arch: ModelArch) -> float:
    """Weights of every routed expert in the model (0 for a dense model).

    These are the weights a decode step reads only in part: the experts its tokens chose.
    Capped below the stated total less the embeddings, so a config whose numbers do not
    add up cannot make the non-expert part negative.
    """
    if not arch.is_moe:
        return 0.0
    routed = arch.moe_layers * arch.num_experts * mlp_params(arch, arch.expert_intermediate_size)
    return min(routed, max(arch.params_b * 1e9 - arch.embedding_params, 0.0))


def shape_active_params(arch: ModelArch) -> float:
    """Parameters one token runs through, from the shape (the card's figure may round)."""
    routed = routed_expert_params(arch)
    if not routed:
        return arch.params_b * 1e9
    return arch.params_b * 1e9 - routed * (1.0 - arch.experts_per_token / arch.num_experts)


def layer_params(arch: ModelArch) -> float:
    """Weights in one decoder layer, averaged over dense and MoE layers (all experts counted)."""
    h = arch.hidden_size
    dense = mlp_params(arch, arch.intermediate_size)
    if arch.is_moe:
        per_expert = mlp_params(arch, arch.expert_intermediate_size)
        moe = (arch.num_experts + arch.shared_experts) * per_expert + h * arch.num_experts
        mlp = (arch.dense_layers * dense + arch.moe_layers * moe) / arch.layers
    else:
        mlp = dense
    return attention_params(arch) + mlp + 2.0 * h


def counted_params(arch: ModelArch) -> float:
    return arch.layers * layer_params(arch) + arch.embedding_params


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
    from gpu_advisor.engine.model_config import arch_from_config  # it counts weights with this module

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
    """The library model ``name`` stands for, resolved as chat resolves it (see reading.names)."""
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
    per_layer: float
    if targets == "attention":
        per_layer = rank * ((h + q) + (h + kv))
    else:
        attn = rank * ((h + q) + 2 * (h + kv) + (q + h))
        mlp: float = rank * (3 if arch.gated_mlp else 2) * (h + i)
        if arch.is_moe:
            i_e = arch.expert_intermediate_size
            per_expert = rank * (3 if arch.gated_mlp else 2) * (h + i_e)
            moe = per_expert * (arch.num_experts + arch.shared_experts)
            mlp = (mlp * arch.dense_layers + moe * arch.moe_layers) / arch.layers
        per_layer = attn + mlp
    return float(per_layer * arch.layers)
