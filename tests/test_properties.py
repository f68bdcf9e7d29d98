"""Property-based checks: whatever arrives, nothing escapes and every reply is usable.

CI runs a small budget; set GPU_ADVISOR_FUZZ_EXAMPLES (e.g. 100000) for a dedicated run.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_advisor import knowledge
from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.workload import Workload

EXAMPLES = int(os.environ.get("GPU_ADVISOR_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KB = knowledge.load()
DIALOG = Dialog(KB)

WORDS = st.sampled_from(
    [
        "部署",
        "训练",
        "微调",
        "推理",
        "13B",
        "七百亿",
        "LoRA",
        "QLoRA",
        "int4",
        "AWQ",
        "并发16",
        "20 QPS",
        "预算一万",
        "$500 a month",
        "7×24",
        "跑三天",
        "8x H100",
        "我有一张T4",
        "上下文 32k",
        "首token低于200ms",
        "llama 3.1 70b",
        "mixtral 8x7b",
        "/plan",
        "/why",
        "/cost",
        "/new",
        "/lang en",
        "/gpu h20",
        "/compare a100 t4",
        "skip",
        "其实是70B",
        "no, inference",
        "10000000B",
        "-5k context",
        "😀",
        "<b>",
        "'; drop table x; --",
        "\x00",
        "qwen 14b",
        "2亿 token",
    ]
)
MESSAGES = st.one_of(st.text(max_size=300), st.lists(WORDS, min_size=1, max_size=6).map(" ".join))


@FUZZ
@given(st.lists(MESSAGES, min_size=1, max_size=5))
def test_any_conversation_gets_a_nonempty_reply_in_a_supported_language(messages: list[str]) -> None:
    state = ConversationState()
    for text in messages:
        reply, state = DIALOG.handle(state, text)
        assert reply.text.strip()
        assert reply.lang in ("zh", "en")
        assert all(len(b.payload.encode()) <= 64 for b in reply.buttons)
        for b in reply.buttons:
            reply, state = DIALOG.press(state, b.payload)
            assert reply.text.strip()
            break


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(sorted(Workload.model_fields)),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-10, 10**7),
            st.floats(allow_nan=True),
            st.text(max_size=20),
            st.sampled_from(["train", "infer", "both", "lora", "awq", "t4", "h100-sxm", "llama-3-8b"]),
        ),
        max_size=8,
    )
)
def test_the_workload_contract_rejects_bad_input_with_a_field_never_a_crash(data: dict[str, Any]) -> None:
    try:
        workload = parse_workload(json.dumps(data, allow_nan=True))
    except ContractError as exc:
        assert "error" in exc.payload and "code" in exc.payload["error"]
        return
    try:
        plan = recommend(workload, KB)
    except EngineError as exc:
        assert exc.field in Workload.model_fields  # unknown names, or lengths past the model's window
        return
    assert plan.status in ("ok", "over_budget", "latency_not_met", "no_fit")


@FUZZ
@given(
    task=st.sampled_from(["train", "infer", "both"]),
    params_b=st.floats(0.1, 2000),
    context=st.integers(16, 200_000),
    concurrency=st.integers(1, 512),
    fmt=st.sampled_from([None, "bf16", "int8", "awq", "q4_k_m", "fp8"]),
    method=st.sampled_from([None, "full", "lora", "qlora"]),
)
def test_valid_workloads_always_produce_a_plan(
    task: str, params_b: float, context: int, concurrency: int, fmt: str | None, method: str | None
) -> None:
    w = Workload(
        task=task,
        params_b=params_b,
        context_len=context,
        concurrency=concurrency,  # type: ignore[arg-type]
        weight_dtype=fmt,
        method=method,
    )  # type: ignore[arg-type]
    plan = recommend(w, KB)
    if plan.recommendation is not None:
        rec = plan.recommendation
        assert rec.memory_gib["total"] <= rec.capacity_gib + 1e-6
        assert rec.cost.amount > 0


@pytest.mark.parametrize("text", ["", " ", "\n\n", "/", "//", "/plan@", "@", "q:task:0"])
def test_edge_strings_do_not_confuse_the_dialog(text: str) -> None:
    reply, _ = DIALOG.handle(ConversationState(), text)
    assert reply.text.strip()
