"""Every numeric Workload field at its bounds: the engine answers or names the field, never crashes.

Issue 14: ``llama-2-13b`` with 8k output tokens and no ``context_len`` divided by zero
in the serving search (HTTP 500, CLI exit 1). The property test below walks every
numeric field of ``engine.workload.Workload`` through its minimum, maximum, the values
just inside them and a typical value, alone and in combination, with and without
``context_len``, through both ``estimate`` and ``recommend``.

CI runs a small budget; set GPU_ADVISOR_FUZZ_EXAMPLES (e.g. 20000) for a dedicated run.
"""

from __future__ import annotations

import os
from typing import Any, Literal, get_args, get_origin

import pytest
from annotated_types import Ge, Gt, Le
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.engine import serving_search
from gpu_advisor.engine.defaults import AUTO_FORMATS, ServeSetup
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Budget, Workload

EXAMPLES = int(os.environ.get("GPU_ADVISOR_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MODELS = ("llama-2-13b", "llama-3.1-8b", "qwen2.5-14b", "mixtral-8x7b", None)
TYPICAL = {int: 8, float: 10.0}


def _bounds(field: str) -> tuple[float, float, type]:
    """(lowest allowed, highest allowed, int or float) from the field's pydantic constraints."""
    info = Workload.model_fields[field]
    kind = _number_type(info.annotation) or float
    low, high = (1 if kind is int else 1e-9), 1e15  # PositiveInt / PositiveFloat; no upper bound
    for m in info.metadata:
        if isinstance(m, Ge):
            low = float(m.ge)  # type: ignore[arg-type]
        elif isinstance(m, Gt):
            low = float(m.gt) + (1 if kind is int else 1e-9)  # type: ignore[arg-type]
        elif isinstance(m, Le):
            high = float(m.le)  # type: ignore[arg-type]
    return low, high, kind


def _edge_values(field: str) -> st.SearchStrategy[Any]:
    """min, just above min, a typical value, just below max, max — as the field's type."""
    low, high, kind = _bounds(field)
    step = 1 if kind is int else (high - low) * 1e-6
    picks = [low, low + step, TYPICAL[kind], high - step, high]
    return st.sampled_from([kind(min(max(v, low), high)) for v in picks])


def _number_type(annotation: Any) -> type | None:
    """int or float for ``int | None``, ``Optional[Annotated[int, Gt(0)]]`` …; None otherwise."""
    if annotation in (int, float):
        return annotation  # type: ignore[no-any-return]
    if get_origin(annotation) is Literal:
        return None
    found = {_number_type(arg) for arg in get_args(annotation)} - {None}
    return found.pop() if len(found) == 1 else None


NUMERIC = sorted(name for name, info in Workload.model_fields.items() if _number_type(info.annotation))


def test_the_bounds_walk_covers_every_numeric_field() -> None:
    # If a numeric field is added to Workload, this walk must reach it too.
    assert {"context_len", "output_tokens", "prompt_tokens", "params_b", "train_tokens"} <= set(NUMERIC)
    assert {"duration_hours", "qps", "ttft_ms_max", "zero_stage", "gpu_count"} <= set(NUMERIC)
    assert not {"weight_dtype", "kv_dtype", "task"} & set(NUMERIC)


@st.composite
def workloads_at_bounds(draw: st.DrawFn) -> dict[str, Any]:
    fields = draw(st.lists(st.sampled_from(NUMERIC), min_size=1, max_size=6, unique=True))
    data: dict[str, Any] = {f: draw(_edge_values(f)) for f in fields}
    data["task"] = draw(st.sampled_from(["infer", "train", "both"]))
    model = draw(st.sampled_from(MODELS))
    if model is not None:
        data["model"] = model
    elif "params_b" not in data:
        data["params_b"] = draw(st.sampled_from([1e-9, 0.5, 13.0, 10_000.0]))
    if draw(st.booleans()):
        data.pop("context_len", None)
    if draw(st.booleans()):
        amount = draw(st.sampled_from([1e-9, 1.0, 2800.0, 1e29, 1e300]))
        data["budget"] = Budget(amount=amount, currency=draw(st.sampled_from(["CNY", "USD", "EUR"])))
    return data


@FUZZ
@given(data=workloads_at_bounds())
def test_bounds_get_a_plan_or_an_error_naming_a_field(kb: Knowledge, data: dict[str, Any]) -> None:
    try:
        w = Workload(**data)
    except ValidationError:
        return  # the contract refuses it, naming the field: a 422, not a crash
    try:
        estimate(w, kb)
        plan = recommend(w, kb)
    except EngineError as exc:
        assert exc.field in Workload.model_fields
        return
    from gpu_advisor.engine.plan_checks import HARD

    assert plan.status in ("ok", "over_budget", "latency_not_met", "no_fit", *HARD)


# --- the issue-14 reports, one behaviour each -----------------------------------------


def test_a_layout_without_room_for_one_prompt_and_answer_is_skipped(kb: Knowledge) -> None:
    # A setup whose window is shorter than prompt + answer used to leave max batch 0.
    arch = kb.models["llama-2-13b"]
    s = ServeSetup(AUTO_FORMATS, "fp16", 4096, 512, 8192, 4, None, None, None, None)
    for layout in serving_search.layouts(arch, s, kb, kb.catalog.offers):
        assert layout.bmax >= 1
    serving_search.search(arch, s, kb, kb.catalog.offers, None)


def test_a_tiny_hidden_size_on_a_bare_size_still_gets_a_shape(kb: Knowledge) -> None:
    # Found by the bounds walk: hidden_size=1 gave head_dim 0 and intermediate_size 0.
    plan = recommend(Workload(task="infer", params_b=0.001, hidden_size=1), kb)  # the contract floor
    assert plan.model.head_dim >= 1


def test_an_8k_answer_on_a_4k_model_names_output_tokens(kb: Knowledge) -> None:
    with pytest.raises(EngineError) as caught:
        recommend(Workload(task="infer", model="llama-2-13b", output_tokens=8192), kb)
    assert caught.value.field == "output_tokens"
    # llama-2-13b's config.json: max_position_embeddings 4096; 4096 - the 512-token default prompt.
    assert caught.value.values["max_context"] == 4096 and caught.value.values["max_output"] == 3584


def test_an_8k_answer_on_a_4k_model_is_an_error_in_estimate_too(kb: Knowledge) -> None:
    with pytest.raises(EngineError):
        estimate(Workload(task="infer", model="llama-2-13b", output_tokens=8192), kb)


def test_an_8k_answer_on_a_long_context_model_raises_the_context_and_says_so(kb: Knowledge) -> None:
    plan = recommend(Workload(task="infer", model="llama-3.1-8b", output_tokens=8192), kb)
    raised = next(f for f in plan.assumptions if f.id == "context_raised_for_output")
    assert raised.values["context_len"] == 512 + 8192 and raised.values["was"] == 4096
    assert plan.recommendation is not None


def test_a_long_answer_shrinks_the_default_prompt_to_fit_the_model(kb: Knowledge) -> None:
    est = estimate(Workload(task="infer", model="llama-2-13b", output_tokens=4000), kb)
    assert est.settings["prompt_tokens"] == 96 and est.settings["context_len"] == 4096


def test_a_prompt_that_fills_the_window_names_prompt_tokens(kb: Knowledge) -> None:
    w = Workload(task="infer", model="llama-2-13b", context_len=4096, prompt_tokens=4096)
    with pytest.raises(EngineError) as caught:
        recommend(w, kb)
    assert caught.value.field == "prompt_tokens"


def test_a_bare_size_has_no_published_window_so_the_context_is_raised(kb: Knowledge) -> None:
    plan = recommend(Workload(task="infer", params_b=13, output_tokens=8192), kb)
    raised = next(f for f in plan.assumptions if f.id == "context_raised_for_output")
    assert raised.values["max_context"] is None


@pytest.mark.parametrize(
    ("lang", "message", "fix", "word"),
    [
        ("zh", "部署 llama-2-13b，输出 8k token，并发 4，7×24", "输出 2k token", "3,584"),
        ("en", "deploy llama-2-13b, output 8k tokens, concurrency 4, 24/7", "output 2k tokens", "3,584"),
    ],
)
def test_the_chat_explains_a_too_long_answer_and_recovers_when_it_is_shortened(
    kb: Knowledge, lang: str, message: str, fix: str, word: str
) -> None:
    dialog = Dialog(kb)
    reply, state = dialog.handle(ConversationState(lang=lang), message)
    assert reply.kind == "error" and word in reply.text
    reply, state = dialog.handle(state, fix)
    assert reply.kind == "answer" and reply.plan is not None
