"""The widget's own session routes: the plan's chart as a PNG, and "start over" forgetting on the server."""

from __future__ import annotations

from pathlib import Path

from tests.test_web_api import serving

QUESTION = "部署 13B 聊天机器人，并发 8，7×24"


async def test_the_chart_of_a_priced_conversation_is_a_png(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        answer = await (await client.post("/api/chat", json={"text": QUESTION})).json()
        response = await client.post("/api/chat/chart", json={"session_id": answer["session_id"]})
        png = await response.read()
    assert answer["chart"] == "all"
    assert response.status == 200 and response.content_type == "image/png" and png[:4] == b"\x89PNG"


async def test_a_conversation_without_a_plan_has_no_chart(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        welcome = await (await client.post("/api/chat", json={"button": "/start"})).json()
        response = await client.post("/api/chat/chart", json={"session_id": welcome["session_id"]})
        malformed = await client.post("/api/chat/chart", json={"session_id": "../etc"})
    assert response.status == 404 and malformed.status == 422


async def test_forget_leaves_the_session_knowing_nothing(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        answer = await (await client.post("/api/chat", json={"text": QUESTION})).json()
        session = answer["session_id"]
        forgot = await client.post("/api/chat/forget", json={"session_id": session})
        after = await (await client.post("/api/chat", json={"session_id": session, "button": "/why"})).json()
        chart = await client.post("/api/chat/chart", json={"session_id": session})
    assert forgot.status == 204
    assert after["kind"] == "info" and after["requirements"] == {} and chart.status == 404
