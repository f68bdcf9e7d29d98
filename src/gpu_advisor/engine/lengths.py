"""Request lengths for serving: the prompt, the answer and the context window holding both.

A serving runtime's context window (vLLM's ``max_model_len``) bounds prompt + output
of one request: a request that does not fit is rejected, and the KV cache has to
hold ``prompt + output`` tokens per sequence. So an answer longer than the default
4k window ("输出 8k token") needs a larger window, and the engine raises it — and
says so with a ``context_raised_for_output`` finding — as far as the model's
trained maximum (``ModelArch.max_context``, or a larger ``context_len`` the user
asked for explicitly) allows. Past that, the request is an error naming the field
to change, never a plan for a window the model cannot serve.

Where the user gave only the output length, the default prompt shrinks to leave it
room (a 4,000-token answer from a 4,096-token model leaves a 96-token prompt); a
long prompt with no output length gets the usual 256-token answer beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.specs import ModelArch
from gpu_advisor.engine.workload import MAX_CONTEXT, Workload

SERVE_CONTEXT = 4096
SERVE_PROMPT = 512
SERVE_OUTPUT = 256
CUSTOM_MODEL_ID = "custom"  # the id engine.architecture gives a model built from a bare size


@dataclass(frozen=True, slots=True)
class Lengths:
    context: int
    prompt: int
    output: int


def _default_prompt(w: Workload, base_context: int, limit: int) -> int:
    """512 tokens, at most half the window, and no more than a given output leaves free."""
    room = limit - w.output_tokens if w.output_tokens is not None else limit
    return max(1, min(SERVE_PROMPT, base_context // 2, room))


def _too_long(w: Workload, arch: ModelArch, limit: int, output: int) -> EngineError:
    """The error for a request whose prompt + answer exceeds the model's window.

    It names ``output_tokens`` with the longest answer that fits beside the prompt,
    or, when the prompt alone fills the window (a 30,000-token prompt for an 8k model:
    no answer length would help), ``prompt_tokens`` with the longest prompt that leaves
    room for the answer asked (the usual answer when none was).
    """
    if w.output_tokens is None or (w.prompt_tokens is not None and w.prompt_tokens >= limit):
        assert w.prompt_tokens is not None  # a defaulted prompt always leaves room
        return EngineError(
            "prompt_exceeds_max_context",
            "prompt_tokens",
            model=arch.name,
            prompt_tokens=w.prompt_tokens,
            max_context=limit,
            max_prompt=max(1, limit - (w.output_tokens or SERVE_OUTPUT)),
        )
    prompt = w.prompt_tokens or min(SERVE_PROMPT, limit // 2)
    return EngineError(
        "exceeds_max_context",
        "output_tokens",
        model=arch.name,
        prompt_tokens=prompt,
        output_tokens=output,
        max_context=limit,
        max_output=max(1, limit - prompt),
    )


def _trained_max(arch: ModelArch) -> int | None:
    """The model's published maximum window; None for a model known only by its size."""
    return None if arch.id == CUSTOM_MODEL_ID else arch.max_context


def serving_lengths(w: Workload, arch: ModelArch) -> tuple[Lengths, list[Finding]]:
    """Context, prompt and output for ``w`` on ``arch``, each default reported as an assumption.

    Raises EngineError (see ``_too_long``) when prompt + output exceeds what the model holds.
    """
    trained = _trained_max(arch)
    limit = max(trained or MAX_CONTEXT, w.context_len or 0)
    base = w.context_len or min(SERVE_CONTEXT, arch.max_context)
    assumed: list[Finding] = []
    prompt = w.prompt_tokens
    if prompt is None:
        prompt = _default_prompt(w, base, limit)
        assumed.append(finding("assumed_prompt_tokens", value=prompt))
    output = w.output_tokens
    if output is None:
        window = base if prompt < base else limit  # a long given prompt raises the window too
        output = min(SERVE_OUTPUT, max(1, window - prompt))
        assumed.append(finding("assumed_output_tokens", value=output))
    needed = prompt + output
    if needed > limit:
        raise _too_long(w, arch, limit, output)
    if needed <= base:
        if w.context_len is None:
            assumed.insert(0, finding("assumed_context_len", value=base))
        return Lengths(base, prompt, output), assumed
    raised = finding(
        "context_raised_for_output",
        context_len=needed,
        was=base,
        prompt_tokens=prompt,
        output_tokens=output,
        max_context=limit if trained else None,
    )
    return Lengths(needed, prompt, output), [raised, *assumed]
