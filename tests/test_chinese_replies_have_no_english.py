"""A Chinese reply is Chinese: no English word is left where a Chinese term exists (issue 47).

Product, library, format and model names, units and a few terms of art a Chinese
engineer writes as they are ("KV", "token", "NVLink") stay Latin; everything else is
said in Chinese ("KV 缓存", not "KV cache"; "批大小", not "batch"; "检查点", not
"checkpoint"). Two scans hold that: every sentence of the Chinese locale, and the
rendered replies of a set of Chinese conversations (plans, /why all, /alt, price and fit
answers). What a user copies verbatim stays as it is: template fields (values, filled in
later), `code`, commands (/plan, --max-model-len, pip install …), snake_case identifiers,
file names, URLs, and a reply's code sections.
"""

from __future__ import annotations

import re

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.dialog.reply import Reply
from tests.dialogs import talk

# Latin a Chinese reply keeps: names of products, vendors, libraries, formats and models;
# units; abbreviations and terms of art that have no Chinese term in use.
PRODUCTS = {
    "NVIDIA", "AMD", "Huawei", "Ascend", "GeForce", "RTX", "Instinct", "Ada", "A100", "A800", "H100", "H20",
    "H200", "H800", "L4", "L40S", "T4", "SXM", "SXM4", "SXM5", "NVLink", "NVSwitch", "PCIe", "Gen", "x16",
    "NVMe", "InfiniBand", "RoCE", "IB", "RDMA", "MIG", "NVENC", "NVDEC", "AV1", "H.264", "HEVC", "CUDA",
    "ROCm", "HIP", "CANN", "MindIE", "MindSpeed", "MindSpore", "NCCL", "DALI", "PyTorch", "DataLoader",
    "DeepSpeed", "ZeRO", "ZeRO-1", "ZeRO-2", "ZeRO-3", "FSDP", "vLLM", "vLLM-Ascend", "vllm", "vllm-ascend",
    "SGLang", "TensorRT", "TensorRT-LLM", "ModelOpt", "llama.cpp", "llama-server", "llama-quantize", "Ollama",
    "llm-compressor", "llmcompressor", "trtllm-serve", "transformers", "bitsandbytes", "FlashAttention",
    "PagedAttention",
    "Liger", "Unsloth", "torchtune", "torchrun", "LLaMA-Factory", "ms-swift", "swift", "sft", "kohya", "xDiT",
    "Hugging", "Face", "ModelScope", "Ray", "MLX", "Whisper", "faster-whisper", "whisper.cpp",
    "openai-whisper", "FunASR", "SenseVoice", "Paraformer", "bge-m3", "Llama", "Qwen", "Qwen2.5",
    "Qwen2.5-14B", "Qwen2.5-14B-Instruct", "Qwen2.5-72B", "LoRA", "QLoRA", "DreamBooth", "Adam", "AdamW",
    "Adafactor", "SGD", "safetensors", "GGUF", "JSON", "jsonl", "messages", "config.json", "pip", "install",
    "git", "clone", "serve", "Ctrl-D",
}  # fmt: skip
UNITS = {
    "B", "G", "GB", "GiB", "KB", "KiB", "TB", "Gb", "Gbps", "GB/s", "bit", "ms", "kW", "W", "px", "TFLOP",
    "TFLOPS", "TOPS", "GFLOPs", "token", "it", "s", "CNY",
}  # fmt: skip
TERMS = {
    "GPU", "CPU", "API", "KV", "QPS", "TTFT", "MFU", "PUE", "TDP", "SLA", "RTF", "RAG", "MoE", "FFN", "GQA",
    "TP", "VAE", "PTQ", "QAT", "logits", "all-reduce", "p95", "p99", "BF16", "FP16", "FP32", "FP8", "TF32",
    "fp32", "fp8", "bf16", "INT4", "INT8", "int4", "NF4", "MXFP4", "NVFP4", "W8A8", "AWQ", "GPTQ", "Q4",
}  # fmt: skip
ALLOWED = PRODUCTS | UNITS | TERMS

_VERBATIM = re.compile(
    r"\{[^{}]*\}"  # a template field: a value filled in later
    r"|`[^`]*`"  # code
    r"|https?://\S+"
    r"|(?<![A-Za-z0-9])/[a-z_]+[^\u3400-\u9fff\n]*"  # a command and the Latin typed after it
    r"|--[a-z][a-z0-9_-]*"  # a command-line flag
    r"|\b\w+_\w+\b"  # an identifier: max_batch_size, YOUR_MODEL
    r"|\b[\w.-]+/[\w./-]+\b"  # a path or a repository: llama.cpp/requirements.txt, Qwen/Qwen2.5-7B
    r"|\b\d+g\.\d+gb\b"  # a MIG profile: 4g.20gb
)
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9.+\-/']*")


def english_words(text: str) -> set[str]:
    """The Latin words of ``text`` that are neither verbatim nor allowed (single letters are symbols)."""
    words = {w.rstrip(".-'/") for w in _LATIN.findall(_VERBATIM.sub(" ", text))}
    return {w for w in words if len(w) > 1 and w not in ALLOWED and not _is_model_or_card(w)}


def _is_model_or_card(word: str) -> bool:
    """'Llama-2-13B', 'Qwen3-30B-A3B', 'SXM5', '8x': a name with digits is a model or a part number."""
    return bool(re.search(r"\d", word)) and word[:1].isupper()


def test_english_words_finds_what_a_chinese_reader_would_trip_on() -> None:
    assert english_words("KV cache 越大，batch 降到 1") == {"cache", "batch"}
    assert english_words("KV 缓存用 vLLM 的 --kv-cache-dtype fp8，发 /why all 看每一步") == set()


def test_every_chinese_locale_sentence_is_chinese_but_for_names_and_units() -> None:
    found = {key: words for key, text in locales.messages("zh").items() if (words := english_words(text))}
    assert found == {}


CONVERSATIONS = [
    ("部署 Qwen2.5-14B，并发 16，预算每月 3000", "常驻", "/why all", "/alt"),
    ("全参微调 Llama 3 70B，100亿 token，两周内完成", "/why all", "/alt"),
    ("微调 13B，LoRA，跑三天", "/why all"),
    ("H20 部署 Qwen2.5-72B，提示 20000 token，20 个用户同时用，常驻", "/why all"),
    ("用 8 张 910B 部署 Qwen2.5-72B，10 个用户同时用，常驻", "/why all"),
    ("RTX 3090 多少钱",),
]


def _prose(reply: Reply) -> str:
    """What a reply says in words: its parts without the code sections meant to be copied."""
    if not reply.structured:
        return reply.text
    sections = [s for s in reply.sections if not s.code]
    return reply.model_copy(update={"sections": sections}).as_text()


@pytest.mark.parametrize("messages", CONVERSATIONS, ids=lambda m: m[0][:16])
def test_every_reply_of_a_chinese_conversation_is_chinese(dialog: Dialog, messages: tuple[str, ...]) -> None:
    state = None
    for message in messages:
        reply, state = talk(dialog, message, state=state)
        assert english_words(_prose(reply)) == set(), message


def test_a_fit_verdict_on_the_modified_4090_names_it_in_chinese(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "4090 48G 能跑 Qwen2.5-32B 吗")
    assert english_words(_prose(reply)) == set()
