"""Collective communication inside one machine: NVLink versus PCIe.

Ring all-reduce of S bytes over N GPUs moves 2·(N−1)/N · S through each GPU's link and
takes 2·(N−1) latency hops (Patarasuk & Yuan 2009; NCCL's "bus bandwidth" is defined
so that busbw = S/t · 2(N−1)/N). We use each link's *achieved* one-way bus bandwidth:
- NVLink/NVSwitch: nvlink_gbs is bidirectional, so one way is half; nccl-tests reach
  roughly 80 % of it (8×A100 SXM: 231.6 of 300 GB/s). Hopper-class NVSwitch nodes
  reduce inside the switch (NVLS), so all-reduce bus bandwidth exceeds the one-way
  wire rate: 8×H100 476 and 8×H200 480 GB/s against 450 — we take 1.05 there.
- PCIe: the card's lanes one way (gen4 ×16 ≈ 31.5 GB/s theoretical, the "64 GB/s" in
  marketing counts both directions); GPUs that cannot do peer-to-peer (GeForce cards)
  bounce through host memory, and a ring spanning both CPU sockets crosses the
  inter-socket link, so we take 60 % for datacenter cards and 35 % for consumer ones.

Data-parallel training (DDP, ZeRO-1/2) all-reduces the bf16 gradients of the trainable
parameters once per optimizer step, however many micro-batches are accumulated.
ZeRO-3/FSDP all-gathers the weights forward and backward and reduce-scatters the
gradients on *every* micro-batch: 1.5× the DDP volume, not amortised by accumulation.
Both overlap with the backward pass (≈2/3 of a step), so only the excess is exposed:
    efficiency = T_compute / (T_compute + max(0, T_comm − ⅔·T_compute)).

Tensor-parallel serving all-reduces the hidden state twice per layer per decode step
(Shoeybi et al., Megatron-LM 2019): small messages, so latency dominates, and that
latency sits on every generated token's critical path.
"""

from __future__ import annotations

from gpu_advisor.engine.specs import GpuSpec, Interconnect

NVLINK_EFFICIENCY = 0.8
NVLS_EFFICIENCY = 1.05
PCIE_EFFICIENCY_P2P = 0.6
PCIE_EFFICIENCY_NO_P2P = 0.35
NVLINK_HOP_LATENCY_S = 4e-6
PCIE_HOP_LATENCY_S = 12e-6
BACKWARD_SHARE = 2.0 / 3.0


def link_gbs(gpu: GpuSpec, interconnect: Interconnect) -> float:
    """Achieved one-way bus bandwidth per GPU in GB/s."""
    if interconnect in ("nvlink", "nvswitch") and gpu.nvlink_gbs > 0:
        nvls = interconnect == "nvswitch" and gpu.compute_capability >= 9.0
        return gpu.nvlink_gbs / 2 * (NVLS_EFFICIENCY if nvls else NVLINK_EFFICIENCY)
    eff = PCIE_EFFICIENCY_NO_P2P if gpu.segment == "consumer" else PCIE_EFFICIENCY_P2P
    return gpu.pcie_gbs_per_direction * eff


def hop_latency_s(gpu: GpuSpec, interconnect: Interconnect) -> float:
    nvlink = interconnect in ("nvlink", "nvswitch") and gpu.nvlink_gbs > 0
    return NVLINK_HOP_LATENCY_S if nvlink else PCIE_HOP_LATENCY_S


def allreduce_s(size_bytes: float, n: int, bus_gbs: float, hop_latency: float) -> float:
    """Ring all-reduce time of ``size_bytes`` across ``n`` GPUs."""
    if n <= 1:
        return 0.0
    return 2 * (n - 1) / n * size_bytes / (bus_gbs * 1e9) + 2 * (n - 1) * hop_latency


def sync_volume_bytes(trainable_params: float, zero_stage: int, micro_steps: int) -> float:
    """Bytes each GPU's ring carries per optimizer step."""
    if zero_stage >= 3:
        return trainable_params * 2.0 * 1.5 * micro_steps
    return trainable_params * 2.0


def gradient_sync_s(
    trainable_params: float, n: int, zero_stage: int, gpu: GpuSpec, ic: Interconnect, micro_steps: int = 1
) -> float:
    volume = sync_volume_bytes(trainable_params, zero_stage, micro_steps)
    return allreduce_s(volume, n, link_gbs(gpu, ic), hop_latency_s(gpu, ic))


def scaling_efficiency(compute_s: float, comm_s: float) -> float:
    """Share of ideal linear speed-up kept once the exposed communication is paid."""
    exposed = max(0.0, comm_s - BACKWARD_SHARE * compute_s)
    return compute_s / (compute_s + exposed) if compute_s > 0 else 1.0


def tp_decode_comm(hidden: int, layers: int, tp: int, gpu: GpuSpec, ic: Interconnect) -> tuple[float, float]:
    """Per-token tensor-parallel all-reduce time as (fixed seconds, seconds per sequence in the batch)."""
    if tp <= 1:
        return 0.0, 0.0
    bw, hop = link_gbs(gpu, ic), hop_latency_s(gpu, ic)
    fixed = 2 * layers * 2 * (tp - 1) * hop
    per_seq = 2 * layers * 2 * (tp - 1) / tp * hidden * 2.0 / (bw * 1e9)
    return fixed, per_seq


def tp_decode_comm_s(hidden: int, layers: int, batch: int, tp: int, gpu: GpuSpec, ic: Interconnect) -> float:
    """Per-token time spent in the 2·layers all-reduces of tensor parallelism."""
    fixed, per_seq = tp_decode_comm(hidden, layers, tp, gpu, ic)
    return fixed + per_seq * batch


# Serving across machines. vLLM's distributed-serving guide: tensor parallel inside a
# machine, pipeline parallel across machines; a stage boundary sends one hidden state
# per sequence, so it pays a network latency per crossing, not bandwidth. GPUDirect
# RDMA over InfiniBand/RoCE: ~10 µs for a small message (the figure training_search uses).
RDMA_HOP_LATENCY_S = 10e-6


def pipeline_hop_s(hidden: int, network_gbps: float) -> float:
    """One stage boundary for a micro-batch: a network latency plus one bf16 hidden state."""
    return RDMA_HOP_LATENCY_S + hidden * 2.0 / (network_gbps / 8 * 1e9)


def expert_parallel_bytes_per_token(
    moe_layers: int, experts_per_token: int, hidden: int, nodes: int
) -> float:
    """Bytes one token sends across machines under expert parallelism (all-to-all).

    Each MoE layer dispatches the token to its k experts and combines their outputs:
    DeepEP sends the dispatch in FP8 (1 byte per element) and the combine in bf16 (2),
    so 3·k·h bytes per layer, of which (nodes−1)/nodes leave the machine when experts
    are spread evenly. DeepSeek-V3 over 2 machines: 58·8·7168·3/2 ≈ 5 MB per token,
    which is why wide expert parallelism wants 400 Gb/s RDMA per GPU.
    """
    if nodes <= 1:
        return 0.0
    return moe_layers * experts_per_token * hidden * 3.0 * (nodes - 1) / nodes


# What the network between a replica's machines must carry. Each token that a replica
# processes (a prompt token in prefill, a generated token in decode) hands one bf16
# hidden state across every stage boundary: h·2 bytes per token per boundary (vLLM's
# pipeline parallel sends the residual stream between stages). A MoE replica spread
# over machines with expert parallelism instead sends the all-to-all of
# ``expert_parallel_bytes_per_token``. A link run above half its capacity queues: in an
# M/M/1 queue the wait equals the service time at utilisation ρ = 0.5 (Kleinrock,
# Queueing Systems vol. 1, 1975), so we ask for twice the sustained rate.
LINK_HEADROOM = 2.0


def pipeline_bytes_per_token(hidden: int) -> float:
    """Bytes one token sends across one pipeline-stage boundary: its bf16 hidden state."""
    return hidden * 2.0


def network_gbps_needed(bytes_per_token: float, tokens_per_s: float) -> float:
    """Gbit/s a link must offer to carry ``tokens_per_s`` tokens of ``bytes_per_token`` at ρ ≤ 0.5.

    need = LINK_HEADROOM · bytes_per_token · tokens_per_s · 8 / 1e9. DeepSeek-V3's
    pipeline (h = 7168) at 500 tokens/s: 2 · 14336 · 500 · 8 / 1e9 ≈ 0.11 Gbit/s; its
    expert all-to-all over 2 machines at the same rate: 2 · 4.99 MB · 500 · 8 / 1e9 ≈ 40 Gbit/s.
    """
    return LINK_HEADROOM * bytes_per_token * tokens_per_s * 8.0 / 1e9
