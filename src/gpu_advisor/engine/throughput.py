"""How fast a replica serves: decode speed, time to first token, requests per second.

Decode is memory-bound: every step streams the (per-GPU) weights once plus the KV cache
of every running sequence at its *average* length. The weight GEMMs and attention are
separate kernels, one after the other, each bound by its own slower resource, so a step takes
    t = max(W / (B_mem · η_bw), F_w / (F_peak · η_c)) + max(KV / (B_mem · η_kv), F_a / (F_peak · η_c))
        + t_fixed + t_TP   (at least t_floor),
where η_bw, t_floor and t_fixed belong to the serving runtime (llama.cpp, vLLM, TensorRT-LLM,
transformers reach different fractions of the card's bandwidth and pay different
per-step launch/scheduling costs), F_w = 2 · active params · batch and F_a the attention
FLOPs. Larger batches reuse each weight read for more tokens until the compute ceiling
binds; the cache reads grow with the batch whatever bounds the GEMMs.
For mixture-of-experts models every expert is resident but a step reads only the
shared weights (attention, shared experts, dense layers, embeddings) plus the routed
experts its tokens chose: with E experts and k routed per token, independent tokens
leave an expert untouched with probability (1 − k/E)^B, so a batch of B reads
E·(1 − (1 − k/E)^B) experts per MoE layer. At batch 1 that is the active size
(DeepSeek-V3: ~37 of 671B); as B grows it tends to the total, so a MoE model's
per-stream speed falls faster with batch than a dense model's.

Attention work per generated token is 4 · heads · d · (tokens attended) per layer;
sliding-window layers attend over at most the window, and MLA decodes in the absorbed
form (DeepSeek-V2 §2.1.3) with d = kv_lora_rank + qk_rope_head_dim/2 per head.

Prefill is compute-bound: 2 · active params · prompt tokens, plus causal attention
2 · layers · prompt² · q-dim, at the runtime's prefill MFU on the dense tensor rate.
Both η_bw and the prefill MFU belong to the runtime *and* the card class
(RuntimeProfile.decode_share / prefill_share): llama.cpp's pp512 reaches ~0.8 of an
RTX 4090's FP16 rate but ~0.35 of an A100's (llama.cpp PRs #4766, #6017).

Several GPUs: a tensor-parallel runtime (vLLM, SGLang, TensorRT-LLM) divides each step's
weights and FLOPs by the TP degree and pays the all-reduces; llama.cpp's default layer
split keeps whole layers on each GPU, so memory divides but a token still walks every
layer in turn — its speed is one GPU's (llama.cpp issue #4747: "splitting models across
multiple GPUs at the layer level ... is now the default behavior").

Under load (vLLM V1, SGLang, TensorRT-LLM in-flight batching) prompts are not a serial
phase: each forward pass runs one decode token for each of the B running sequences and
fills the rest of a token budget (``max_num_batched_tokens``) with prompt chunks. In
steady state a sequence finishes every ``output`` steps and its slot takes a new
prompt, so a step also carries B·prompt/output prompt tokens; the step is then
    t_mix(B) = t₀ + c_seq·B + max(W(T)/BW, F_w(T)/C) + max(B·KV(avg)/(BW·η_kv), F_a/C) + t_TP(T),
with T = B·(1 + prompt/output) tokens, W(T) the weights the step reads, and the replica
completes B/(output·t_mix(B)) requests per second (``mixed_step_s``, ``saturated_rps``).

MoE layers run grouped GEMMs over tokens permuted to their experts, which fall short of
a dense layer, by fitted runtime coefficients: the experts T tokens touch
are read as dense weights are; their FLOPs count at
``moe_compute_efficiency`` of the dense rate (``effective_flops_per_token``); and in a
loaded step each touched expert computes at least a tile of ``moe_pad_tokens`` rows
and costs ``moe_expert_us`` to start. A decode-only step of a few sequences runs
small-M kernels bound by reading the experts it touched, as a dense GEMV is, plus the
latency of its routed path's kernels (``moe_decode_layer_us`` per MoE layer: router GEMM,
top-k, token alignment, two grouped GEMMs, activation, combine, each a launch-and-drain a
batch-1 step waits for in turn; a mixed step runs the same kernels and pays them too, where its
prompt chunks make them a small share).
The coefficients (c_seq, η_kv, the batched compute share, the MoE shares) live in
knowledge/runtimes.yaml with the published runs they were fitted on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gpu_advisor.engine.dtypes import FORMATS
from gpu_advisor.engine.memory import expert_weight_bytes, kv_bytes_per_sequence, serving_weight_bytes
from gpu_advisor.engine.param_count import attention_params, routed_expert_params
from gpu_advisor.engine.specs import GpuSpec, ModelArch, RuntimeProfile

STEP_READS = True


@dataclass(frozen=True, slots=True)
class ServingPoint:
    batch: int
    step_ms: float
    tokens_per_s_per_seq: float
    tokens_per_s: float
    ttft_ms: float
    requests_per_s: float
    bound: str


def expert_fraction(arch: ModelArch, batch: float) -> float:
    """Share of the routed experts a decode step of ``batch`` tokens reads: 1 − (1 − k/E)^B."""
    if not arch.is_moe:
        return 1.0
    e, k = arch.num_experts, arch.experts_per_token
    return float(1.0 - (1.0 - k / e) ** batch)


def attended_layer_tokens(arch: ModelArch, context: float) -> float:
    """Σ over attention layers of the tokens each attends to at ``context`` (windows cap theirs)."""
    windowed = arch.windowed_layers
    full = arch.layers - arch.linear_attention_layers - windowed
    return full * context + windowed * min(context, float(arch.sliding_window or 0))


def attention_head_dim(arch: ModelArch) -> float:
    """Per-head width of the decode attention matmuls (MLA: absorbed latent, not head_dim)."""
    if arch.attention == "mla":
        return (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0) / 2.0
    return float(arch.head_dim)


def effective_flops_per_token(arch: ModelArch, rt: RuntimeProfile, gpu: GpuSpec) -> float:
    """FLOPs per token a step pays, the routed experts' weighted by their kernels' shortfall.

    A MoE layer's expert matmuls are grouped GEMMs over tokens permuted to their experts
    (gather, per-expert GEMMs, scatter back, the router's top-k): they reach a smaller
    share of the tensor peak than one dense GEMM of the same FLOPs, so their
    2·k·(expert params) FLOPs per token count 1/``moe_compute_efficiency`` times. The
    runtime's coefficient is fitted on published MoE serving runs
    (knowledge/runtimes.yaml), and grows with the expert's width
    (``RuntimeProfile.moe_share``); a dense model is unaffected.
    """
    active = 2.0 * arch.active_b * 1e9
    share = rt.moe_share(gpu, arch.expert_intermediate_size)
    if not arch.is_moe or share >= 1.0:
        return active
    experts = 2.0 * routed_expert_params(arch) * arch.experts_per_token / arch.num_experts
    experts = min(experts, active)
    return active + experts * (1.0 / share - 1.0)


def gemms_then_attention(w_mem: float, w_comp: float, a_mem: float, a_comp: float) -> float:
    """Seconds of a pass's weight GEMMs and then its attention, each at its slower resource.

    Separate kernels, one after the other: the cache reads never hide under the GEMMs'
    compute. Conditionals, not ``max``: every batch a search tries runs through here.
    """
    return (w_mem if w_mem > w_comp else w_comp) + (a_mem if a_mem > a_comp else a_comp)


def compute_tflops(gpu: GpuSpec, fmt: str, rt: RuntimeProfile) -> float:
    """Dense tensor rate the format computes at, discounted where its kernels fall short of it."""
    return gpu.tflops(FORMATS[fmt].compute) * rt.format_compute_efficiency.get(fmt, 1.0)


class ReplicaModel:
    """One replica's speed as a function of its batch, with every batch-free term computed once.

    The search evaluates hundreds of batch sizes per layout, so the constants (weight
    bytes, effective bandwidth and compute rate, prefill time, TP all-reduce cost) are
    derived here once and ``step_s(b)`` is a handful of float operations.
    """

    __slots__ = (
        "_arch",
        "_attn_flops",
        "_avg_ctx",
        "_budget",
        "_chunked",
        "_comm",
        "_dense_w",
        "_expert_start_s",
        "_expert_w",
        "_fixed",
        "_floor",
        "_flops_tok_eff",
        "_inv_bw",
        "_inv_compute",
        "_kv_inv_bw",
        "_kv_seq",
        "_moe_decode_s",
        "_moe_pad_flops",
        "_per_seq",
        "_pp",
        "_pp_hops",
        "_prompt",
        "_prompt_attn_flops",
        "_rank_budget",
        "output",
        "prefill_s",
    )

    def __init__(
        self,
        arch: ModelArch,
        gpu: GpuSpec,
        rt: RuntimeProfile,
        fmt: str,
        kv_dtype: str,
        prompt: int,
        output: int,
        tp: int = 1,
        tp_comm: tuple[float, float] = (0.0, 0.0),
        stages: tuple[int, float] = (1, 0.0),
        attention_dp: bool = False,
    ) -> None:
        """``stages``: pipeline stages (machines) and the seconds one stage boundary costs;
        ``attention_dp``: each GPU attends for its own 1/tp of the batch with whole attention weights."""
        if rt.parallelism == "layer":
            tp, tp_comm = 1, (0.0, 0.0)  # layer split: each token walks all GPUs in turn
        weights = serving_weight_bytes(arch, fmt, tp)
        self._arch = arch
        self._expert_w = expert_weight_bytes(arch, fmt) / tp
        self._dense_w = weights - self._expert_w
        self._avg_ctx = prompt + output / 2.0
        self._kv_seq = kv_bytes_per_sequence(arch, kv_dtype, self._avg_ctx, tp)
        if attention_dp and tp > 1:  # each rank attends for, and schedules, its own 1/tp of the batch
            self._kv_seq = kv_bytes_per_sequence(arch, kv_dtype, self._avg_ctx, 1) / tp
            self._dense_w += attention_params(arch) * arch.layers * FORMATS[fmt].bits / 8 * (1.0 - 1.0 / tp)
        self._inv_bw = 1.0 / (rt.bandwidth_gbs(gpu.bandwidth_gbs, fmt, rt.decode_share(gpu)) * 1e9)
        self._flops_tok_eff = effective_flops_per_token(arch, rt, gpu) / tp
        span = attended_layer_tokens(arch, self._avg_ctx)
        self._attn_flops = 4.0 * arch.num_heads * attention_head_dim(arch) * span / tp
        self._inv_compute = 1.0 / (compute_tflops(gpu, fmt, rt) * 1e12 * rt.decode_compute_efficiency)
        self._floor = arch.layers * rt.min_step_ms_per_layer / 1e3
        self._fixed = rt.step_overhead_ms / 1e3 + tp_comm[0] + arch.moe_layers * rt.moe_layer_us / 1e6
        self._per_seq = rt.seq_layer_us * arch.layers / 1e6 / (tp if attention_dp else 1)
        # the routed path's small kernels: a per-MoE-layer latency floor that the TP all-reduce
        # latency already charged for the layer (tp_comm[0], two per layer) counts toward
        layer_comm = tp_comm[0] / arch.layers if arch.layers else 0.0
        routed = max(0.0, rt.moe_decode_layer_us / 1e6 - layer_comm)
        self._moe_decode_s = arch.moe_layers * routed if arch.is_moe else 0.0
        # attention reads the cache at its own kernels' share: a weight format's GEMV shortfall
        # (``format_bw_efficiency``) is the weights', not the cache's
        kv_bw = rt.bandwidth_gbs(gpu.bandwidth_gbs, "bf16", rt.decode_share(gpu))
        self._kv_inv_bw = 1.0 / (kv_bw * 1e9 * rt.kv_read_efficiency)
        # a loaded step's grouped GEMMs start every expert they touch, on every rank
        self._expert_start_s = (
            arch.moe_layers * arch.num_experts * rt.moe_expert_us / 1e6 if arch.is_moe else 0.0
        )
        # a touched expert's grouped-GEMM tile runs ``moe_pad_tokens`` rows however few it got
        self._moe_pad_flops = (
            2.0
            * routed_expert_params(arch)
            / tp
            * rt.moe_pad_tokens
            / rt.moe_share(gpu, arch.expert_intermediate_size)
        )
        self._prompt = prompt
        # under attention DP a prompt is one rank's, chunked by that rank's budget; a step
        # carries every rank's (RuntimeProfile.step_limits)
        ranks = tp if attention_dp and tp > 1 else 1
        self._rank_budget = rt.step_limits(ranks)[1]
        self._budget = ranks * self._rank_budget
        self._chunked = rt.continuous_batching
        self._prompt_attn_flops = prompt_attention_flops(arch, prompt) / tp
        self._comm = tp_comm[1]
        self._pp = stages[0]
        self._pp_hops = stages[0] * stages[1] if stages[0] > 1 else 0.0
        self.output = output
        prompt_flops = self._flops_tok_eff * prompt + self._prompt_attn_flops  # per GPU, as prefill_s
        self.prefill_s = _prefill_time(prompt_flops, (arch, gpu, rt, fmt)) + self._pp_hops

    @property
    def arch(self) -> ModelArch:
        return self._arch

    def step_s(self, batch: int) -> tuple[float, str]:
        """Seconds per decode step for ``batch`` sequences and which resource bounds it.

        Across P pipeline stages (vLLM: TP inside a machine, PP across machines) the
        batch moves as P micro-batches of B/P; each stage holds 1/P of the layers, so a
        step costs what B/P sequences cost on the whole model plus P boundary crossings.
        """
        batch = -(-batch // self._pp)
        weights = self._dense_w
        if self._expert_w:
            weights += self._expert_w * expert_fraction(self._arch, batch)
        w_mem = weights * self._inv_bw
        w_comp = self._flops_tok_eff * batch * self._inv_compute
        a_mem = self._kv_seq * batch * self._kv_inv_bw
        a_comp = self._attn_flops * batch * self._inv_compute
        bound = "memory" if w_mem + a_mem >= w_comp + a_comp else "compute"
        slowest = gemms_then_attention(w_mem, w_comp, a_mem, a_comp)
        if self._floor > slowest:
            bound, slowest = "launch", self._floor
        latency = self._fixed + self._moe_decode_s
        return slowest + latency + (self._comm + self._per_seq) * batch + self._pp_hops, bound

    def mixed_step_s(self, batch: int) -> float:
        """Mean seconds of a saturated step: ``batch`` decode tokens plus their share of prompt chunks.

        Every ``output`` steps each sequence is replaced by a new one, so steps carry
        batch/output new prompts on average; weights are read once for every token a step
        carries, compute covers all of them. While at least one prompt chunk rides in each
        step the load is even and that mean is the step. When new prompts are rarer (a few
        sequences with long answers), a prompt comes whole, or in chunks of what the token
        budget leaves beside the batch, into a few steps that its compute stretches while
        the others only decode: the mean is taken over both kinds of step, since a step
        lasts as long as its slower resource, step by step.
        """
        batch = -(-batch // self._pp)
        prompts = batch / self.output
        chunks = max(1, math.ceil(self._prompt / max(1, self._budget - batch)))
        share = prompts * chunks  # steps carrying a chunk, per step
        if share >= 1.0:
            return self.pass_s(batch, prompts)
        return share * self.pass_s(batch, 1.0 / chunks) + (1.0 - share) * self.pass_s(batch, 0.0)

    def pass_s(self, batch: int, prompts: float) -> float:
        """Seconds of one forward pass with ``batch`` decode tokens and ``prompts`` prompts' tokens."""
        tokens = batch + prompts * self._prompt
        touched = expert_fraction(self._arch, tokens)
        w_mem = (self._dense_w + self._expert_w * touched) * self._inv_bw
        w_comp = (self._flops_tok_eff * tokens + self._expert_pad(tokens)) * self._inv_compute
        a_mem = self._kv_seq * batch * self._kv_inv_bw
        a_comp = (self._attn_flops * batch + self._prompt_attn_flops * prompts) * self._inv_compute
        busy = max(gemms_then_attention(w_mem, w_comp, a_mem, a_comp), self._floor)
        busy += self._expert_start_s * touched
        latency = self._fixed + self._moe_decode_s
        return busy + latency + self._per_seq * batch + self._comm * tokens + self._pp_hops

    def _expert_pad(self, tokens: float) -> float:
        """Padding FLOPs of a saturated step's expert GEMMs: every touched expert computes a tile.

        Only the mixed steps of a loaded server pay it: their prompt chunks run the
        large-tile grouped GEMMs; a decode-only step of a few sequences runs small-M
        kernel configurations (vLLM's fused_moe picks a 16-row block below 64 tokens)
        and stays bound by reading the experts it touched.
        """
        if not self._moe_pad_flops:
            return 0.0
        return self._moe_pad_flops * expert_fraction(self._arch, tokens)

    def saturated_rps(self, batch: int) -> float:
        """Requests per second with ``batch`` sequences always running (chunked prefill)."""
        return batch / (self.output * self.mixed_step_s(batch))

    def prompt_share_s(self, batch: int) -> float:
        """Seconds of replica time one prompt costs when it rides in saturated steps of ``batch``."""
        return max(0.0, self.output * (self.mixed_step_s(batch) - self.step_s(batch)[0]) / batch)

    def first_token_s(self, batch: int) -> float:
        """A new prompt's own processing time beside ``batch`` running sequences: its chunks' compute."""
        flops = self._flops_tok_eff * self._prompt + self._prompt_attn_flops
        chunks = max(1, math.ceil(self._prompt / self._rank_budget))
        return flops * self._inv_compute + chunks * self.step_s(batch)[0]

    def smallest_batch_for(self, target_rps: float) -> float:
        """Batch at which the memory-bound line reaches ``target_rps`` (inf if it never does).

        With step(b) = A + B·b, rps(b) = b / (out·(A + B·b) + pre·b) ≥ q solves to
        b ≥ q·out·A / (1 − q·out·B − q·pre). A first guess for the search: compute
        ceilings, launch floors and MoE expert reads only ever make the real step slower.
        """
        a = self._dense_w * self._inv_bw + self._fixed + self._pp_hops
        b = (self._kv_seq * self._inv_bw + self._comm) / self._pp
        q = target_rps
        denom = 1.0 - q * self.output * b - q * self.prefill_s
        return q * self.output * a / denom if denom > 0 else math.inf

    def rps(self, batch: int) -> float:
        """Requests per second with ``batch`` running: prompts in the steps (continuous
        batching with chunked prefill), else one prefill after another between decode steps."""
        if self._chunked:
            return self.saturated_rps(batch)
        return 1.0 / (self.output * self.step_s(batch)[0] / batch + self.prefill_s)

    def point(self, batch: int) -> ServingPoint:
        """Figures at ``batch``: a stream's decode speed between prompts, the replica's output
        tokens/s and requests/s with its prompts' work included.

        Kept per (model, batch) (``_POINTS``): a model kept by ``replica.speed`` is asked for
        the same points by every plan that sizes it and draws its curve (issue 41)."""
        key = (id(self), batch)
        got = _POINTS.get(key)
        if got is not None and got[0] is self:
            return got[1]
        step, bound = self.step_s(batch)
        rps = self.rps(batch)
        # Under load a new prompt waits, on average, for half a decode step before its prefill.
        ttft = (self.prefill_s + (step / 2 if batch > 1 else 0.0)) * 1e3
        out = ServingPoint(batch, step * 1e3, 1.0 / step, rps * self.output, ttft, rps, bound)
        if len(_POINTS) >= POINTS_KEPT:
            _POINTS.clear()
        _POINTS[key] = (self, out)  # the model kept alive: its id names no other while it is here
        return out


POINTS_KEPT = 4096  # ~100 points a plan (its layouts and the pick's curve); each keeps its model alive
_POINTS: dict[tuple[int, int], tuple[ReplicaModel, ServingPoint]] = {}


def clear_points() -> None:
    """Forget every kept point (``ReplicaModel.point``): a cold start, for the benches and tests."""
    _POINTS.clear()


def prefill_s(arch: ModelArch, gpu: GpuSpec, rt: RuntimeProfile, fmt: str, prompt: int, tp: int) -> float:
    """Seconds to process ``prompt`` tokens: FLOPs at the runtime's prefill share of this card."""
    if rt.parallelism == "layer":
        tp = 1  # one micro-batch crosses the GPUs one after another
    flops = effective_flops_per_token(arch, rt, gpu) * prompt + prompt_attention_flops(arch, prompt)
    return _prefill_time(flops / tp, (arch, gpu, rt, fmt))


def prompt_attention_flops(arch: ModelArch, prompt: int) -> float:
    """Causal attention over one prompt: 2·p·(tokens attended)·q-dim per layer, half on average."""
    return 2.0 * prompt * attended_layer_tokens(arch, prompt) * arch.num_heads * arch.head_dim


def _prefill_time(flops_per_gpu: float, place: tuple[ModelArch, GpuSpec, RuntimeProfile, str]) -> float:
    """A prompt pass of ``flops_per_gpu`` at the runtime's prefill share of the card, plus its floor."""
    arch, gpu, rt, fmt = place
    rate = compute_tflops(gpu, fmt, rt) * 1e12 * rt.prefill_share(gpu)
    return flops_per_gpu / rate + rt.prefill_floor_s(arch)


def serving_point(
    arch: ModelArch,
    gpu: GpuSpec,
    rt: RuntimeProfile,
    fmt: str,
    kv_dtype: str,
    batch: int,
    prompt: int,
    output: int,
    tp: int = 1,
    tp_comm: tuple[float, float] = (0.0, 0.0),
) -> ServingPoint:
    """Steady-state figures for one replica running ``batch`` sequences."""
    return ReplicaModel(arch, gpu, rt, fmt, kv_dtype, prompt, output, tp, tp_comm).point(batch)


def max_batch_for_memory(free_bytes: float, kv_per_seq_bytes: float, runtime_cap: int) -> int:
    if kv_per_seq_bytes <= 0:
        return runtime_cap
    return max(0, min(runtime_cap, math.floor(free_bytes / kv_per_seq_bytes)))
