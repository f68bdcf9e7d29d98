"""GPU memory per device for training and for serving.

Training (per GPU, Ψ = parameters, N = data-parallel GPUs):
- Model states under mixed-precision AdamW are 16 bytes/Ψ: bf16 weights 2, bf16
  gradients 2, fp32 master weights 4, Adam m and v 4 + 4 (Rajbhandari et al., "ZeRO",
  SC'20, §3.1: "K = 12" optimizer bytes). ZeRO-1 shards the 12, ZeRO-2 also the
  gradients, ZeRO-3 (= FSDP full shard) also the weights, each over N.
- Activations follow Korthikanti et al., "Reducing Activation Recomputation in Large
  Transformer Models" (2022), Eq. 1: s·b·h·(34 + 5·a·s/h) bytes per layer, generalised
  here to grouped-query attention, gated MLPs and no dropout; flash attention removes
  the a·s² score terms; full recomputation keeps only each layer's input (2·s·b·h)
  plus one layer being recomputed. The LM head's logits follow the framework: Hugging
  Face upcasts them to fp32 for the loss and their gradient is fp32 too, 8·s·b·V bytes,
  large for 128k-token vocabularies; a fused, chunked cross-entropy (Liger's
  FusedLinearCrossEntropy, torchtune, unsloth; ``fused_ce``) materialises logits for
  chunks of ~s·b·h/V tokens, so about 8·s·b·h bytes.
- QLoRA dequantises each NF4 weight to bf16 just before its matmul (bitsandbytes
  ``dequantize_4bit``) and frees it after: a workspace of the largest matrix of a layer
  in bf16, 2·h·i bytes (0.44 GiB for a 70B's MLP), on top of the NF4 base.
- LoRA freezes the base (no gradients or optimizer for it) and trains r·(in+out)
  parameters per targeted matrix in fp32 (16 bytes each with AdamW). It does not
  shrink activations. QLoRA stores the frozen base in NF4 with double quantisation
  (Dettmers et al. 2023) and keeps bf16 adapters; its paged AdamW keeps optimizer
  states in unified memory that pages to CPU RAM, so they are reported in
  ``notes["paged_optimizer_bytes"]`` and not counted against the card.
- Overhead: CUDA context and library workspaces (~1 GiB), plus the bf16 copy of the
  trainable weights that autocast and communication buckets hold (2 bytes/trainable Ψ,
  sharded under ZeRO-3), plus 5 % allocator fragmentation.

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
from dataclasses import dataclass, field

from gpu_advisor.engine.architecture import lora_trainable_params, routed_expert_params
from gpu_advisor.engine.dtypes import FORMATS, KV_BYTES, weight_bytes
from gpu_advisor.engine.specs import ModelArch
from gpu_advisor.engine.units import GiB

CUDA_CONTEXT_BYTES = 1.0 * GiB
FRAGMENTATION = 0.05
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


OPTIMIZER_BYTES = {"adamw": 8.0, "adamw_8bit": 2.0, "sgd": 4.0}


def optimizer_bytes_per_param(optimizer: str, mixed: bool, hidden: int) -> float:
    """Optimizer-state bytes per trainable parameter, including fp32 masters under mixed precision.

    Adafactor stores factored second moments (a row and a column vector per matrix,
    ≈ 2/h of the parameters) and no first moment by default (Shazeer & Stern 2018).
    """
    master = 4.0 if mixed else 0.0
    if optimizer == "adafactor":
        return master + 4.0 * 2.0 / hidden
    return master + OPTIMIZER_BYTES[optimizer]


def model_states(
    arch: ModelArch, s: TrainSetup, zero_stage: int | None = None, gpus: int | None = None
) -> Memory:
    """Weights, gradients and optimizer bytes per GPU after ZeRO sharding.

    ``zero_stage``/``gpus`` override the setup's, so a search can try stages without
    copying the setup each time.
    """
    params = arch.params_b * 1e9
    n = max(s.gpus if gpus is None else gpus, 1)
    stage = s.zero_stage if zero_stage is None else zero_stage
    if s.method == "full":
        mixed = s.weight_dtype in ("fp16", "bf16")
        w = params * (2.0 if mixed else 4.0)
        g = w
        o = params * optimizer_bytes_per_param(s.optimizer, mixed, arch.hidden_size)
        trainable = params
    else:
        trainable = lora_trainable_params(arch, s.lora_rank)
        base_fmt = "nf4" if s.method == "qlora" else _lora_base_format(s.weight_dtype)
        adapter_bytes = 2.0 if s.method == "qlora" else 4.0
        w = weight_bytes(params, arch.embedding_params, base_fmt) + trainable * adapter_bytes
        g = trainable * adapter_bytes
        o = trainable * optimizer_bytes_per_param(s.optimizer, s.method == "qlora", arch.hidden_size)
    o /= n if stage >= 1 else 1
    g /= n if stage >= 2 else 1
    w /= n if stage >= 3 else 1
    mem = Memory(weights=w, gradients=g, optimizer=o)
    mem.notes["trainable_params"] = trainable
    if s.method == "qlora":
        mem.notes["paged_optimizer_bytes"] = o
        mem.optimizer = 0.0
    return mem


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
    one_layer = layer_activation_bytes(arch, s, tokens)
    if s.gradient_checkpointing if checkpointing is None else checkpointing:
        stored = arch.layers * 2.0 * arch.hidden_size * tokens + one_layer
    else:
        stored = arch.layers * one_layer
    return stored + logits_bytes(arch, s, tokens) + dequant_workspace_bytes(arch, s)


def logits_bytes(arch: ModelArch, s: TrainSetup, tokens: float) -> float:
    """fp32 logits and their gradient (Hugging Face), or one chunk's worth when fused."""
    width = min(arch.hidden_size, arch.vocab_size) if s.fused_ce else arch.vocab_size
    return 8.0 * tokens * width


def dequant_workspace_bytes(arch: ModelArch, s: TrainSetup) -> float:
    """QLoRA: the largest base matrix of a layer dequantised to bf16 (2·h·max(i, q))."""
    if s.method != "qlora":
        return 0.0
    widest = max(arch.intermediate_size, arch.num_heads * arch.head_dim)
    return 2.0 * arch.hidden_size * widest


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
    mem.overhead = CUDA_CONTEXT_BYTES + 2.0 * trainable / shard
    mem.overhead += FRAGMENTATION * (mem.total - mem.overhead)
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
