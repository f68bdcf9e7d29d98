"""The training-memory terms beyond weights and layer activations, each from first principles.

Calibrated against published peaks in tests/calibration/measurements.yaml (section 7);
every constant here is a count of buffers, not a fitted factor.

- Optimizer states take the dtype the recipe gives them. Mixed precision keeps fp32
  master weights and fp32 Adam moments (ZeRO §3.1, K = 12); pure-bf16 recipes (torchtune,
  torchtitan's ``training.dtype=bfloat16``) keep no master copy and PyTorch's AdamW
  allocates its moments in the parameter dtype, 2 + 2 bytes; bitsandbytes 8-bit Adam
  quantises each moment to one byte (block-wise, Dettmers et al. 2022), its per-block
  fp32 absmax adding 4/2048 byte and ignored. Paged optimizers (bitsandbytes
  ``PagedAdamW``, ``PagedAdamW8bit``) put the states in CUDA unified memory that is
  evicted to host RAM under pressure, so they are not held against the card.
- Fusing the optimizer step into backward (torchtune ``optimizer_in_bwd``) applies and
  frees each gradient as soon as it is produced: only the largest parameter's gradient
  (the vocab × hidden embedding or LM head) is ever alive.
- The loss: ``standard`` materialises the logits of every token (bf16, 2 bytes per
  token × vocab), the cross-entropy upcasts them to fp32 (4) and keeps its fp32
  log-softmax for backward (4); backward then holds the fp32 gradient of that
  log-softmax (4) beside them: 14 bytes per token × vocab at the start of backward,
  when every stored activation is still alive. ``chunked`` (torchtune's
  CEWithChunkedOutputLoss, 8 chunks) keeps the bf16 logits whole and upcasts one chunk
  at a time; compiled, as torchtune asks, the upcast, log-softmax and its gradient fuse
  into kernels that keep only a per-token log-sum-exp and write the chunk's bf16
  gradient directly, so no fp32 tensor of a chunk's size is materialised: 2 + 2/8.
  ``fused`` (Liger's
  FusedLinearCrossEntropy, unsloth, Cut Cross-Entropy) computes logits and their
  gradient in chunks of about tokens × hidden / vocab tokens and never holds the
  whole, ≈ 8 bytes per token × hidden.
- QLoRA dequantises each NF4 matrix to bf16 right before its matmul (bitsandbytes
  ``dequantize_4bit``, torchao's NF4 tensor) and frees it after: one matrix, the widest
  of a layer (2·h·max(i, q) bytes), is the workspace; the NF4 double-quant constants
  are in the format's 4.127 bits (engine.dtypes).
- Fully sharded data parallel (FSDP, ZeRO-3) all-gathers one layer's weights before
  using them and prefetches the next: two layers unsharded in their storage format
  are resident on top of the shard. DeepSpeed ZeRO-3 instead keeps gathered parameters
  up to its ``stage3_max_live_parameters`` (1e9 in the configs LLaMA-Factory and
  ms-swift ship; ``knowledge/training_recipes.yaml``).
- torch.optim's multi-tensor (foreach) Adam step, the Hugging Face Trainer's default
  before torch 2.8, writes the square root of every second moment into a new tensor
  list: one moment-sized temporary, alive after backward has freed the activations, so
  only what it needs beyond them is added. Fused and paged steps hold none.
- Selective per-op checkpointing (torchtitan ``selective_ac_option = 'op'``) saves the
  outputs of every second matmul and of attention, recomputing the rest: in a Llama
  block (q, k, v, o, then w1, w3, w2) that is the block input 2h, q 2q, v 2kv, the
  attention output 2q, w1 2i and w2 2h bytes per token, about a third of the whole.
  The loss buffers are taken while every layer's saved set is alive.
- Materialised attention: a model whose own modelling code computes the whole score
  matrix (``ModelArch.materialises_attention``: ChatGLM3's and Baichuan2's remote code,
  which no flash flag reaches) holds, in the layer being recomputed and differentiated,
  per score element (heads × seq × tokens): the bf16 scores 2, the masked scores 2, the
  fp32 softmax 4 and its bf16 cast 2 from the forward, then the bf16 gradient of the
  probabilities 2, its fp32 upcast 4, the fp32 gradient of the scores 4 and its bf16 cast
  2 — 22 bytes. Counted, not fitted: the ms-swift benchmark's fit rows for these models
  are best matched at 22-26 (tests/calibration/training_recipes.yaml, source 5).
- Activation offloading (torchtune ``enable_activation_offloading``) moves the
  checkpointed layer inputs to host RAM; one is in flight each way.
- Framework overhead, one constant: the CUDA context and library workspaces, which
  PyTorch's allocator never counts (torch.cuda.memory_allocated's documentation says
  nvidia-smi shows more because "some context needs to be created on GPU"; a bare
  process initialising CUDA shows 781 MB in pytorch/pytorch#34323, before cuBLAS
  workspaces and NCCL buffers), taken as 1 GiB; plus 5 % allocator fragmentation over
  what the allocator hands out (the gap between ``max_memory_allocated`` and
  ``max_memory_reserved``). Both are kept in ``Memory.notes`` so a figure read from
  PyTorch's counters can be compared without them (tests/calibration/training.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.units import GiB

if TYPE_CHECKING:
    from gpu_advisor.engine.specs import ModelArch


class TrainSetup(Protocol):
    """What these terms read of a training setup (``engine.memory.TrainSetup``).

    Named by shape, so the terms stand below ``engine.memory``, which adds them up.
    """

    @property
    def method(self) -> str: ...
    @property
    def optimizer(self) -> str: ...
    @property
    def master_weights(self) -> bool: ...
    @property
    def optimizer_in_backward(self) -> bool: ...
    @property
    def foreach_step(self) -> bool: ...
    @property
    def fused_ce(self) -> bool: ...
    @property
    def chunked_ce(self) -> bool: ...


CUDA_CONTEXT_BYTES = 1.0 * GiB
FRAGMENTATION = 0.05
CE_CHUNKS = 8  # torchtune CEWithChunkedOutputLoss(num_output_chunks=8)
LOSS_BYTES_PER_LOGIT = 2.0 + 4.0 + 4.0 + 4.0  # bf16 logits, fp32 upcast, log-softmax, its gradient
CHUNK_TRANSIENT_BYTES = 2.0  # one chunk's bf16 gradient (compiled: nothing fp32 of that size)
FUSED_LOSS_BYTES_PER_HIDDEN = 8.0
SCORE_PEAK_BYTES = 2.0 + 2.0 + 4.0 + 2.0 + 2.0 + 4.0 + 4.0 + 2.0  # per score element, module docstring
FSDP_LIVE_LAYERS = 2  # the layer in use and the one prefetched
PAGED = frozenset({"paged_adamw", "paged_adamw_8bit"})
# Adam moments per parameter and the bytes of each when not held at the parameter's own width.
MOMENTS = {"adamw": 2.0, "paged_adamw": 2.0, "adamw_8bit": 2.0, "paged_adamw_8bit": 2.0, "sgd": 1.0}
EIGHT_BIT = frozenset({"adamw_8bit", "paged_adamw_8bit"})


def state_bytes_per_param(optimizer: str, state_width: float, hidden: int) -> float:
    """Optimizer-state bytes per trainable parameter, moments at ``state_width`` bytes each.

    8-bit optimizers store one byte per moment whatever the width; Adafactor stores
    factored second moments (a row and a column per matrix, ≈ 2/h of the parameters) and
    no first moment (Shazeer & Stern 2018).
    """
    if optimizer == "adafactor":
        return state_width * 2.0 / hidden
    width = 1.0 if optimizer in EIGHT_BIT else state_width
    return MOMENTS[optimizer] * width


def is_paged(s: TrainSetup) -> bool:
    """States in unified memory: a paged optimizer, or the QLoRA paper's recipe (paged AdamW).

    A QLoRA setup with fp32 masters is the Hugging Face/QLoRA-paper recipe, which pages;
    a pure-bf16 recipe (torchtune) pages only when it names a paged optimizer.
    """
    return s.optimizer in PAGED or (s.method == "qlora" and s.master_weights)


def largest_tensor_params(arch: ModelArch) -> float:
    """Elements of the largest single weight: the embedding/LM head, or an MLP matrix."""
    widest = max(arch.intermediate_size, arch.num_heads * arch.head_dim)
    return float(max(arch.vocab_size * arch.hidden_size, arch.hidden_size * widest))


def loss_buffer_bytes(arch: ModelArch, s: TrainSetup, tokens: float) -> float:
    """Logits and cross-entropy buffers alive at the start of backward (module docstring)."""
    if s.fused_ce:
        return FUSED_LOSS_BYTES_PER_HIDDEN * tokens * min(arch.hidden_size, arch.vocab_size)
    if s.chunked_ce:
        return (2.0 + CHUNK_TRANSIENT_BYTES / CE_CHUNKS) * tokens * arch.vocab_size
    return LOSS_BYTES_PER_LOGIT * tokens * arch.vocab_size


def dequant_workspace_bytes(arch: ModelArch, s: TrainSetup) -> float:
    """QLoRA: the widest base matrix of a layer dequantised to bf16 (2·h·max(i, q))."""
    if s.method != "qlora":
        return 0.0
    widest = max(arch.intermediate_size, arch.num_heads * arch.head_dim)
    return 2.0 * arch.hidden_size * widest


def gathered_layer_bytes(
    arch: ModelArch, base_format: str, gpus: int, stage: int, live_params: float = 0.0
) -> float:
    """FSDP/ZeRO-3: weights unsharded in their storage format beside the shard.

    FSDP holds two layers (module docstring); DeepSpeed ZeRO-3 keeps gathered parameters
    until ``live_params`` (its stage3_max_live_parameters) are resident.
    """
    if stage < 3 or gpus <= 1:
        return 0.0
    bits = FORMATS[base_format].bits
    if live_params > 0:
        return min(live_params, arch.params_b * 1e9) * bits / 8
    per_layer = max(arch.params_b * 1e9 - arch.embedding_params, 0.0) / arch.layers
    return FSDP_LIVE_LAYERS * per_layer * bits / 8


def step_workspace_bytes(s: TrainSetup, trainable: float, moment_width: float) -> float:
    """torch.optim's multi-tensor (foreach) Adam step: one moment-sized temporary, unsharded.

    ``_multi_tensor_adamw`` takes the square root of every second moment into a new
    tensor list before dividing (the PyTorch optimizer docs: foreach trades peak memory
    for speed, fused does not). Paged, 8-bit-in-backward and fused steps hold none.
    """
    if not s.foreach_step or is_paged(s) or s.optimizer_in_backward or s.optimizer not in MOMENTS:
        return 0.0
    if s.optimizer == "sgd":
        return 0.0
    width = 1.0 if s.optimizer in EIGHT_BIT else moment_width
    return trainable * width


def offloaded_checkpoint_bytes(arch: ModelArch, tokens: float) -> float:
    """Checkpointed layer inputs left on the card under activation offloading: one each way."""
    return 2.0 * 2.0 * arch.hidden_size * tokens


def selective_layer_bytes(arch: ModelArch, tokens: float) -> float:
    """Bytes one block saves under torchtitan's per-op policy: every second matmul and attention."""
    h, q = arch.hidden_size, arch.num_heads * arch.head_dim
    kv = arch.num_kv_heads * arch.head_dim
    i = arch.intermediate_size
    mlp = 2 * i + (2 * h if arch.gated_mlp else 0)  # w1 saved, w3 not, w2 saved (gated); w1 only otherwise
    return (2 * h + 2 * q + 2 * kv + 2 * q + mlp) * tokens


def score_peak_bytes(arch: ModelArch, seq_len: int, tokens: float) -> float:
    """A materialised-attention layer's scores at the peak of its backward (module docstring).

    Zero for models whose attention runs a fused kernel: their scores never exist whole.
    """
    if not arch.materialises_attention:
        return 0.0
    return SCORE_PEAK_BYTES * arch.num_heads * seq_len * tokens
