"""GPU memory per device for training and for serving.

Training (per GPU, Ψ = parameters, N = data-parallel GPUs):
- Model states under mixed-precision AdamW are 16 bytes/Ψ: bf16 weights 2, bf16
  gradients 2, fp32 master weights 4, Adam m and v 4 + 4 (Rajbhandari et al., "ZeRO",
  SC'20, §3.1: "K = 12" optimizer bytes). Pure-bf16 recipes (``master_weights=False``)
  keep 2 + 2 + 4; the optimizer-state dtypes, 8-bit and paged optimizers and the
  optimizer step fused into backward are in ``engine.train_terms``. ZeRO-1 shards the
  optimizer states, ZeRO-2 also the gradients, ZeRO-3 (= FSDP full shard) also the
  weights, each over N; ZeRO-3 then holds two layers unsharded while it computes on
  them, counted as overhead (``notes["gathered_weight_bytes"]``).
- Activations follow Korthikanti et al., "Reducing Activation Recomputation in Large
  Transformer Models" (2022), Eq. 1: s·b·h·(34 + 5·a·s/h) bytes per layer, generalised
  here to grouped-query attention, gated MLPs and no dropout; flash attention removes
  the a·s² score terms; full recomputation keeps only each layer's input (2·s·b·h)
  plus one layer being recomputed — which never coincides with the loss buffers, freed
  by the LM head's backward before the last layer is recomputed. The logits and loss
  buffers (batch × seq × vocab, 14 bytes per logit unchunked), QLoRA's dequantisation
  workspace and activation offloading are in ``engine.train_terms``.
- LoRA freezes the base (no gradients or optimizer for it) and trains r·(in+out)
  parameters per targeted matrix, fp32 adapters under mixed precision (16 bytes each
  with AdamW), bf16 in a pure-bf16 recipe. It does not shrink activations. QLoRA stores
  the frozen base in NF4 with double quantisation (Dettmers et al. 2023) and keeps bf16
  adapters; paged optimizer states are reported in ``notes["paged_optimizer_bytes"]``
  and not counted against the card.
- Overhead: CUDA context and library workspaces (~1 GiB), plus, under mixed precision,
  the bf16 copy of the trainable weights that autocast and communication buckets hold
  (2 bytes/trainable Ψ, sharded under ZeRO-3), plus 5 % allocator fragmentation;
  ``notes`` carries the context and fragmentation bytes apart, since PyTorch's
  allocator counters see neither.

Serving: weights at the format's real bits (``engine.dtypes``), divided by the
tensor-parallel degree. A model shipped with low-precision experts only (gpt-oss:
MXFP4 experts, bf16 attention and embeddings, per its model card) keeps that split in
its native format. Every expert of a mixture-of-experts model is resident.
KV cache per token and layer:
- standard attention: 2 · KV heads · head dim elements, a GPU holding
  ceil(KV heads / TP) heads (heads replicate once TP exceeds them);
- multi-head latent attention (DeepSeek-V2 paper §2.1.2): the compressed latent and
  the shared rotary key, kv_lora_rank + qk_rope_head_dim elements (512 + 64 for
  DeepSeek-V3: 61 · 576 · 2 B ≈ 70 KB per token against ~4.7 MB for 128 MHA heads);
  it has no head axis, so tensor parallelism replicates it on every GPU;
- sliding-window layers hold at most the window (vLLM's hybrid KV allocator, v0.10+);
- linear-attention layers hold a fixed state and no per-token cache.
Plus the runtime's fixed overhead, an activation peak for a prefill chunk and the fp32
logits of the running batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from gpu_advisor.engine.dtypes import FORMATS, KV_BYTES, weight_bytes
from gpu_advisor.engine.param_count import lora_trainable_params, routed_expert_params
from gpu_advisor.engine.specs import ModelArch
from gpu_advisor.engine.train_terms import (
    CUDA_CONTEXT_BYTES,
    FRAGMENTATION,
    dequant_workspace_bytes,
    gathered_layer_bytes,
    is_paged,
    largest_tensor_params,
    loss_buffer_bytes,
    offloaded_checkpoint_bytes,
    score_peak_bytes,
    selective_layer_bytes,
    state_bytes_per_param,
    step_workspace_bytes,
)
from gpu_advisor.engine.units import GiB

__all__ = ["CUDA_CONTEXT_BYTES", "FRAGMENTATION", "dequant_workspace_bytes", "logits_bytes"]
PREFILL_CHUNK_TOKENS = 2048


@dataclass(slots=True)
class Memory:
    """Bytes per GPU by component."""

    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    activations: float = 0.0
    kv_cache: float = 0.0
    overhead: float = 0.0
    notes: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return (
            self.weights + self.gradients + self.optimizer + self.activations + self.kv_cache + self.overhead
        )

    def gib(self) -> dict[str, float]:
        parts = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")
        out = {p: round(getattr(self, p) / GiB, 2) for p in parts}
        out["total"] = round(self.total / GiB, 2)
        return out


@dataclass(frozen=True, slots=True)
class TrainSetup:
    method: str = "full"
    weight_dtype: str = "bf16"
    optimizer: str = "adamw"
    batch_size: int = 1
    seq_len: int = 2048
    gradient_checkpointing: bool = True
    flash_attention: bool = True
    zero_stage: int = 0
    gpus: int = 1
    lora_rank: int = 16
    dropout: bool = False
    fused_ce: bool = False
    # engine.train_terms: what the recipe does with precision, gradients, loss and checkpoints
    master_weights: bool = True
    optimizer_in_backward: bool = False
    chunked_ce: bool = False
    activation_offloading: bool = False
    selective_checkpointing: bool = False  # per-op, when full recomputation is off
    lora_targets: str = "all_linear"
    foreach_step: bool = False  # torch.optim's multi-tensor step: a moment-sized temporary (train_terms)
    live_params: float = 0.0  # DeepSpeed ZeRO-3 stage3_max_live_parameters; 0: FSDP's two layers
    autocast: bool = True  # torch.autocast holds a bf16 copy of each fp32 weight; DeepSpeed casts instead


OPTIMIZER_BYTES = {"adamw": 8.0, "adamw_8bit": 2.0, "sgd": 4.0, "paged_adamw": 8.0, "paged_adamw_8bit": 2.0}


def optimizer_bytes_per_param(optimizer: str, mixed: bool, hidden: int, state_width: float = 4.0) -> float:
    """Optimizer-state bytes per trainable parameter, including fp32 masters under mixed precision.

    ``state_width`` is the bytes of one moment: 4 beside fp32 masters or fp32 weights,
    the parameter's own 2 in a pure-bf16 recipe (``engine.train_terms``).
    """
    master = 4.0 if mixed else 0.0
    return master + state_bytes_per_param(optimizer, state_width, hidden)


def model_states(
    arch: ModelArch, s: TrainSetup, zero_stage: int | None = None, gpus: int | None = None
) -> Memory:
    """Weights, gradients and optimizer bytes per GPU after ZeRO sharding.

    ``zero_stage``/``gpus`` override the setup's, so a search can try stages without
    copying the setup each time.
    """
    n = max(s.gpus if gpus is None else gpus, 1)
    stage = s.zero_stage if zero_stage is None else zero_stage
    w, g, o, trainable, base_fmt = _unsharded_states(arch, s)
    step = step_workspace_bytes(s, trainable, _moment_width(s)) / (n if stage >= 1 else 1)
    o /= n if stage >= 1 else 1
    g /= n if stage >= 2 and not s.optimizer_in_backward else 1
    w /= n if stage >= 3 else 1
    mem = Memory(weights=w, gradients=g, optimizer=o)
    mem.notes["trainable_params"] = trainable
    # not a model state (ZeRO's accounting): a transient buffer, counted as overhead
    mem.notes["gathered_weight_bytes"] = gathered_layer_bytes(arch, base_fmt, n, stage, s.live_params)
    mem.notes["master_weights"] = 1.0 if s.master_weights else 0.0
    mem.notes["autocast"] = 1.0 if s.autocast else 0.0
    mem.notes["step_workspace_bytes"] = step
    if is_paged(s):
        mem.notes["paged_optimizer_bytes"] = o
        mem.optimizer = 0.0
    return mem


def _unsharded_states(arch: ModelArch, s: TrainSetup) -> tuple[float, float, float, float, str]:
    """Weights, gradients, optimizer bytes, trainable parameters and the base format, on one GPU."""
    params = arch.params_b * 1e9
    if s.method == "full":
        half = s.weight_dtype in ("fp16", "bf16")
        mixed = half and s.master_weights
        width = 2.0 if half else 4.0
        w = params * width
        g = largest_tensor_params(arch) * width if s.optimizer_in_backward else w
        o = params * optimizer_bytes_per_param(s.optimizer, mixed, arch.hidden_size, 4.0 if mixed else width)
        return w, g, o, params, s.weight_dtype if s.weight_dtype in FORMATS else "bf16"
    trainable = lora_trainable_params(arch, s.lora_rank, s.lora_targets)
    base_fmt = "nf4" if s.method == "qlora" else _lora_base_format(s.weight_dtype)
    if s.master_weights:
        adapter, mixed = (2.0, True) if s.method == "qlora" else (4.0, False)
    else:
        adapter, mixed = 2.0, False
    w = weight_bytes(params, arch.embedding_params, base_fmt) + trainable * adapter
    state_width = 4.0 if s.master_weights else adapter
    o = trainable * optimizer_bytes_per_param(s.optimizer, mixed, arch.hidden_size, state_width)
    return w, trainable * adapter, o, trainable, base_fmt


def _moment_width(s: TrainSetup) -> float:
    """Bytes of one optimizer moment: fp32 beside masters or fp32 adapters, else the parameter's."""
    if s.master_weights or s.weight_dtype == "fp32":
        return 4.0
    return 2.0


def _lora_base_format(weight_dtype: str) -> str:
    return weight_dtype if weight_dtype in ("fp32", "fp16", "bf16", "int8") else "bf16"


def layer_activation_bytes(arch: ModelArch, s: TrainSetup, tokens: float) -> float:
    """Activation bytes one decoder layer keeps for backward, for ``tokens`` = s·b."""
    h, i = arch.hidden_size, arch.intermediate_size
    kv = arch.num_kv_heads * arch.head_dim
    q = arch.num_heads * arch.head_dim
    mask = 1.0 if s.dropout else 0.0
    attention = 2 * h + 2 * q + 4 * kv + 2 * q + mask * h
    mlp = 2 * h + (8 * i if arch.gated_mlp else 4 * i) + mask * h
    if arch.num_experts > 1:
        mlp = 2 * h + (mlp - 2 * h) * arch.experts_per_token
    per_token = attention + mlp + 4 * h
    scores = 0.0
    if not s.flash_attention:
        scores = (5.0 if s.dropout else 2.0) * arch.num_heads * s.seq_len * tokens
    return per_token * tokens + scores


def activations(arch: ModelArch, s: TrainSetup, checkpointing: bool | None = None) -> float:
    tokens = float(s.batch_size * s.seq_len)
    # a model that materialises its attention scores holds them whole in the layer being
    # differentiated, flash attention requested or not (engine.train_terms)
    one_layer = max(layer_activation_bytes(arch, s, tokens), _fused_layer(arch, s, tokens) + _scores(arch, s))
    if s.gradient_checkpointing if checkpointing is None else checkpointing:
        inputs = arch.layers * 2.0 * arch.hidden_size * tokens
        if s.activation_offloading:
            inputs = min(inputs, offloaded_checkpoint_bytes(arch, tokens))
        # The LM head's backward frees the loss buffers before the last layer is recomputed.
        return inputs + max(one_layer, logits_bytes(arch, s, tokens)) + dequant_workspace_bytes(arch, s)
    if s.selective_checkpointing:
        saved = selective_layer_bytes(arch, tokens)
        transient = max(logits_bytes(arch, s, tokens), one_layer - saved)
        return arch.layers * saved + transient + dequant_workspace_bytes(arch, s)
    # Without recomputation every layer's activations are alive when the loss is taken.
    return arch.layers * one_layer + logits_bytes(arch, s, tokens) + dequant_workspace_bytes(arch, s)


def _fused_layer(arch: ModelArch, s: TrainSetup, tokens: float) -> float:
    return layer_activation_bytes(arch, replace(s, flash_attention=True), tokens)


def _scores(arch: ModelArch, s: TrainSetup) -> float:
    return score_peak_bytes(arch, s.seq_len, float(s.batch_size * s.seq_len))


def logits_bytes(arch: ModelArch, s: TrainSetup, tokens: float) -> float:
    """Logits and cross-entropy buffers for ``tokens`` (``engine.train_terms.loss_buffer_bytes``)."""
    return loss_buffer_bytes(arch, s, tokens)


def with_activations(states: Memory, activation_bytes: float, shard: int) -> Memory:
    """A new breakdown: ``states`` plus activations plus the overhead both imply."""
    trainable = states.notes["trainable_params"]
    mem = Memory(
        weights=states.weights,
        gradients=states.gradients,
        optimizer=states.optimizer,
        activations=activation_bytes,
        notes=dict(states.notes),
    )
    held = states.notes.get("master_weights", 1.0) and states.notes.get("autocast", 1.0)
    autocast_copy = 2.0 * trainable / shard if held else 0.0
    gathered = states.notes.get("gathered_weight_bytes", 0.0)
    # The optimizer steps after backward has freed the activations: its temporary only adds
    # what it needs beyond them.
    step_extra = max(states.notes.get("step_workspace_bytes", 0.0) - activation_bytes, 0.0)
    fragmentation = FRAGMENTATION * (mem.total + gathered + step_extra)
    mem.overhead = CUDA_CONTEXT_BYTES + autocast_copy + gathered + step_extra + fragmentation
    mem.notes["cuda_context_bytes"] = CUDA_CONTEXT_BYTES
    mem.notes["fragmentation_bytes"] = fragmentation
    return mem


def training_memory(arch: ModelArch, s: TrainSetup) -> Memory:
    shard = s.gpus if s.zero_stage >= 3 else 1
    return with_activations(model_states(arch, s), activations(arch, s), shard)


def kv_heads_per_gpu(arch: ModelArch, tp: int) -> int:
    return math.ceil(arch.num_kv_heads / tp)


def kv_elements_per_layer(arch: ModelArch, tp: int = 1) -> int:
    """Cached elements one token adds to one attention layer on one GPU."""
    if arch.attention == "mla":
        return (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)
    return 2 * kv_heads_per_gpu(arch, tp) * arch.head_dim


def kv_bytes_per_token(arch: ModelArch, kv_dtype: str, tp: int = 1) -> float:
    """Bytes one token adds on one GPU while inside every window (vLLM paper: 800 KB for OPT-13B).

    Linear-attention layers keep no per-token cache, so they are left out.
    """
    layers = arch.layers - arch.linear_attention_layers
    return float(layers * kv_elements_per_layer(arch, tp) * KV_BYTES[kv_dtype])


def kv_bytes_per_sequence(arch: ModelArch, kv_dtype: str, tokens: float, tp: int = 1) -> float:
    """KV bytes a sequence of ``tokens`` holds on one GPU, windowed layers capped at the window."""
    per_layer = kv_elements_per_layer(arch, tp) * KV_BYTES[kv_dtype]
    windowed = arch.windowed_layers
    full = arch.layers - arch.linear_attention_layers - windowed
    window = min(tokens, float(arch.sliding_window or 0))
    return per_layer * (full * tokens + windowed * window)


def model_weight_bytes(arch: ModelArch, fmt: str) -> float:
    """All weights in ``fmt``; a native experts-only format leaves the rest in bf16."""
    params = arch.params_b * 1e9
    if fmt == arch.native_dtype and arch.native_dtype_scope == "experts":
        experts = routed_expert_params(arch)
        return expert_weight_bytes(arch, fmt) + (params - experts) * 2.0
    return weight_bytes(params, arch.embedding_params, fmt)


def expert_weight_bytes(arch: ModelArch, fmt: str) -> float:
    """Bytes of the routed experts alone (never embeddings, so no 16-bit exception)."""
    return routed_expert_params(arch) * FORMATS[fmt].bits / 8


def serving_weight_bytes(arch: ModelArch, fmt: str, tp: int = 1) -> float:
    return model_weight_bytes(arch, fmt) / tp


def serving_overhead_bytes(arch: ModelArch, runtime_overhead_gib: float, batch: int, tp: int) -> float:
    """Runtime's fixed overhead + prefill-chunk activations + fp32 logits of the running batch."""
    chunk = PREFILL_CHUNK_TOKENS * (4 * arch.hidden_size + 3 * arch.intermediate_size / tp) * 2.0
    logits = batch * arch.vocab_size * 4.0 / tp
    return runtime_overhead_gib * GiB + chunk + logits


def serving_memory(
    arch: ModelArch,
    fmt: str,
    kv_dtype: str,
    context_tokens: int,
    sequences: int,
    tp: int,
    runtime_overhead_gib: float,
) -> Memory:
    """Per-GPU memory to hold the weights and a full-length KV cache for ``sequences`` streams."""
    return Memory(
        weights=serving_weight_bytes(arch, fmt, tp),
        kv_cache=kv_bytes_per_sequence(arch, kv_dtype, context_tokens, tp) * sequences,
        overhead=serving_overhead_bytes(arch, runtime_overhead_gib, sequences, tp),
    )


def is_known_format(fmt: str) -> bool:
    return fmt in FORMATS
