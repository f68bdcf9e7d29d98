"""Typed records of the hardware, model and price facts the engine reasons over.

These are the shapes of ``knowledge/*.yaml``. The engine never reads files: callers
hand it validated records (see ``knowledge.load``). Every record carries a ``source``
(a datasheet, paper or config URL, or a seed document) because a number without a
source cannot be checked, and checking numbers is the product.

Scalar fields use plain SI-prefixed magnitudes whose unit is in the field name
(``bandwidth_gbs`` is GB/s, decimal); the ``*_q`` properties return pint quantities
for callers that want units at the boundary. In the YAML a quantity is written with the
unit its vendor prints (``bandwidth_gbs: 3.35 TB/s``); ``engine.units.in_units`` turns
it into the field's unit at load, and a bare number is read in that unit.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    PrivateAttr,
    model_validator,
)

from gpu_advisor.engine.catalog_index import CatalogIndex
from gpu_advisor.engine.checkpoints import Checkpoints
from gpu_advisor.engine.model_arch import Attention, ModelArch, NativeDtype
from gpu_advisor.engine.record import Record as _Record
from gpu_advisor.engine.train_recipes import TrainingRecipe
from gpu_advisor.engine.units import Q_, in_units

if TYPE_CHECKING:
    from collections.abc import Mapping

    from gpu_advisor.engine.units import Quantity

__all__ = [
    "Addon",
    "Attention",
    "CardClassEfficiency",
    "Catalog",
    "FormFactor",
    "GpuRole",
    "GpuSpec",
    "Interconnect",
    "Knowledge",
    "ModelArch",
    "NativeDtype",
    "NodeBaseline",
    "Offer",
    "Precision",
    "RuntimeProfile",
    "Segment",
    "Vendor",
]

Precision = Literal["fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4", "int4"]
FormFactor = Literal["pcie", "sxm", "oam", "consumer"]
Segment = Literal["datacenter", "workstation", "consumer"]
Interconnect = Literal["nvlink", "nvswitch", "pcie", "none"]
Vendor = Literal["nvidia", "amd", "huawei"]
GpuRole = Literal["training", "inference", "general"]


class GpuSpec(_Record):
    """One accelerator as its vendor documents it.

    ``dense_tflops`` holds dense tensor-core rates (FP32 is the CUDA-core rate);
    figures quoted "with sparsity" are halved before they go here. INT8 is TOPS.
    ``nvlink_gbs`` is total bidirectional NVLink bandwidth per GPU, 0 where absent;
    ``nvlink_bridge_gbs`` is what an optional NVLink bridge gives a pair of PCIe or
    consumer cards (total, both directions), 0 where no bridge exists.

    ``role`` is what the card is built and bought for: ``training`` (HBM, NVLink/NVSwitch
    or an equivalent fabric), ``inference`` (PCIe data-centre cards sold for serving) or
    ``general`` (workstation and consumer cards). ``lineage`` names the card a variant is
    cut or rebuilt from (H20 → H100, A800 → A100, 4090D → 4090); China variants and
    nonstandard (rebuilt) cards must name one. ``compute_capability`` is CUDA's; it is 0
    for cards that do not run CUDA, whose ``software_stack`` says what they run instead.
    """

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    architecture: str
    compute_capability: float
    segment: Segment
    form_factor: FormFactor
    memory_gb: Annotated[PositiveFloat, in_units("GB")] = Field(
        description="capacity as the vendor prints it"
    )
    memory_type: str
    usable_gib: Annotated[PositiveFloat, in_units("GiB")] = Field(description="what CUDA reports as total")
    bandwidth_gbs: Annotated[PositiveFloat, in_units("GB/s")]
    dense_tflops: dict[Precision, NonNegativeFloat]
    tdp_w: Annotated[PositiveInt, in_units("W")]
    nvlink_gbs: Annotated[NonNegativeFloat, in_units("GB/s")] = 0.0
    pcie_gen: PositiveInt
    pcie_lanes: PositiveInt = 16
    mig_profiles: list[str] = Field(default_factory=list)
    china_variant: bool = False
    vendor: Vendor = "nvidia"
    role: GpuRole
    lineage: str | None = None
    nonstandard: bool = False
    software_stack: str | None = None
    nvlink_bridge_gbs: Annotated[NonNegativeFloat, in_units("GB/s")] = 0.0
    source: str = Field(min_length=8)
    field_sources: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> GpuSpec:
        if self.usable_gib > self.memory_gb:
            raise ValueError(f"{self.id}: usable_gib exceeds printed capacity")
        for required in ("fp32", "fp16"):
            if required not in self.dense_tflops:
                raise ValueError(f"{self.id}: dense_tflops needs {required}")
        self._check_lineage()
        if self.vendor != "nvidia" and not self.software_stack:
            raise ValueError(f"{self.id}: a non-NVIDIA card needs a software_stack note")
        if self.vendor != "nvidia" and self.compute_capability:
            raise ValueError(f"{self.id}: compute_capability is CUDA's; 0 for a non-CUDA card")
        if self.nvlink_bridge_gbs and self.nvlink_gbs:
            raise ValueError(f"{self.id}: a bridge pair is for cards without their own NVLink")
        return self

    def _check_lineage(self) -> None:
        if (self.china_variant or self.nonstandard) and not self.lineage:
            raise ValueError(f"{self.id}: a China variant or rebuilt card names its lineage")
        if self.lineage == self.id:
            raise ValueError(f"{self.id}: lineage names another card")

    def tflops(self, precision: Precision) -> float:
        """Dense rate for ``precision``, falling back the way kernels do (bf16→fp16)."""
        rates = self.dense_tflops
        if rates.get(precision):
            return rates[precision]
        fallback = {"bf16": "fp16", "fp8": "fp16", "int4": "int8", "int8": "fp16", "tf32": "fp32"}
        nxt = fallback.get(precision)
        return self.tflops(nxt) if nxt else rates["fp16"]  # type: ignore[arg-type]

    def supports(self, precision: Precision) -> bool:
        return bool(self.dense_tflops.get(precision))

    @property
    def bandwidth_q(self) -> Quantity:
        return Q_(self.bandwidth_gbs, "GB/s")

    @property
    def memory_q(self) -> Quantity:
        return Q_(self.usable_gib, "GiB")

    @property
    def pcie_gbs_per_direction(self) -> float:
        """Theoretical PCIe payload bandwidth one way (gen3 ~0.985, gen4 ~1.97, gen5 ~3.94 GB/s per lane)."""
        per_lane = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}[self.pcie_gen]
        return per_lane * self.pcie_lanes


class Offer(_Record):
    """One rentable machine in an operator's catalog."""

    id: str
    gpu: str
    count: PositiveInt
    interconnect: Interconnect
    price_month: PositiveFloat | None = None
    price_month_max: PositiveFloat | None = None
    price_hour: PositiveFloat | None = None
    currency: str = "CNY"
    yearly_discount: float = Field(0.0, ge=0.0, lt=1.0)
    min_rental_hours: Annotated[PositiveFloat, in_units("h")] = 720.0
    mig_profile: str | None = None
    slice_memory_gib: Annotated[PositiveFloat | None, in_units("GiB")] = None
    cpu_cores: PositiveInt | None = None
    ram_gb: Annotated[PositiveInt | None, in_units("GB")] = None
    nvme_tb: Annotated[NonNegativeFloat | None, in_units("TB")] = None
    network_gbps: Annotated[NonNegativeFloat | None, in_units("Gbit/s")] = None
    order_url: str | None = None
    # The order button's words on the operator's site ("立即租用", "Rent now"); surfaces
    # fall back to their own "下单 / Order" when it is absent.
    order_label: str | None = Field(None, max_length=40)
    owned: bool = False
    source: str = Field(min_length=4)

    @model_validator(mode="after")
    def _check(self) -> Offer:
        if self.price_month is None and self.price_hour is None and not self.owned:
            raise ValueError(f"{self.id}: an offer needs price_month or price_hour")
        if self.mig_profile and self.slice_memory_gib is None:
            raise ValueError(f"{self.id}: a MIG slice needs slice_memory_gib")
        return self

    @property
    def is_slice(self) -> bool:
        return self.mig_profile is not None


class Addon(_Record):
    id: str
    price_month: PositiveFloat
    cpu_cores: int = 0
    ram_gb: Annotated[int, in_units("GB")] = 0
    currency: str = "CNY"
    source: str = Field(min_length=4)


class Catalog(_Record):
    """An operator's price list. ``fx_to_cny`` converts budgets given in other currencies.

    ``offers`` stay as the operator wrote them; ``index`` holds them pruned of dominated
    offers and grouped by machine (``engine.catalog_index``), built once when the
    catalog is made, so a 10,000-offer upload pays for pruning once, not every plan.
    """

    operator: str
    currency: str = "CNY"
    offers: list[Offer]
    addons: list[Addon] = Field(default_factory=list)
    fx_to_cny: dict[str, PositiveFloat] = Field(default_factory=lambda: {"CNY": 1.0})
    fx_date: date | None = Field(None, description="the day the fx_to_cny rates were quoted")
    fx_source: str = ""

    _index: CatalogIndex[Offer] = PrivateAttr()

    @model_validator(mode="after")
    def _unique(self) -> Catalog:
        dupes = {i for i, n in Counter(o.id for o in self.offers).items() if n > 1}
        if dupes:
            raise ValueError(f"duplicate offer ids: {sorted(dupes)}")
        return self

    @model_validator(mode="after")
    def _every_price_has_a_rate(self) -> Catalog:
        """Prices in several currencies are ranked and held against budgets in CNY, so each needs a rate."""
        used = {self.currency, *(o.currency for o in self.offers), *(a.currency for a in self.addons)}
        missing = sorted(used - self.fx_to_cny.keys())
        if missing:
            raise ValueError(f"fx_to_cny has no rate for {missing}")
        return self

    def model_post_init(self, context: Any, /) -> None:
        self._index = CatalogIndex.build(self.offers)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Catalog:
        """A copy whose index follows its offers when ``update`` replaces them."""
        copied = super().model_copy(update=update, deep=deep)
        if update and "offers" in update:
            copied._index = CatalogIndex.build(copied.offers)
        return copied

    @property
    def index(self) -> CatalogIndex[Offer]:
        return self._index


class CardClassEfficiency(_Record):
    """A runtime's decode and prefill shares on one card class, fitted on the ``split: fit``
    rows of tests/calibration/measurements.yaml; ``source`` names those rows."""

    decode_bw: float | None = Field(default=None, gt=0, le=1)
    prefill_mfu: float | None = Field(default=None, gt=0, le=1)
    moe_compute: float | None = Field(default=None, gt=0, le=1)
    source: str = Field(min_length=8)


class CardTokenBudget(_Record):
    """A runtime's default per-step token budget on cards CUDA reports under ``below_gib``
    (and on any card whose id contains one of ``also_cards``, as vLLM treats every A100)."""

    below_gib: PositiveFloat
    tokens: PositiveInt
    also_cards: list[str] = Field(default_factory=list)

    def covers(self, gpu: GpuSpec) -> bool:
        return gpu.usable_gib < self.below_gib or any(name in gpu.id for name in self.also_cards)


class GraphBatchTier(_Record):
    """The largest decode batch a runtime captures a CUDA graph for on cards CUDA reports under
    ``below_gib``: ``narrow`` below ``StaticReserve.wide_from_tp`` GPUs per replica, ``wide`` from there."""

    below_gib: PositiveFloat
    narrow: PositiveInt
    wide: PositiveInt


class SeqDefault(_Record):
    """The runtime's default cap on running sequences (vLLM ``--max-num-seqs``) from one release on.

    ``seqs`` on every card; ``large_seqs`` on the cards the release treats as large: those
    whose id names one of ``large_names``, or (``large_from_gib``) whose memory as CUDA
    reports it reaches that many GiB, less any whose id names one of ``large_except``.
    """

    seqs: PositiveInt
    large_seqs: PositiveInt | None = None
    large_names: list[str] = Field(default_factory=list)
    large_from_gib: PositiveFloat | None = None
    large_except: list[str] = Field(default_factory=list)
    source: str = Field(min_length=8)

    def on(self, gpu: GpuSpec) -> int:
        """The cap on ``gpu``."""
        if self.large_seqs is None or any(name in gpu.id for name in self.large_except):
            return self.seqs
        named = any(name in gpu.id for name in self.large_names)
        roomy = self.large_from_gib is not None and gpu.usable_gib >= self.large_from_gib
        return self.large_seqs if named or roomy else self.seqs


class RuntimeRelease(_Record):
    """A documented change in one release of a runtime (knowledge/runtimes.yaml ``releases``):
    what the release notes or the maintainers' post say changed, with its source, and the
    default sequence cap from that release on where the change set one (``max_num_seqs``)."""

    version: str = Field(min_length=1)
    date: str = Field(pattern=r"^\d{4}-\d{2}$")  # year-month of the release
    change: str = Field(min_length=8)
    source: str = Field(min_length=8)
    max_num_seqs: SeqDefault | None = None


class StaticReserve(_Record):
    """What a runtime keeps outside its static pool (weights and KV cache) when the launch names
    no share: SGLang's ``mem_fraction_static`` default (knowledge/runtimes.yaml cites the rule).

    The reserve holds the metadata (``base_mib``), the activations of a prefill chunk
    (``per_chunk_token_mib`` for each token of the chunked-prefill budget, at least
    ``min_chunk_tokens``), the CUDA graphs (``per_graph_seq_mib`` for each sequence of the
    largest captured batch), ``per_rank_mib`` per GPU of the tensor-parallel group, and under
    attention data parallelism the padding of every rank's graphs (``dp_graph_seq_mib`` per
    graph sequence per rank, ``dp_big_graph_seq_mib`` more when the graphs pass
    ``big_graph``); on cards over ``floor_above_gib`` it is at least ``floor_mib``.
    """

    base_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    per_chunk_token_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    min_chunk_tokens: PositiveInt
    per_graph_seq_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    per_rank_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    dp_graph_seq_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    dp_big_graph_seq_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    big_graph: PositiveInt
    floor_mib: Annotated[NonNegativeFloat, in_units("MiB")]
    floor_above_gib: Annotated[PositiveFloat, in_units("GiB")]
    graph_tiers: list[GraphBatchTier]
    graph_batch: PositiveInt  # on cards above every tier
    wide_from_tp: PositiveInt

    def graph_max(self, total_gib: float, tp: int) -> int:
        """The largest batch captured as a CUDA graph on a card of ``total_gib`` at ``tp`` GPUs."""
        tier = next((t for t in self.graph_tiers if total_gib < t.below_gib), None)
        if tier is None:
            return self.graph_batch
        return tier.wide if tp >= self.wide_from_tp else tier.narrow

    def reserve_gib(self, total_gib: float, chunk_tokens: int, tp: int, attention_dp: bool) -> float:
        """GiB kept outside the static pool on each GPU of a ``tp``-GPU replica."""
        graph = self.graph_max(total_gib, tp)
        mib = self.base_mib + max(chunk_tokens, self.min_chunk_tokens) * self.per_chunk_token_mib
        mib += graph * self.per_graph_seq_mib + tp * self.per_rank_mib
        if attention_dp and tp > 1:
            per_seq = self.dp_graph_seq_mib + (self.dp_big_graph_seq_mib if graph > self.big_graph else 0.0)
            mib += graph * tp * per_seq
        if total_gib > self.floor_above_gib:
            mib = max(mib, self.floor_mib)
        return mib / 1024.0


class RuntimeProfile(_Record):
    """How well a serving runtime turns a card's peak into tokens.

    ``decode_bw_efficiency`` is achieved/peak memory bandwidth during batch-1 decode for
    16-bit weights; ``format_bw_efficiency`` scales it for formats whose kernels stream
    less efficiently (dequantising int4 costs bandwidth utilisation); some runtimes
    saturate at an absolute bandwidth (``max_decode_bw_gbs``) or a per-layer launch
    floor (``min_step_ms_per_layer``) on fast cards. ``prefill_mfu`` is the share of
    dense tensor peak reached during prompt processing, scaled by
    ``format_compute_efficiency`` where low-precision kernels reach a smaller share of
    their (doubled) peak, as FP8 does. All are calibrated on public
    measurements in tests/calibration/measurements.yaml.

    A runtime's kernels are tuned per card class, so ``card_classes`` overrides the
    decode and prefill shares for ``<architecture>-<segment>`` (``ampere-datacenter``)
    or a whole ``<architecture>``; a card matching neither falls back to the
    runtime-wide figures (llama.cpp reaches ~0.8 of an RTX 4090's FP16 rate in pp512 but
    ~0.35 of an A100's). ``parallelism`` is how it spreads a model over several GPUs:
    ``tensor`` (each layer split, speed grows with GPUs) or ``layer`` (llama.cpp's
    default ``--split-mode layer``: whole layers per GPU, memory divided, one token still
    crosses every GPU in turn, so speed stays about one GPU's).
    """

    def card_class(self, gpu: GpuSpec) -> CardClassEfficiency | None:
        """This runtime's efficiencies for ``gpu``'s class, most specific key first."""
        classes = self.card_classes
        return classes.get(f"{gpu.architecture}-{gpu.segment}") or classes.get(gpu.architecture)

    def decode_share(self, gpu: GpuSpec) -> float:
        """Achieved/peak bandwidth in batch-1 16-bit decode on ``gpu``."""
        entry = self.card_class(gpu)
        return entry.decode_bw if entry and entry.decode_bw else self.decode_bw_efficiency

    def prefill_share(self, gpu: GpuSpec) -> float:
        """Share of ``gpu``'s dense tensor peak reached in prompt processing."""
        entry = self.card_class(gpu)
        return entry.prefill_mfu if entry and entry.prefill_mfu else self.prefill_mfu

    def prefill_floor_s(self, arch: ModelArch) -> float:
        """Seconds a prompt's first forward pass costs beyond its FLOPs.

        The request's own overhead (``prefill_overhead_ms``: scheduling, tokenising,
        detokenising the first token), one step's overhead, and per layer the kernel
        launches and collectives of a pass that runs outside CUDA graphs
        (``prefill_layer_us``; runtimes capture graphs for decode batches only), more on
        a MoE layer (``prefill_moe_layer_us``: routing, permutation, the expert dispatch).
        """
        launches = arch.layers * self.prefill_layer_us + arch.moe_layers * self.prefill_moe_layer_us
        return (self.prefill_overhead_ms + self.step_overhead_ms) / 1e3 + launches / 1e6

    def memory_share(
        self, gpu: GpuSpec, tp: int = 1, attention_dp: bool = False, total_gib: float | None = None
    ) -> float:
        """Share of the card's reported memory (``total_gib``: a MIG slice's) that weights and the
        KV pool may fill on each GPU of a ``tp``-GPU replica.

        A runtime with a ``static_reserve`` (SGLang) sizes the share from the card, the
        tensor-parallel group, its chunked-prefill budget and attention DP; the others claim
        ``memory_utilization`` everywhere (vLLM's ``gpu_memory_utilization``).
        """
        if self.static_reserve is None:
            return self.memory_utilization
        total = gpu.usable_gib if total_gib is None else total_gib
        reserve = self.static_reserve.reserve_gib(total, self.token_budget(gpu), tp, attention_dp)
        return max(0.0, round((total - reserve) / total, 3))  # SGLang keeps three decimals

    def step_limits(self, ranks: int) -> tuple[int, int]:
        """(sequences, tokens) one rank of a replica with ``ranks`` attention-DP ranks schedules per step.

        SGLang divides its ``--max-running-requests`` and ``--chunked-prefill-size`` among the
        ranks (``dp_divides_limits``); TensorRT-LLM gives every rank the whole of each.
        """
        if ranks > 1 and self.dp_divides_limits:
            return max(1, self.max_batch // ranks), max(1, self.max_num_batched_tokens // ranks)
        return self.max_batch, self.max_num_batched_tokens

    def token_budget(self, gpu: GpuSpec) -> int:
        """Tokens one step carries on ``gpu`` by default: the first card tier that covers it,
        else ``max_num_batched_tokens``."""
        tier = next((t for t in self.card_token_budgets if t.covers(gpu)), None)
        return self.max_num_batched_tokens if tier is None else tier.tokens

    def as_run(self, arch: ModelArch) -> ModelArch:
        """The model as this runtime serves it by default.

        A window over every layer (Mistral 7B v0.1) is dropped where the runtime applies
        one only when told (``model_wide_window`` False). Windows on some layers only
        (gpt-oss, Gemma, Llama 4's chunked layers) are part of the model's definition
        (attending past them changes its output), so every runtime applies them.
        """
        if self.model_wide_window or arch.sliding_window is None or arch.sliding_window_layers is not None:
            return arch
        return arch.model_copy(update={"sliding_window": None})

    def moe_share(self, gpu: GpuSpec, width: float | None = None) -> float:
        """Share of the dense GEMM rate MoE expert GEMMs reach on ``gpu``'s class.

        ``width``: the expert's intermediate size. The routing passes (top-k, permute,
        activation quantisation, combine) move k·hidden values per token whatever the
        width while the GEMM FLOPs grow with it, so a wide expert (Mixtral's 14,336)
        comes closer to a dense layer than a narrow one (Qwen3-30B-A3B's 768):
        share × width / (width + ``moe_half_width``). The expert's whole width, not its
        slice on one GPU: the fit rows (vLLM gpt-oss at TP 1–4, DeepSeek-R1 at TP 8)
        do not slow down as tensor parallelism narrows the slice.
        """
        entry = self.card_class(gpu)
        share = entry.moe_compute if entry and entry.moe_compute else self.moe_compute_efficiency
        if width is None or not self.moe_half_width:
            return share
        return share * width / (width + self.moe_half_width)

    def bandwidth_gbs(self, card_gbs: float, fmt: str, share: float | None = None) -> float:
        """Bandwidth this runtime actually streams weights at on a card with ``card_gbs``."""
        base = self.decode_bw_efficiency if share is None else share
        achieved = card_gbs * base * self.format_bw_efficiency.get(fmt, 1.0)
        return min(achieved, self.max_decode_bw_gbs) if self.max_decode_bw_gbs else achieved

    id: str
    name: str
    decode_bw_efficiency: float = Field(gt=0, le=1)
    format_bw_efficiency: dict[str, float] = Field(default_factory=dict)
    max_decode_bw_gbs: Annotated[PositiveFloat | None, in_units("GB/s")] = None
    min_step_ms_per_layer: Annotated[NonNegativeFloat, in_units("ms")] = 0.0
    decode_compute_efficiency: float = Field(gt=0, le=1)
    prefill_mfu: float = Field(gt=0, le=1)
    format_compute_efficiency: dict[str, float] = Field(default_factory=dict)
    prefill_overhead_ms: Annotated[NonNegativeFloat, in_units("ms")] = 0.0
    step_overhead_ms: Annotated[NonNegativeFloat, in_units("ms")]
    overhead_gib: Annotated[NonNegativeFloat, in_units("GiB")]
    memory_utilization: float = Field(gt=0, le=1)
    continuous_batching: bool
    max_batch: PositiveInt
    formats: list[str]
    min_compute_capability: dict[str, float] = Field(default_factory=dict)
    parallelism: Literal["tensor", "layer"] = "tensor"
    card_classes: dict[str, CardClassEfficiency] = Field(default_factory=dict)
    # Serving under load (issue 29; fitted in knowledge/serving_fit.yaml's rows, see
    # engine.throughput): the per-step token budget that chunked prefill shares with
    # decode, a per-sequence scheduling/sampling cost per step, the share of the decode
    # bandwidth attention reaches reading the paged KV cache, the KV pool as a share of
    # the memory left after weights and activations (TensorRT-LLM's
    # kv_cache_free_gpu_mem_fraction; None: the pool is memory_utilization of the card,
    # as vLLM's gpu_memory_utilization), and how MoE expert GEMMs fall short of dense
    # ones (engine.throughput: read share, compute share, tile floor).
    max_num_batched_tokens: PositiveInt = 8192
    seq_layer_us: NonNegativeFloat = 0.0  # microseconds per running sequence per layer per step
    kv_read_efficiency: float = Field(default=1.0, gt=0, le=1)
    kv_pool_of_free: float | None = Field(default=None, gt=0, le=1)
    # What a request's admission reserves of the KV pool: "paged" holds what it has so far
    # (vLLM, SGLang: prompt + the answer generated, preempting when the pool runs out);
    # "whole_request" reserves prompt + every answer token up front (TensorRT-LLM's default
    # capacity scheduler policy GUARANTEED_NO_EVICT), so fewer requests run at once.
    admission: Literal["paged", "whole_request"] = "paged"
    # Decode steps run per scheduling pass: vLLM 0.6's --num-scheduler-steps (multi-step
    # scheduling, vllm-project/vllm#6854); a prompt that arrives mid-pass is admitted only
    # when the pass ends, so it waits out the rest of up to that many steps. Current
    # runtimes schedule every step; a published run that used the flag states it.
    scheduler_steps: PositiveInt = 1
    # Whether a window the model sets over all its layers is applied without being told.
    # TensorRT-LLM keeps and attends over every token unless max_attention_window is set
    # (KvCacheConfig.max_attention_window defaults to the sequence length; its Mistral 7B
    # example passes --max_attention_window_size 4096 at run time).
    model_wide_window: bool = True
    # Default token budgets that follow the card's memory, smallest tier first; a card above
    # every tier gets ``max_num_batched_tokens`` (vLLM's get_batch_defaults, SGLang's
    # chunked_prefill_size by GPU memory; sources in knowledge/runtimes.yaml).
    card_token_budgets: list[CardTokenBudget] = Field(default_factory=list)
    # What stays outside the static pool when no share is set (SGLang's mem_fraction_static
    # default follows the card, the TP group and attention DP); None: memory_utilization.
    static_reserve: StaticReserve | None = None
    # Whether attention data parallelism divides the scheduler limits among the ranks (SGLang's
    # server_args: chunked_prefill_size // dp_size; max_running_requests // dp_size per rank).
    dp_divides_limits: bool = False
    # Share of the dense GEMM rate a MoE layer's grouped expert GEMMs reach, routing
    # (permute, top-k, scatter) included (engine.throughput.effective_flops_per_token).
    moe_compute_efficiency: float = Field(default=1.0, gt=0, le=1)
    moe_pad_tokens: NonNegativeFloat = 0.0
    moe_half_width: NonNegativeFloat = 0.0  # expert width at which the share halves (0: flat)
    prefill_layer_us: NonNegativeFloat = 0.0  # per layer of a prompt's pass (no CUDA graphs)
    prefill_moe_layer_us: NonNegativeFloat = 0.0  # more per MoE layer of that pass
    moe_expert_us: NonNegativeFloat = 0.0  # a loaded step's start per touched expert per MoE layer
    moe_layer_us: NonNegativeFloat = 0.0  # router, top-k and permute launches per MoE layer per step
    # A decode-only step's per-MoE-layer latency beyond its reads (issue 45): the small dependent
    # kernels of the routed path (router GEMM, top-k, token alignment, two grouped GEMMs, activation,
    # combine) each cost a launch-and-drain at batch 1 that the bandwidth roofline does not see.
    moe_decode_layer_us: NonNegativeFloat = 0.0
    # Issue 45: the releases the serving coefficients were fitted on (said beside a figure) and
    # the documented changes per release (a request naming an older or newer release is told
    # which of them lie between).
    figures_release: str | None = None
    figures_release_date: str | None = Field(None, pattern=r"^\d{4}-\d{2}$")
    releases: list[RuntimeRelease] = Field(default_factory=list)
    # How sure a figure under load is (issue 29): cards with fitted serving rows for this
    # runtime, the band their held-out rows fall in, and the wider band elsewhere.
    calibrated_cards: list[str] = Field(default_factory=list)
    calibrated_uncertainty_pct: float = Field(default=25.0, gt=0)
    uncalibrated_uncertainty_pct: float = Field(default=50.0, gt=0)
    moe_uncertainty_pct: float = Field(default=50.0, gt=0)
    serving_source: str | None = None
    source: str = Field(min_length=8)


class NodeBaseline(_Record):
    """What an ``gpus``-GPU training node needs around its GPUs (``knowledge/node_baseline.yaml``)."""

    gpus: PositiveInt
    cpu_cores: PositiveInt
    ram_gb: Annotated[PositiveInt, in_units("GB")]
    nvme_count: PositiveInt
    nvme_drive_tb: Annotated[PositiveFloat, in_units("TB")]
    source: str = Field(min_length=4)

    @property
    def cores_per_gpu(self) -> int:
        return self.cpu_cores // self.gpus

    @property
    def ram_gb_per_gpu(self) -> int:
        return self.ram_gb // self.gpus

    @property
    def nvme(self) -> str:
        """ "4×3.84TB" — the drives as a sheet writes them."""
        return f"{self.nvme_count}×{self.nvme_drive_tb:g}TB"


class Knowledge(_Record):
    """Everything the engine needs, already validated."""

    gpus: dict[str, GpuSpec]
    models: dict[str, ModelArch]
    runtimes: dict[str, RuntimeProfile]
    catalog: Catalog
    node_baseline: NodeBaseline
    checkpoints: Checkpoints = Checkpoints()  # published weights launch commands name
    # each fine-tuning framework's defaults (knowledge/training_recipes.yaml, engine.train_recipes)
    training_recipes: dict[str, TrainingRecipe] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _offers_name_known_gpus(self) -> Knowledge:
        unknown = sorted({o.gpu for o in self.catalog.offers} - self.gpus.keys())
        if unknown:
            raise ValueError(f"catalog names unknown GPUs: {unknown}")
        return self
