"""Reasoning models answer at length: size them with thousands of output tokens by default.

A reasoning ("thinking") model writes its chain of thought before the answer, so one
reply is thousands of tokens, not the few hundred of a chat model: DeepSeek-R1's
responses grow to thousands of tokens during its RL training (DeepSeek-AI 2025,
"DeepSeek-R1", fig. 3), and Qwen3's model cards recommend an output budget of 32,768
tokens in thinking mode. Sizing such a model with a chat-length answer understates
its KV cache and its decode time per request by an order of magnitude. Unless the
user gave an output length, a reasoning model is sized with ``THINKING_OUTPUT_TOKENS``
and the plan says so as an assumption (``assumed_reasoning_output``).

Which models think: DeepSeek-R1 and its distills, QwQ, Qwen3 (thinking is on by
default in the hybrid checkpoints; the Coder models do not think) and gpt-oss (its
reasoning effort is a prompt setting; high effort writes thousands of tokens).
"""

from __future__ import annotations

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.specs import ModelArch
from gpu_advisor.engine.workload import Workload

THINKING_OUTPUT_TOKENS = 4096
_THINKING_PREFIXES = ("deepseek-r1", "qwq", "gpt-oss", "qwen3-")
_NOT_THINKING = ("qwen3-coder",)


def thinks(arch: ModelArch) -> bool:
    """Whether ``arch`` is a reasoning model by default (see the module docstring)."""
    name = arch.id.lower()
    return name.startswith(_THINKING_PREFIXES) and not name.startswith(_NOT_THINKING)


def with_thinking_output(w: Workload, arch: ModelArch) -> tuple[Workload, list[Finding]]:
    """``w`` with a reasoning model's long answer, and the assumption said back; else ``w`` unchanged."""
    if w.task == "train" or w.output_tokens is not None or not thinks(arch):
        return w, []
    said = finding("assumed_reasoning_output", value=THINKING_OUTPUT_TOKENS, model=arch.name)
    return w.model_copy(update={"output_tokens": THINKING_OUTPUT_TOKENS}), [said]
