"""A non-LLM job through ``POST /api/chat``: the same card in the JSON, and the job's plan in ``job``.

Every field the chat contract had stays (``plan`` is null for a job); ``job`` is the
engine's ``JobPlan``, the same body ``POST /api/job`` answers with, so a site renders one
shape whichever way the job was asked. The server is real, on a loopback port.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_web_api import post, serving


async def test_a_job_question_answers_with_its_plan_and_a_follow_up_keeps_the_job(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, reply = await post(client, "/api/chat", {"text": "每天要出 5000 张 SDXL 图，租什么卡"})
        assert status == 200 and reply["kind"] == "answer"
        assert set(reply) >= {"session_id", "text", "buttons", "lang", "requirements", "plan", "title", "job"}
        assert reply["plan"] is None and reply["job"]["family"] == "image_gen"
        assert reply["job"]["model"] == "Stable Diffusion XL 1.0" and "¥" in reply["price"]
        assert "Llama" not in reply["text"]
        status, again = await post(
            client, "/api/chat", {"session_id": reply["session_id"], "text": "换成 Flux 呢"}
        )
    assert status == 200 and again["job"]["model"] == "FLUX.1 [dev]"


async def test_a_job_question_asked_by_a_button_goes_on_through_the_button(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        _, question = await post(client, "/api/chat", {"text": "SDXL 租什么卡"})
        assert question["kind"] == "question" and question["job"] is None
        payload = question["buttons"][0]["payload"]
        _, answer = await post(client, "/api/chat", {"session_id": question["session_id"], "button": payload})
    assert answer["kind"] == "answer" and answer["job"]["family"] == "image_gen"
