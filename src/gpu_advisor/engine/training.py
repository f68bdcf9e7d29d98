"""Training compute: FLOPs, wall time and GPU-hours at a documented MFU.

A dense transformer costs ≈ 6·Ψ FLOPs per training token: 2 forward, 4 backward
(Kaplan et al. 2020; Narayanan et al. 2021). Full activation recomputation repeats the
forward: 8·Ψ. LoRA/QLoRA skip the weight-gradient matmuls of the frozen base, leaving
forward 2 + activation-gradient 2 = 4·Ψ (+2 with recomputation); the adapters' own
FLOPs are below 1 %. Mixture-of-experts models use their *active* parameters.

Attention adds FLOPs that no parameter count sees: QKᵀ and AV cost 2·2·s·d per token
and layer forward (d = heads × head_dim, s = tokens attended), three times that with
backward — 12·L·d·s per token (PaLM, Chowdhery et al. 2022, App. B: "6N + 12LHQT",
the accounting published MFUs use). It is the same for LoRA (attention has no frozen
weights to skip) and recomputation adds another forward, 4·L·d·s. Sliding-window
layers attend over at most the window. At 65k tokens this term is ~2× the 6·Ψ of an
8B model, so leaving it out predicts a long-sequence run ~3× too fast.

MFU (model FLOPs utilisation, Chowdhery et al. 2022) is achieved model FLOPs over the
dense bf16 peak. It depends on the architecture more than on the model: published
FSDP/Megatron runs reach 0.52-0.64 on A100 (LLM Foundry 7B on 8 GPUs 0.64, torchtitan
Llama-3-8B 0.58, Megatron 1T 0.52) but only 0.36-0.46 on H100, whose peak is harder to
feed (torchtitan 0.36-0.41, LLM Foundry 0.43-0.46, Llama 3 405B 0.41). We take 0.50 on
Ampere and 0.40 on Hopper and newer; Llama 2's 184,320 A100 GPU-hours for 7B × 2T tokens
(Touvron et al. 2023) imply 0.39 once restarts and evaluation are included, which the
tests use as the pessimistic bound. LoRA and QLoRA keep 75 % and 55 % of that (smaller
matmuls; NF4 dequantisation on every forward).
GeForce rates in ``knowledge/gpus.yaml`` are already the FP32-accumulate figures that
PyTorch's matmuls use (half the FP16-accumulate number NVIDIA prints first).
"""

from __future__ import annotations

from gpu_advisor.engine.specs import GpuSpec, ModelArch
from gpu_advisor.engine.throughput import attended_layer_tokens

MFU_FULL = {"ampere": 0.50, "hopper": 0.40, "blackwell": 0.40, "ada": 0.40, "volta": 0.35, "turing": 0.30}
METHOD_SHARE = {"full": 1.0, "lora": 0.75, "qlora": 0.55}


def mfu(gpu: GpuSpec, method: str) -> float:
    return MFU_FULL.get(gpu.architecture, 0.35) * METHOD_SHARE[method]


def flops_per_token(arch: ModelArch, method: str, recompute: bool, seq_len: int = 0) -> float:
    """Training FLOPs per token: parameter matmuls plus attention over ``seq_len`` tokens."""
    params = arch.active_b * 1e9
    factor = 6.0 if method == "full" else 4.0
    matmuls = (factor + (2.0 if recompute else 0.0)) * params
    return matmuls + attention_flops_per_token(arch, recompute, seq_len)


def attention_flops_per_token(arch: ModelArch, recompute: bool, seq_len: int) -> float:
    """12·d·Σ_layers(tokens attended) (+4 with recomputation); PaLM App. B."""
    if seq_len <= 0:
        return 0.0
    factor = 16.0 if recompute else 12.0
    return factor * arch.num_heads * arch.head_dim * attended_layer_tokens(arch, float(seq_len))


def training_peak_tflops(gpu: GpuSpec, dtype: str) -> float:
    precision = "bf16" if dtype not in ("fp16", "fp32") else dtype
    if dtype == "fp32":
        precision = "tf32"
    return gpu.tflops(precision)  # type: ignore[arg-type]


def step_compute_s(
    arch: ModelArch,
    gpu: GpuSpec,
    method: str,
    recompute: bool,
    tokens: float,
    dtype: str,
    seq_len: int = 0,
) -> float:
    """Seconds of pure compute for ``tokens`` on one GPU, in sequences of ``seq_len``."""
    peak = training_peak_tflops(gpu, dtype) * 1e12
    return flops_per_token(arch, method, recompute, seq_len) * tokens / (peak * mfu(gpu, method))


def training_hours(
    arch: ModelArch,
    gpu: GpuSpec,
    method: str,
    recompute: bool,
    tokens: float,
    dtype: str,
    n: int,
    efficiency: float,
    seq_len: int = 0,
) -> float:
    """Wall-clock hours for ``tokens`` on ``n`` GPUs at the given scaling efficiency."""
    per_gpu = step_compute_s(arch, gpu, method, recompute, tokens, dtype, seq_len) / n
    return per_gpu / max(efficiency, 1e-6) / 3600.0
