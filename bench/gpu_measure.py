"""Measure on a real GPU what the engine predicts, and print both side by side (issue 19).

The engine's training-memory and decode-speed formulas are calibrated on published
figures; this script adds the project's own, taken on whatever card it runs on, for
Llama-shaped models built from a config with random weights (nothing downloaded):

(a) peak memory of one full fine-tuning step with AdamW, with and without gradient
    checkpointing (``torch.cuda.max_memory_allocated`` and ``..._reserved``);
(b) the same for LoRA through peft (r=16 on every linear layer of the decoder);
(c) transformers ``generate()`` decode tokens/s per sequence at batch 1, 4, 16, 64.

Each figure becomes one record shaped like the rows of tests/calibration/*.yaml
(``split: holdout``, ``source: own measurement, bench/gpu_measure.py``) with the card,
driver/CUDA/torch/transformers/peft versions, the shape and the settings, and is
printed beside the engine's prediction for the same workload with the ratio.

torch, transformers and peft are not project dependencies. Install them beside the
project in a separate virtualenv (never the project's own .venv):

    python3 -m venv /tmp/gpuvenv
    /tmp/gpuvenv/bin/pip install -e . torch transformers peft   # then, from the repository root:
    /tmp/gpuvenv/bin/python -m bench.gpu_measure                 # every preset
    /tmp/gpuvenv/bin/python -m bench.gpu_measure --device cpu --tiny   # smoke run

On the CPU memory figures are skipped (torch's allocator is invisible to tracemalloc)
and the records go to a temporary folder: CPU speeds are not calibration data.

Why mixed precision for full fine-tuning: the engine's full-FT formula counts
16 bytes per parameter (bf16 weights and gradients, fp32 master copy, two fp32 Adam
moments — Rajbhandari et al. 2020, ZeRO §3.1), which is what a run with fp32
parameters under bf16 autocast holds (Trainer's ``bf16=True``). ``--full-precision
bf16`` measures the pure-bf16 variant instead, which the engine does not model.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.gpu_records import (
    GIB,
    PRESETS,
    Measured,
    card_spec,
    default_out,
    hf_config,
    predicted_decode,
    predicted_training_gib,
    print_table,
    record,
    write_records,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--tiny", action="store_true", help="only the tiny shape: a smoke run")
    ap.add_argument("--presets", default="0.5b,1b,3b", help="comma-separated: " + ",".join(PRESETS))
    ap.add_argument("--batch", type=int, default=4, help="training micro-batch")
    ap.add_argument("--seq", type=int, default=1024, help="training sequence length")
    ap.add_argument("--full-precision", choices=("mixed", "bf16"), default="mixed")
    ap.add_argument("--decode-batches", default="1,4,16,64")
    ap.add_argument("--prompt-tokens", type=int, default=128)
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=3, help="timed generate() runs; the median is kept")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: full,lora,decode")
    ap.add_argument(
        "--card", default=None, help="knowledge id to predict for when torch's card name does not resolve"
    )
    ap.add_argument("--out", type=Path, default=None, help="YAML file for the records")
    return ap.parse_args(argv)


def environment(torch: Any, device: str) -> dict[str, Any]:
    """Card name and library versions, recorded with every figure so a row can be traced."""
    import transformers  # type: ignore[import-not-found, unused-ignore]

    try:
        import peft  # type: ignore[import-not-found, unused-ignore]

        peft_version: str | None = str(peft.__version__)
    except ImportError:
        peft_version = None
    cuda = device.startswith("cuda")
    return {
        "gpu_name": torch.cuda.get_device_name(0) if cuda else "cpu",
        "driver": _driver_version() if cuda else None,
        "cuda": str(torch.version.cuda) if cuda else None,
        "torch": str(torch.__version__),
        "transformers": str(transformers.__version__),
        "peft": peft_version,
    }


def _driver_version() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None


def build_model(torch: Any, config: dict[str, Any], dtype: Any, device: str) -> Any:
    """A LlamaForCausalLM with random weights from the config: no download, fixed seed."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(**{k: v for k, v in config.items() if not k.startswith("_")})
    cfg.pad_token_id = 0
    with torch.device(device):
        model = LlamaForCausalLM(cfg).to(dtype)
    model.config.use_cache = False
    return model


def reset_peak(torch: Any, device: str) -> None:
    gc.collect()  # the previous model's reference cycles, so its memory is not in this peak
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def peak_gib(torch: Any, device: str) -> tuple[float, float] | None:
    """(allocated, reserved) peak GiB since the last reset; None on the CPU."""
    if not device.startswith("cuda"):
        return None
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() / GIB, torch.cuda.max_memory_reserved() / GIB


def train_step_peak(
    torch: Any, model: Any, args: argparse.Namespace, device: str
) -> tuple[float, float] | None:
    """One forward, backward and AdamW step on random tokens; the peak memory it reached.

    Two steps are run so AdamW's moments exist (they are created lazily on the first).
    """
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-5)
    ids = torch.randint(1, model.config.vocab_size, (args.batch, args.seq), device=device)
    autocast = torch.autocast(device_type=device.split(":", maxsplit=1)[0], dtype=torch.bfloat16)
    reset_peak(torch, device)
    for _ in range(2):
        with autocast:
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    peak = peak_gib(torch, device)
    del opt
    return peak


def enable_checkpointing(model: Any) -> None:
    """Recompute each decoder layer in backward (renamed activation_checkpointing in transformers 5.x)."""
    kwargs = {"use_reentrant": False}
    if hasattr(model, "activation_checkpointing_enable"):
        model.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)


def lora_wrap(model: Any) -> Any:
    """peft LoRA, r=16, on every linear layer of the decoder (not the LM head)."""
    from peft import LoraConfig, get_peft_model

    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    return get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, target_modules=targets))


def measure_training(
    torch: Any, preset: str, method: str, args: argparse.Namespace, env: dict[str, Any]
) -> list[Measured]:
    """Peak memory with and without gradient checkpointing for one method ("full" or "lora")."""
    config, device, out = hf_config(preset), args.device, []
    for checkpointing in (False, True):
        master = torch.float32 if method == "full" and args.full_precision == "mixed" else torch.bfloat16
        model = build_model(torch, config, master, device)
        if checkpointing:
            enable_checkpointing(model)
        if method == "lora":
            model.enable_input_require_grads()
            model = lora_wrap(model)
        peak = train_step_peak(torch, model, args, device)
        del model
        settings = {"method": method, "gradient_checkpointing": checkpointing, "seq_len": args.seq}
        settings["precision"] = args.full_precision if method == "full" else "bf16 base, fp32 adapters"
        predicted = predicted_training_gib(config, method, checkpointing, args)
        label = f"{preset} {method} ckpt={'on' if checkpointing else 'off'} b={args.batch} s={args.seq}"
        if peak is None:
            print(f"{label}: step ran; memory skipped on {device} (torch's allocator is not traced there)")
            continue
        rec = record("peak_memory_gib", preset, config, env, settings, args.batch, round(peak[0], 3), "GiB")
        rec["notes"] = f"torch.cuda.max_memory_allocated; max_memory_reserved {peak[1]:.3f} GiB."
        out.append(Measured(rec, predicted, label))
    return out


def step_times(torch: Any, model: Any, ids: Any, new_tokens: int) -> list[float]:
    """Instants at which each generated token's logits were ready, in one greedy generate().

    A logits processor runs once per step, after that step's forward; the span from
    the first call (prefill done) to the last covers exactly the N−1 decode steps, so
    no second run has to be subtracted. On CUDA the clock synchronizes first;
    generate() already synchronizes every step to check for finished sequences.
    """
    from transformers import LogitsProcessor, LogitsProcessorList  # type: ignore[import-not-found, unused-ignore]

    sync = torch.cuda.synchronize if ids.is_cuda else (lambda: None)
    stamps: list[float] = []

    class Clock(LogitsProcessor):  # type: ignore[misc, unused-ignore]
        def __call__(self, input_ids: Any, scores: Any) -> Any:
            sync()
            stamps.append(time.perf_counter())
            return scores

    model.generate(
        input_ids=ids,
        attention_mask=torch.ones_like(ids),
        do_sample=False,
        max_new_tokens=new_tokens,
        min_new_tokens=new_tokens,
        pad_token_id=0,
        logits_processor=LogitsProcessorList([Clock()]),
    )
    return stamps


def decode_rate(torch: Any, model: Any, batch: int, args: argparse.Namespace) -> float:
    """Decode tokens/s per sequence: decode steps over the seconds from first to last token.

    A warm-up generate runs first so kernel selection and cache allocation stay out of
    it; then ``--repeats`` timed runs, and the median is kept.
    """
    ids = torch.randint(1, model.config.vocab_size, (batch, args.prompt_tokens), device=args.device)
    step_times(torch, model, ids, args.new_tokens)
    rates = []
    for _ in range(args.repeats):
        stamps = step_times(torch, model, ids, args.new_tokens)
        rates.append((len(stamps) - 1) / (stamps[-1] - stamps[0]))
    return float(statistics.median(rates))


def measure_decode(
    torch: Any, preset: str, args: argparse.Namespace, env: dict[str, Any], gpu: Any
) -> list[Measured]:
    config = hf_config(preset)
    model = build_model(torch, config, torch.bfloat16, args.device).eval()
    model.config.use_cache = True
    out = []
    with torch.inference_mode():
        for batch in (int(b) for b in args.decode_batches.split(",")):
            rate = decode_rate(torch, model, batch, args)
            settings = {"method": "generate, greedy", "attention": str(model.config._attn_implementation)}
            rec = record(
                "decode_tokens_per_s", preset, config, env, settings, batch, round(rate, 2), "tokens/s"
            )
            rec["notes"] = (
                f"Per sequence; aggregate {rate * batch:.1f} tokens/s. "
                "First to last token of one generate(), median of runs."
            )
            out.append(
                Measured(rec, predicted_decode(config, gpu, batch, args), f"{preset} decode b={batch}")
            )
    del model
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Imported here, not at the top: --help and the tests run without torch installed.
    import torch  # type: ignore[import-not-found, unused-ignore]

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("No CUDA device: run with --device cpu --tiny for a smoke run.")
        return 2
    presets = ["tiny"] if args.tiny else [p.strip() for p in args.presets.split(",") if p.strip()]
    skip = set(args.skip.split(","))
    env = environment(torch, args.device)
    gpu = card_spec(args.card or env["gpu_name"]) if args.card or args.device.startswith("cuda") else None
    print(f"card {env['gpu_name']} (knowledge id {gpu.id if gpu else 'none'}); {json.dumps(env)}")
    measured_on = gpu.id if gpu and args.device.startswith("cuda") else None  # --card on CPU only previews
    meta = {
        **env,
        "gpu_id": measured_on,
        "prompt_tokens": args.prompt_tokens,
        "output_tokens": args.new_tokens,
    }
    rows: list[Measured] = []
    for preset in presets:
        for method in ("full", "lora"):
            if method not in skip:
                rows += measure_training(torch, preset, method, args, meta)
        if "decode" not in skip:
            rows += measure_decode(torch, preset, args, meta, gpu)
    print_table(rows)
    write_records(rows, args.out or default_out(env, args.device))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
