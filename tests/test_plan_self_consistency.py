"""A plan never recommends what it already does (issue 47).

A vLLM plan told "换成 vLLM 解码快约 1.6 倍" contradicts itself: the runtime finding says
what the plan's speeds assume and what the slow way would cost, in both languages.
"""

from __future__ import annotations

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import render
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload


def _runtime_note(p: Plan) -> dict[str, object]:
    return dict(next(f for f in p.pitfalls if f.id == "software_stack_matters").values)


@pytest.mark.parametrize(("lang", "switch"), [("zh", "换成"), ("en", "switch")])
def test_a_plan_served_on_vllm_never_advises_switching_to_vllm(kb: Knowledge, lang: str, switch: str) -> None:
    p = recommend(Workload(task="infer", params_b=7, concurrency=8), kb)
    assert p.recommendation is not None and p.recommendation.runtime == "vllm"
    values = _runtime_note(p)
    text = locales.render_finding(lang, "software_stack_matters", values)
    short = locales.t(lang, "caveat.software_stack_matters", **values)
    assert "vLLM" in text and switch not in (text + short).lower()


def test_the_runtime_note_names_the_slow_way_in_the_users_language(kb: Knowledge) -> None:
    values = _runtime_note(recommend(Workload(task="infer", params_b=7, concurrency=8), kb))
    zh = locales.render_finding("zh", "software_stack_matters", values)
    assert "Hugging Face" not in zh and "eager" not in zh and "逐条" in zh


def test_a_plan_served_on_transformers_itself_has_no_runtime_note(kb: Knowledge) -> None:
    p = recommend(Workload(task="infer", params_b=7, concurrency=1, runtime="transformers"), kb)
    assert p.recommendation is not None and p.recommendation.runtime == "transformers"
    assert "software_stack_matters" not in {f.id for f in p.pitfalls}


@pytest.mark.parametrize(("lang", "mark"), [("zh", "不可行"), ("en", "not workable")])
def test_a_pick_its_own_checks_call_unworkable_is_never_ticked(kb: Knowledge, lang: str, mark: str) -> None:
    # 70B pretraining: only 4 × 8 H100 over 10 Gbit/s hold it (~7 % scaling), and nothing replaces it.
    p = recommend(Workload(task="train", params_b=70, pretrain=True, train_tokens=1e9), kb)
    assert p.status == "below_efficiency_floor"
    title = render.answer(lang, p).title or ""
    assert title.startswith("⚠") and "✅" not in title and mark in title


def test_a_workable_pick_is_ticked(kb: Knowledge) -> None:
    p = recommend(Workload(task="infer", params_b=7, concurrency=8), kb)
    assert (render.answer("zh", p).title or "").startswith("✅")
