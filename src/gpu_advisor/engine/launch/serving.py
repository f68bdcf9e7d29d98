"""Serving commands: the plan's layout and limits as each runtime spells them.

Every number comes from the plan's pick (``Option``) or the setup it was sized with
(``ServeSetup``, the runtime's memory share on that card); nothing is re-derived. Flags are the
canonical spellings of the pinned releases (``spec.RELEASES``; checked against their argument
parsers, ``knowledge/runtime_flags.yaml``):

- vLLM ``vllm serve`` (docs.vllm.ai, "Engine Arguments"): ``--tensor-parallel-size``,
  ``--pipeline-parallel-size`` (machines), ``--data-parallel-size`` (replicas in one server),
  ``--max-model-len``, ``--gpu-memory-utilization``, ``--max-num-seqs``,
  ``--max-num-batched-tokens`` (the user's token budget), ``--quantization`` (only to quantize on
  load), ``--kv-cache-dtype``; several machines run on Ray (``--distributed-executor-backend ray``).
- SGLang ``python -m sglang.launch_server`` (docs.sglang.io, "Server Arguments"): ``--model-path``,
  ``--tp-size``, ``--dp-size`` (with ``--enable-dp-attention`` when the plan gave each GPU its own
  attention), ``--pp-size``, ``--context-length``, ``--mem-fraction-static``,
  ``--max-running-requests``, ``--chunked-prefill-size``, ``--kv-cache-dtype fp8_e4m3``,
  ``--nnodes``/``--node-rank``/``--dist-init-addr`` across machines.
- TensorRT-LLM ``trtllm-serve`` (its tensorrt_llm/commands/serve.py): ``--backend pytorch``,
  ``--tp_size``, ``--pp_size``, ``--max_batch_size``, ``--max_num_tokens``, ``--max_seq_len``,
  ``--kv_cache_free_gpu_memory_fraction``; written for weights it reads as published (16-bit or
  the model's native format). A quantized TensorRT-LLM plan is run by vLLM with the same layout,
  and says so (its ModelOpt checkpoints are not in the table).
- llama.cpp ``llama-server`` (tools/server/README.md): ``-m``, ``-c`` (shared by the ``-np``
  slots, ggml-org/llama.cpp#11681, so context × slots), ``-ngl 99``, ``--split-mode layer``.
- Ollama (a GGUF plan's other server; its cmd/cmd.go, api/types.go and docs/faq.mdx at v0.32.15):
  ``ollama serve`` takes its settings from the environment — ``OLLAMA_NUM_PARALLEL`` requests at
  once, each with the Modelfile's ``PARAMETER num_ctx`` tokens (the FAQ: memory scales with
  parallel × context, so num_ctx is the per-sequence context, unlike llama-server's ``-c``) —
  and ``ollama create NAME -f Modelfile`` registers the GGUF file (``FROM ./file.gguf``) with the
  running server, which then answers on port 11434 (OpenAI-compatible ``/v1``).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from gpu_advisor.engine.defaults import GGUF_FORMATS
from gpu_advisor.engine.launch.spec import RELEASES, LaunchSpec, Setting
from gpu_advisor.engine.launch.weights import ServedWeights, chat_repo, gguf_step, serving_weights

if TYPE_CHECKING:
    from gpu_advisor.engine.checkpoints import Checkpoints
    from gpu_advisor.engine.defaults import ServeSetup
    from gpu_advisor.engine.results import Option
    from gpu_advisor.engine.specs import ModelArch

PORTS = {"vllm": "8000", "sglang": "30000", "llama_cpp": "8080", "tensorrt_llm": "8000", "ollama": "11434"}


def layout(o: Option, serve: ServeSetup) -> dict[str, Setting]:
    tp = o.tensor_parallel or 1
    pp = o.machines_per_replica or 1
    per_machine = max(1, o.count // tp) if pp == 1 else 1
    return {
        "tensor_parallel": tp,
        "pipeline_parallel": pp,
        "data_parallel": min(per_machine, o.replicas or 1),
        "context_len": serve.context_len,
        "max_seqs": o.batch or 1,
        "machines": o.machines,
    }


def serving(
    o: Option, arch: ModelArch, serve: ServeSetup, util: float, table: Checkpoints
) -> list[LaunchSpec]:
    """The prepare steps the weights need, then the planned runtime, then the others that run it."""
    s = layout(o, serve)
    if o.weight_dtype in GGUF_FORMATS:
        return _gguf(o, arch, s, table)
    w = serving_weights(o, arch, table)
    s = {**s, "weights": w.path, "weights_form": w.form, "memory_fraction": util}
    builders = {"vllm": vllm, "sglang": sglang}
    if o.runtime == "tensorrt_llm" and w.form in ("native", "instruct"):
        builders = {"tensorrt_llm": trtllm, **builders}
    own = o.runtime if o.runtime in builders else "vllm"
    specs = [builders[own](o, serve, s, w, True)]
    if o.runtime == "tensorrt_llm" and own != o.runtime:
        specs = [specs[0].model_copy(update={"needs": [*specs[0].needs, "tensorrt_llm_format"]})]
    specs += [b(o, serve, s, w, False) for name, b in builders.items() if name != own]
    if w.needs:
        specs = [x.model_copy(update={"needs": [*x.needs, *w.needs]}) for x in specs]
    if o.weight_dtype in ("fp16", "bf16") and o.count * o.machines <= 8:
        specs.append(_llama_cpp_other(o, arch, s, table))
    return [*w.prepare, *specs]


def _gguf(o: Option, arch: ModelArch, s: dict[str, Setting], table: Checkpoints) -> list[LaunchSpec]:
    path, step = gguf_step(o, chat_repo(arch, table))
    return [step, llama_cpp(o, s, path, primary=True), ollama(o, s, path)]


def _llama_cpp_other(o: Option, arch: ModelArch, s: dict[str, Setting], table: Checkpoints) -> LaunchSpec:
    """The same 16-bit model under llama-server: its GGUF conversion is one of its needs."""
    path, _ = gguf_step(o, chat_repo(arch, table))
    spec = llama_cpp(o, s, path, primary=False)
    return spec.model_copy(update={"needs": [*spec.needs, "gguf_convert"]})


def _needs(s: dict[str, Setting]) -> list[str]:
    return ["multi_node"] if int(s["pipeline_parallel"]) > 1 else []


def vllm(o: Option, serve: ServeSetup, s: dict[str, Setting], w: ServedWeights, primary: bool) -> LaunchSpec:
    argv = ["vllm", "serve", w.path, "--tensor-parallel-size", str(s["tensor_parallel"])]
    needs = _needs(s)
    if int(s["pipeline_parallel"]) > 1:
        argv += ["--pipeline-parallel-size", str(s["pipeline_parallel"])]
        argv += ["--distributed-executor-backend", "ray"]
        needs = [*needs, "ray_cluster"]
    if int(s["data_parallel"]) > 1:
        argv += ["--data-parallel-size", str(s["data_parallel"])]
    argv += ["--max-model-len", str(s["context_len"])]
    argv += ["--gpu-memory-utilization", f"{s['memory_fraction']:g}"]
    argv += ["--max-num-seqs", str(s["max_seqs"])]
    if serve.max_num_batched_tokens:
        argv += ["--max-num-batched-tokens", str(serve.max_num_batched_tokens)]
    if w.quantization:
        argv += ["--quantization", w.quantization]
    if serve.kv_dtype == "fp8":
        argv += ["--kv-cache-dtype", "fp8"]
    argv += ["--host", "0.0.0.0", "--port", PORTS["vllm"]]
    return _spec("vllm", o, primary, argv, s, needs)


def sglang(
    o: Option, serve: ServeSetup, s: dict[str, Setting], w: ServedWeights, primary: bool
) -> LaunchSpec:
    argv = ["python", "-m", "sglang.launch_server", "--model-path", w.path]
    argv += ["--tp-size", str(s["tensor_parallel"])]
    pp = int(s["pipeline_parallel"])
    if pp > 1:
        argv += ["--pp-size", str(pp), "--nnodes", str(pp), "--node-rank", "0"]
        argv += ["--dist-init-addr", "HEAD_IP:50000"]
    if serve.attention_dp:
        argv += ["--enable-dp-attention", "--dp-size", str(s["tensor_parallel"])]
    elif int(s["data_parallel"]) > 1:
        argv += ["--dp-size", str(s["data_parallel"])]
    argv += ["--context-length", str(s["context_len"]), "--mem-fraction-static", f"{s['memory_fraction']:g}"]
    argv += ["--max-running-requests", str(s["max_seqs"])]
    if serve.max_num_batched_tokens:
        argv += ["--chunked-prefill-size", str(serve.max_num_batched_tokens)]
    if w.quantization:
        argv += ["--quantization", w.quantization]
    if serve.kv_dtype == "fp8":
        argv += ["--kv-cache-dtype", "fp8_e4m3"]
    argv += ["--host", "0.0.0.0", "--port", PORTS["sglang"]]
    return _spec("sglang", o, primary, argv, s, _needs(s))


def trtllm(
    o: Option, serve: ServeSetup, s: dict[str, Setting], w: ServedWeights, primary: bool
) -> LaunchSpec:
    """One trtllm-serve per replica on the PyTorch backend, with the plan's batch and lengths."""
    argv = ["trtllm-serve", w.path, "--backend", "pytorch", "--tp_size", str(s["tensor_parallel"])]
    if int(s["pipeline_parallel"]) > 1:
        argv += ["--pp_size", str(s["pipeline_parallel"])]
    argv += ["--max_batch_size", str(s["max_seqs"]), "--max_seq_len", str(s["context_len"])]
    if serve.max_num_batched_tokens:
        argv += ["--max_num_tokens", str(serve.max_num_batched_tokens)]
    argv += ["--kv_cache_free_gpu_memory_fraction", f"{s['memory_fraction']:g}"]
    argv += ["--host", "0.0.0.0", "--port", PORTS["tensorrt_llm"]]
    return _spec("tensorrt_llm", o, primary, argv, s, _needs(s))


def llama_cpp(o: Option, s: dict[str, Setting], path: str, primary: bool) -> LaunchSpec:
    """One llama-server per replica; its GPUs split the layers (``--split-mode layer``)."""
    slots = int(s["max_seqs"])
    gpus = max(1, o.count // max(1, int(s["data_parallel"])))
    argv = ["llama-server", "-m", path, "-c", str(int(s["context_len"]) * slots), "-ngl", "99"]
    if gpus > 1:
        argv += ["--split-mode", "layer"]
    argv += ["-np", str(slots), "--host", "0.0.0.0", "--port", PORTS["llama_cpp"]]
    env = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(gpus))} if o.count > 1 else {}
    settings = {**s, "gpus_per_server": gpus, "servers_per_machine": int(s["data_parallel"])}
    settings |= {"weights": path, "weights_form": "gguf"}
    return LaunchSpec(
        runtime="llama_cpp",
        role="serve",
        option=o.kind,
        primary=primary,
        argv=argv,
        env=env,
        settings=settings,
        release=RELEASES["llama_cpp"],
    )


def ollama(o: Option, s: dict[str, Setting], path: str) -> LaunchSpec:
    """The same GGUF file under Ollama: the server with the plan's slots (one server holds what
    llama-server's replicas on the machine would), then the model with its context. The server
    is started in the background first: ``ollama create`` talks to it."""
    name = path.removesuffix(".gguf").lower()
    slots, context = int(s["max_seqs"]) * int(s["data_parallel"]), int(s["context_len"])
    env = {"OLLAMA_HOST": f"0.0.0.0:{PORTS['ollama']}", "OLLAMA_NUM_PARALLEL": str(slots)}
    if o.count > 1:
        env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(o.count))
    argv = ["ollama", "create", name, "-f", "Modelfile"]
    serve = " ".join([*(f"{k}={v}" for k, v in env.items()), "ollama", "serve"])
    return LaunchSpec(
        runtime="ollama",
        role="serve",
        option=o.kind,
        primary=False,
        argv=argv,
        env=env,
        config_files={"Modelfile": f"FROM ./{path}\nPARAMETER num_ctx {context}\n"},
        settings={**s, "weights": path, "weights_form": "gguf", "ollama_model": name},
        release=RELEASES["ollama"],
        shell=f"{serve} & sleep 5 && {shlex.join(argv)}",
    )


def _spec(
    runtime: str, o: Option, primary: bool, argv: list[str], s: dict[str, Setting], needs: list[str]
) -> LaunchSpec:
    return LaunchSpec(
        runtime=runtime,
        role="serve",
        option=o.kind,
        primary=primary,
        argv=argv,
        settings=s,
        needs=needs,
        release=RELEASES[runtime],
    )
