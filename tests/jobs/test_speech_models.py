"""A named FunASR model is sized as itself, never swapped for Whisper (issue 43).

Paraformer-large's one published GPU row (FunASR's Triton GPU README: Aishell-1's 36,108.919 s
on one V100 with 60 concurrent tasks in 116.0 s, 311.3× real time) sets its own FunASR
constant; SenseVoice-Small keeps the one its README sets (70 ms for 10 s on an A800). On an
A100 40GB (1,555 GB/s) Paraformer is 311.29 × 1,555 / 900 ≈ 537.8× real time; a 1g.5gb MIG
slice has a seventh of it, 76.8×.
"""

from __future__ import annotations

import pytest

from gpu_advisor import knowledge
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.jobs.speech import command, x_realtime
from gpu_advisor.engine.jobs.speeds import find_model
from gpu_advisor.knowledge.job_speeds import load_jobs as job_knowledge
from tests.dialogs import simplified, talk


def test_paraformer_is_sized_from_its_own_published_row() -> None:
    kb, jobs = knowledge.load(), job_knowledge()
    model = find_model(jobs.speech.models, "paraformer")
    assert model is not None and model.id == "paraformer-large"
    assert x_realtime(jobs, kb, model, "funasr", "a100-40g-sxm") == pytest.approx(537.8, rel=0.01)


def test_sensevoice_keeps_its_own_readme_speed() -> None:
    kb, jobs = knowledge.load(), job_knowledge()
    model = find_model(jobs.speech.models, "sensevoice")
    assert model is not None
    # 142.857 s/s on an A800 (2,039 GB/s) scaled to an A100 40GB's 1,555 GB/s
    assert x_realtime(jobs, kb, model, "funasr", "a100-40g-sxm") == pytest.approx(108.9, rel=0.01)


def test_paraformers_command_loads_paraformer_not_sensevoice() -> None:
    jobs = job_knowledge()
    model = find_model(jobs.speech.models, "paraformer-zh")
    assert model is not None
    assert "model='paraformer-zh'" in command(model, "funasr")


@pytest.mark.parametrize(
    "text",
    [
        "用 Paraformer 把 800 小时客服录音转成文字，租什么卡",
        "paraformer-zh 轉寫 2000 小時錄音，要多久",
        "transcribe 1,200 hours of Mandarin meetings with Paraformer, which GPU?",
    ],
)
def test_a_named_paraformer_is_answered_as_paraformer(dialog: Dialog, text: str) -> None:
    reply, _ = talk(dialog, text)
    said = simplified(reply.text)
    assert "paraformer" in said.lower() and "Whisper" not in said, said
    assert "76.83" in said  # the cheapest pick, a 1g.5gb slice: 537.8 / 7
