"""Typed records of the hardware, model and price facts the engine reasons over.

These are the shapes of ``knowledge/*.yaml``. The engine never reads files: callers
hand it validated records (see ``knowledge.load``). Every record carries a ``source``
(a datasheet, paper or config URL, or a seed document) because a number without a
source cannot be checked, and checking numbers is the product.

Scalar fields use plain SI-prefixed magnitudes whose unit is in the field name
(``bandwidth_gbs`` is GB/s, decimal); the ``*_q`` properties return pint quantities
for callers that want units at the boundary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    model_validator,
)

from engine.units import Q_

if TYPE_CHECKING:
    from engine.units import Quantity

Precision = Literal["fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4", "int4"]
FormFactor = Literal["pcie", "sxm", "oam", "consumer"]
Segment = Literal["datacenter", "workstation", "consumer"]
Interconnect = Literal["nvlink", "nvswitch", "pcie", "none"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GpuSpec(_Record):
    """One accelerator as its vendor documents it.

    ``dense_tflops`` holds dense tensor-core rates (FP32 is the CUDA-core rate);
    figures quoted "with sparsity" are halved before they go here. INT8 is TOPS.
    ``nvlink_gbs`` is total bidirectional NVLink bandwidth per GPU, 0 where absent.
    """

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    architecture: str
    compute_capability: float
    segment: Segment
    form_factor: FormFactor
    memory_gb: PositiveFloat = Field(description="capacity as the vendor prints it")
    memory_type: str
    usable_gib: PositiveFloat = Field(description="what CUDA reports as total, in GiB")
    bandwidth_gbs: PositiveFloat
    dense_tflops: dict[Precision, NonNegativeFloat]
    tdp_w: PositiveInt
    nvlink_gbs: NonNegativeFloat = 0.0
    pcie_gen: PositiveInt
    pcie_lanes: PositiveInt = 16
    mig_profiles: list[str] = Field(default_factory=list)
    china_variant: bool = False
    source: str = Field(min_length=8)
    field_sources: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> GpuSpec:
        if self.usable_gib > self.memory_gb:
            raise ValueError(f"{self.id}: usable_gib exceeds printed capacity")
        for required in ("fp32", "fp16"):
            if required not in self.dense_tflops:
                raise ValueError(f"{self.id}: dense_tflops needs {required}")
        return self

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


class ModelArch(_Record):
    """Decoder-only transformer shape, as in the model's published config.json."""

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    family: str
    params_b: PositiveFloat
    active_params_b: PositiveFloat | None = None
    layers: PositiveInt
    hidden_size: PositiveInt
    num_heads: PositiveInt
    num_kv_heads: PositiveInt
    head_dim: PositiveInt
    intermediate_size: PositiveInt
    vocab_size: PositiveInt
    tied_embeddings: bool = False
    gated_mlp: bool = True
    num_experts: PositiveInt = 1
    experts_per_token: PositiveInt = 1
    max_context: PositiveInt = 4096
    source: str = Field(min_length=8)

    @model_validator(mode="after")
    def _check(self) -> ModelArch:
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"{self.id}: num_heads must be a multiple of num_kv_heads")
        if self.experts_per_token > self.num_experts:
            raise ValueError(f"{self.id}: experts_per_token exceeds num_experts")
        return self

    @property
    def active_b(self) -> float:
        return self.active_params_b or self.params_b

    @property
    def embedding_params(self) -> float:
        """Input embedding plus LM head (counted twice unless tied)."""
        return self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)


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
    min_rental_hours: PositiveFloat = 720.0
    mig_profile: str | None = None
    slice_memory_gib: PositiveFloat | None = None
    cpu_cores: PositiveInt | None = None
    ram_gb: PositiveInt | None = None
    nvme_tb: NonNegativeFloat | None = None
    network_gbps: NonNegativeFloat | None = None
    order_url: str | None = None
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
    ram_gb: int = 0
    currency: str = "CNY"
    source: str = Field(min_length=4)


class Catalog(_Record):
    """An operator's price list. ``fx_to_cny`` converts budgets given in other currencies."""

    operator: str
    currency: str = "CNY"
    offers: list[Offer]
    addons: list[Addon] = Field(default_factory=list)
    fx_to_cny: dict[str, PositiveFloat] = Field(default_factory=lambda: {"CNY": 1.0})
    fx_source: str = ""

    @model_validator(mode="after")
    def _unique(self) -> Catalog:
        ids = [o.id for o in self.offers]
        dupes = {i for i in ids if ids.count(i) > 1}
        if dupes:
            raise ValueError(f"duplicate offer ids: {sorted(dupes)}")
        return self


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
    """

    def bandwidth_gbs(self, card_gbs: float, fmt: str) -> float:
        """Bandwidth this runtime actually streams weights at on a card with ``card_gbs``."""
        achieved = card_gbs * self.decode_bw_efficiency * self.format_bw_efficiency.get(fmt, 1.0)
        return min(achieved, self.max_decode_bw_gbs) if self.max_decode_bw_gbs else achieved

    id: str
    name: str
    decode_bw_efficiency: float = Field(gt=0, le=1)
    format_bw_efficiency: dict[str, float] = Field(default_factory=dict)
    max_decode_bw_gbs: PositiveFloat | None = None
    min_step_ms_per_layer: NonNegativeFloat = 0.0
    decode_compute_efficiency: float = Field(gt=0, le=1)
    prefill_mfu: float = Field(gt=0, le=1)
    format_compute_efficiency: dict[str, float] = Field(default_factory=dict)
    prefill_overhead_ms: NonNegativeFloat = 0.0
    step_overhead_ms: NonNegativeFloat
    overhead_gib: NonNegativeFloat
    memory_utilization: float = Field(gt=0, le=1)
    continuous_batching: bool
    max_batch: PositiveInt
    formats: list[str]
    min_compute_capability: dict[str, float] = Field(default_factory=dict)
    source: str = Field(min_length=8)


class Knowledge(_Record):
    """Everything the engine needs, already validated."""

    gpus: dict[str, GpuSpec]
    models: dict[str, ModelArch]
    runtimes: dict[str, RuntimeProfile]
    catalog: Catalog

    @model_validator(mode="after")
    def _offers_name_known_gpus(self) -> Knowledge:
        unknown = sorted({o.gpu for o in self.catalog.offers} - self.gpus.keys())
        if unknown:
            raise ValueError(f"catalog names unknown GPUs: {unknown}")
        return self
