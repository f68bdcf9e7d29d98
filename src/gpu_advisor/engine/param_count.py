"""How many weights a transformer shape holds: per layer, per block, in total and active.

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

These counts are what ``engine.memory`` and ``engine.throughput`` size weights and steps
with, and what a pasted config.json (``engine.model_config``) and a bare size
(``engine.architecture``) are checked and scaled against; they read a ``ModelArch``
and nothing else, so they stand below every module that resolves or sizes a model.
"""

from __future__ import annotations

from gpu_advisor.engine.specs import ModelArch


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
