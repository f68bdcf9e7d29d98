"""A model's shape as its published ``config.json`` gives it: dense, MoE, MLA, sliding window.

Part of the knowledge records (``engine.specs`` re-exports it); ``engine.architecture``
resolves a user's model to one, and ``engine.model_config`` builds one from a pasted config.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, model_validator

from gpu_advisor.engine.record import Record

Attention = Literal["mha", "gqa", "mqa", "mla"]
NativeDtype = Literal["fp32", "bf16", "fp16", "fp8", "mxfp4"]


class ModelArch(Record):
    """Decoder-only transformer shape, as in the model's published config.json.

    ``attention`` defaults from the head counts (``mha`` when every query head has its
    own KV head, ``mqa`` with one, else ``gqa``); ``mla`` (DeepSeek's multi-head latent
    attention) caches ``kv_lora_rank + qk_rope_head_dim`` elements per token per layer
    and must declare both. For MLA, ``head_dim`` is the query/key head dim
    (``qk_nope_head_dim + qk_rope_head_dim``).

    Mixture of experts: ``num_experts`` routed experts, ``experts_per_token`` chosen per
    token, ``shared_experts`` always run; each expert is a gated MLP of
    ``moe_intermediate_size`` (``intermediate_size`` when absent, as in Mixtral). The
    first ``dense_layers`` layers (or, for interleaved models, that many layers) use a
    dense MLP of ``intermediate_size``. ``active_params_b`` is the model card's figure.

    ``sliding_window_layers`` of the ``layers`` attend over at most ``sliding_window``
    tokens (all layers when only ``sliding_window`` is given); ``linear_attention_layers``
    keep a fixed-size state instead of a KV cache. ``native_dtype`` is the precision the
    weights ship in, applied to all linear weights or only to the expert weights
    (``native_dtype_scope``). ``materialises_attention``: the model's own modelling code
    (``trust_remote_code``) computes the whole score matrix whatever attention kernel the
    trainer asks for, so fine-tuning it holds seq² scores per head (``engine.train_terms``).
    """

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
    attention: Attention = Field("mha", description="derived from the head counts when omitted")
    q_lora_rank: PositiveInt | None = None
    kv_lora_rank: PositiveInt | None = None
    qk_nope_head_dim: PositiveInt | None = None
    qk_rope_head_dim: PositiveInt | None = None
    v_head_dim: PositiveInt | None = None
    num_experts: PositiveInt = 1
    experts_per_token: PositiveInt = 1
    shared_experts: NonNegativeInt = 0
    moe_intermediate_size: PositiveInt | None = None
    dense_layers: NonNegativeInt = 0
    sliding_window: PositiveInt | None = None
    sliding_window_layers: NonNegativeInt | None = None
    linear_attention_layers: NonNegativeInt = 0
    native_dtype: NativeDtype = "bf16"
    native_dtype_scope: Literal["linear", "experts"] = "linear"
    max_context: PositiveInt = 4096
    materialises_attention: bool = False
    release: int | None = Field(None, ge=2017, le=2030)
    source: str = Field(min_length=8)

    @model_validator(mode="before")
    @classmethod
    def _default_attention(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("attention") is None:
            heads, kv = data.get("num_heads"), data.get("num_kv_heads")
            kind = "mha" if kv == heads else "mqa" if kv == 1 else "gqa"
            data = {**data, "attention": kind}
        return data

    @model_validator(mode="after")
    def _check(self) -> ModelArch:
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"{self.id}: num_heads must be a multiple of num_kv_heads")
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError(f"{self.id}: active_params_b exceeds params_b")
        self._check_attention()
        self._check_experts()
        self._check_layer_kinds()
        return self

    def _check_attention(self) -> None:
        mla = (self.kv_lora_rank, self.qk_rope_head_dim)
        if self.attention == "mla" and None in mla:
            raise ValueError(f"{self.id}: MLA needs kv_lora_rank and qk_rope_head_dim")
        if self.attention != "mla" and any(v is not None for v in mla):
            raise ValueError(f"{self.id}: kv_lora_rank/qk_rope_head_dim belong to MLA models")
        expected = {"mha": self.num_heads, "mqa": 1}.get(self.attention)
        if expected is not None and self.num_kv_heads != expected:
            raise ValueError(f"{self.id}: {self.attention} does not match num_kv_heads")
        if self.attention == "gqa" and self.num_kv_heads in (1, self.num_heads):
            raise ValueError(f"{self.id}: gqa needs 1 < num_kv_heads < num_heads")

    def _check_experts(self) -> None:
        if self.experts_per_token > self.num_experts:
            raise ValueError(f"{self.id}: experts_per_token exceeds num_experts")
        if not self.is_moe:
            extra = self.shared_experts or self.moe_intermediate_size or self.dense_layers
            if extra or self.native_dtype_scope == "experts":
                raise ValueError(f"{self.id}: expert fields on a dense model")
            return
        if self.active_params_b is None:
            raise ValueError(f"{self.id}: a mixture-of-experts model states active_params_b")
        if self.dense_layers >= self.layers:
            raise ValueError(f"{self.id}: dense_layers must leave some MoE layers")

    def _check_layer_kinds(self) -> None:
        if self.sliding_window_layers is not None:
            if self.sliding_window is None:
                raise ValueError(f"{self.id}: sliding_window_layers without sliding_window")
            if self.sliding_window_layers > self.layers:
                raise ValueError(f"{self.id}: sliding_window_layers exceeds layers")
        if self.linear_attention_layers >= self.layers:
            raise ValueError(f"{self.id}: linear_attention_layers must leave attention layers")

    @property
    def active_b(self) -> float:
        return self.active_params_b or self.params_b

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 1

    @property
    def moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts (0 for a dense model)."""
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def expert_intermediate_size(self) -> int:
        """Intermediate size of one routed (or shared) expert's gated MLP."""
        return self.moe_intermediate_size or self.intermediate_size

    @property
    def windowed_layers(self) -> int:
        """Layers that attend over at most ``sliding_window`` tokens."""
        if self.sliding_window is None:
            return 0
        return self.layers if self.sliding_window_layers is None else self.sliding_window_layers

    @property
    def embedding_params(self) -> float:
        """Input embedding plus LM head (counted twice unless tied)."""
        return self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)
