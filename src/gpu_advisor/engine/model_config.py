"""A Hugging Face ``config.json`` as a ModelArch: the model defined exactly, not guessed.

Someone sizing a model that is not in the library can paste its config.json (chat),
pass it as a file (CLI ``--model-config``) or send it as ``model_config`` (JSON
contract). The field names are transformers' own, per model family:

- shape: ``num_hidden_layers``, ``hidden_size``, ``num_attention_heads``,
  ``num_key_value_heads`` (absent: as many as query heads), ``head_dim`` (absent:
  hidden / heads), ``intermediate_size``, ``vocab_size``, ``tie_word_embeddings``,
  ``max_position_embeddings``; multimodal configs nest these under ``text_config``.
- mixture of experts: ``num_local_experts`` (Mixtral, gpt-oss, Llama 4),
  ``num_experts`` (Qwen-MoE), ``n_routed_experts`` (DeepSeek); ``num_experts_per_tok``
  or ``experts_per_token``; ``n_shared_experts``; ``moe_intermediate_size``;
  ``first_k_dense_replace`` (DeepSeek's leading dense layers).
- multi-head latent attention (DeepSeek-V2/V3): ``kv_lora_rank``, ``q_lora_rank``,
  ``qk_rope_head_dim``, ``qk_nope_head_dim``, ``v_head_dim``.
- windows and hybrid layers: ``layer_types`` ("sliding_attention", "full_attention",
  "linear_attention"), else ``sliding_window`` with Gemma's
  ``sliding_window_pattern`` or Qwen's ``use_sliding_window``.
- native precision: ``quantization_config.quant_method`` "fp8" (DeepSeek-V3) or
  "mxfp4" (gpt-oss, experts only).

The parameter count is computed from the shape (``engine.architecture``), so the
total and active sizes follow from the config with no published figure needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.param_count import counted_params, shape_active_params
from gpu_advisor.engine.specs import ModelArch

_EXPERTS = ("num_local_experts", "num_experts", "n_routed_experts")
_PER_TOKEN = ("num_experts_per_tok", "experts_per_token", "moe_topk")
_NATIVE = {"fp8": "fp8", "mxfp4": "mxfp4"}
MAX_LAYERS = 1024
# The largest a shape number of a model that can exist may be (a config past them is refused,
# naming the field, before any arithmetic overflows): the largest published configs are
# far inside (Llama 3.1 405B: hidden 16,384, intermediate 53,248, vocabulary 128,256;
# Gemma 3: vocabulary 262,144; DeepSeek-V3: 256 routed experts, 8 per token).
_MOST = {
    "hidden_size": 1 << 20,
    "num_attention_heads": 1 << 12,
    "num_key_value_heads": 1 << 12,
    "head_dim": 1 << 12,
    "vocab_size": 1 << 24,
    "max_position_embeddings": 1 << 27,
    "sliding_window": 1 << 27,
}
_MOST_DEFAULT = 1 << 22  # intermediate sizes, expert counts, latent ranks
_LEAST = {"vocab_size": 2}  # one token is not a language


def arch_from_config(config: Mapping[str, Any], name: str | None = None) -> ModelArch:
    """A ModelArch from a config.json dict; EngineError("bad_model_config", field) names what is wrong."""
    cfg = _text_config(config)
    shape = _shape(cfg)
    shape.update(_experts(cfg))
    shape.update(_latent_attention(cfg))
    shape.update(_layer_kinds(cfg, shape["layers"]))
    shape.update(_native_dtype(cfg))
    label = name or str(cfg.get("_name_or_path") or cfg.get("model_type") or "config.json")
    # The probe's sizes are placeholders: counting weights needs the shape, not the total.
    placeholder = {"params_b": 1e5, "active_params_b": 1.0 if "num_experts" in shape else None}
    probe = _build({**shape, "id": "custom-config", "name": label, **placeholder})
    params_b = counted_params(probe) / 1e9
    sized = probe.model_copy(update={"params_b": params_b})
    active = shape_active_params(sized) / 1e9 if sized.is_moe else None
    return _build(
        {**shape, "id": "custom-config", "name": label, "params_b": params_b, "active_params_b": active}
    )


def _text_config(config: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(config, Mapping):
        raise EngineError("bad_model_config", "model_config", reason="not_an_object")
    nested = config.get("text_config")
    merged = dict(config)
    if isinstance(nested, Mapping):
        merged.update(nested)
    return merged


def _int(cfg: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = cfg.get(key, default)
    if value is None:
        raise EngineError("bad_model_config", f"model_config.{key}", reason="missing")
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise EngineError("bad_model_config", f"model_config.{key}", reason="not_a_positive_integer")
    if value > _MOST.get(key, _MOST_DEFAULT):
        raise EngineError(
            "bad_model_config", f"model_config.{key}", reason="too_large", most=_MOST.get(key, _MOST_DEFAULT)
        )
    if value < _LEAST.get(key, 1):
        raise EngineError("bad_model_config", f"model_config.{key}", reason="too_small", least=_LEAST[key])
    return value


def _first(cfg: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((k for k in keys if cfg.get(k) is not None), None)


def _shape(cfg: Mapping[str, Any]) -> dict[str, Any]:
    layers = _int(cfg, "num_hidden_layers")
    if layers > MAX_LAYERS:
        raise EngineError("bad_model_config", "model_config.num_hidden_layers", reason="too_large")
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads")
    kv = _int(cfg, "num_key_value_heads", heads)
    if heads % kv:
        raise EngineError("bad_model_config", "model_config.num_key_value_heads", reason="must_divide_heads")
    if "head_dim" not in cfg and hidden % heads:  # without head_dim, each head is hidden / heads wide
        raise EngineError(
            "bad_model_config", "model_config.num_attention_heads", reason="must_divide_hidden_size"
        )
    head_dim = _int(cfg, "head_dim", max(1, hidden // heads))
    if "qk_nope_head_dim" in cfg and "qk_rope_head_dim" in cfg:
        head_dim = _int(cfg, "qk_nope_head_dim") + _int(cfg, "qk_rope_head_dim")
    dense_mlp = "intermediate_size_mlp" if cfg.get("intermediate_size_mlp") else "intermediate_size"
    return {
        "family": str(cfg.get("model_type") or "custom"),
        "layers": layers,
        "hidden_size": hidden,
        "num_heads": heads,
        "num_kv_heads": kv,
        "head_dim": head_dim,
        "intermediate_size": _int(cfg, dense_mlp),
        "vocab_size": _int(cfg, "vocab_size"),
        "tied_embeddings": bool(cfg.get("tie_word_embeddings", False)),
        "max_context": _int(cfg, "max_position_embeddings", 4096),
        "source": "config.json given by the user",
    }


def _experts(cfg: Mapping[str, Any]) -> dict[str, Any]:
    key = _first(cfg, _EXPERTS)
    if key is None or _int(cfg, key) <= 1:
        return {}
    per_token = _first(cfg, _PER_TOKEN)
    if per_token is None:
        raise EngineError("bad_model_config", "model_config.num_experts_per_tok", reason="missing")
    out: dict[str, Any] = {"num_experts": _int(cfg, key), "experts_per_token": _int(cfg, per_token)}
    if out["experts_per_token"] > out["num_experts"]:
        raise EngineError("bad_model_config", f"model_config.{per_token}", reason="more_than_experts")
    if cfg.get("n_shared_experts"):
        out["shared_experts"] = _int(cfg, "n_shared_experts")
    if cfg.get("moe_intermediate_size"):
        out["moe_intermediate_size"] = _int(cfg, "moe_intermediate_size")
    elif cfg.get("intermediate_size_mlp"):  # Llama 4: intermediate_size is the expert's
        out["moe_intermediate_size"] = _int(cfg, "intermediate_size")
        out["shared_experts"] = 1
    if cfg.get("first_k_dense_replace"):
        out["dense_layers"] = _int(cfg, "first_k_dense_replace")
        if out["dense_layers"] > _int(cfg, "num_hidden_layers"):
            raise EngineError(
                "bad_model_config", "model_config.first_k_dense_replace", reason="more_than_layers"
            )
    return out


def _latent_attention(cfg: Mapping[str, Any]) -> dict[str, Any]:
    if cfg.get("kv_lora_rank") is None:
        return {}
    out: dict[str, Any] = {
        "attention": "mla",
        "kv_lora_rank": _int(cfg, "kv_lora_rank"),
        "qk_rope_head_dim": _int(cfg, "qk_rope_head_dim"),
        "qk_nope_head_dim": _int(cfg, "qk_nope_head_dim"),
        "v_head_dim": _int(cfg, "v_head_dim"),
    }
    if cfg.get("q_lora_rank"):
        out["q_lora_rank"] = _int(cfg, "q_lora_rank")
    return out


def _layer_kinds(cfg: Mapping[str, Any], layers: int) -> dict[str, Any]:
    """Windowed and linear-attention layer counts from ``layer_types`` or the older flags."""
    kinds = cfg.get("layer_types")
    window = cfg.get("sliding_window")
    if isinstance(kinds, list):
        if len(kinds) != layers:
            raise EngineError("bad_model_config", "model_config.layer_types", reason="length_differs")
        linear = sum(1 for k in kinds if k == "linear_attention")
        sliding = sum(1 for k in kinds if k == "sliding_attention")
        out: dict[str, Any] = {"linear_attention_layers": linear} if linear else {}
        if sliding:
            out |= {"sliding_window": _int(cfg, "sliding_window"), "sliding_window_layers": sliding}
        return out
    if not window or cfg.get("use_sliding_window") is False:
        return {}
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 1:  # Gemma 3: every pattern-th layer is global
        return {
            "sliding_window": _int(cfg, "sliding_window"),
            "sliding_window_layers": layers - layers // pattern,
        }
    return {"sliding_window": _int(cfg, "sliding_window")}


def _native_dtype(cfg: Mapping[str, Any]) -> dict[str, Any]:
    quant = cfg.get("quantization_config")
    method = quant.get("quant_method") if isinstance(quant, Mapping) else None
    if method not in _NATIVE:
        return {}
    native = _NATIVE[str(method)]
    return {"native_dtype": native, "native_dtype_scope": "experts" if native == "mxfp4" else "linear"}


def _build(fields: dict[str, Any]) -> ModelArch:
    try:
        return ModelArch(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        field = f"model_config.{where}" if where else "model_config"
        raise EngineError("bad_model_config", field, reason=err["msg"]) from exc
