"""Issue 24: inputs that gave a 500 now get a clear 4xx or an answer, and the conversation goes on.

Each through a real aiohttp server on loopback (``aiohttp.test_utils``), as a client sends it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.openapi import document
from tests.test_web_api import TOKEN, post

jsonschema_rs = pytest.importorskip("jsonschema_rs")  # installed with schemathesis (the dev extra)
Client = TestClient[web.Request, web.Application]
CONFIG = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 32000,
}


@asynccontextmanager
async def serving(tmp_path: Path, **overrides: Any) -> AsyncIterator[Client]:
    config = WebConfig(db_path=str(tmp_path / "web.db"), admin_token=TOKEN, **overrides)
    async with TestClient(TestServer(build_app(config), host="127.0.0.1")) as client:
        yield client


async def test_a_chinese_large_number_beside_daily_users_is_answered_and_the_conversation_goes_on(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as client:
        status, first = await post(client, "/api/chat", {"text": "三百亿 日活两千"})
        assert status == 200, first
        status, then = await post(client, "/api/chat", {"session_id": first["session_id"], "text": "推理"})
    assert status == 200 and then["kind"] in ("question", "answer")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hidden_size": 10**300}, "model_config.hidden_size"),
        ({"num_attention_heads": 30}, "model_config.num_attention_heads"),  # 4096 / 30 is no head
        ({"num_hidden_layers": 0}, "model_config.num_hidden_layers"),
        ({"num_local_experts": 4, "num_experts_per_tok": 8}, "model_config.num_experts_per_tok"),
        ({"vocab_size": 1}, "model_config.vocab_size"),
    ],
)
async def test_a_config_that_cannot_exist_is_refused_naming_its_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    body = {"task": "infer", "model_config": {**CONFIG, **change}}
    async with serving(tmp_path) as client:
        for path in ("/api/estimate", "/api/recommend"):
            status, answer = await post(client, path, body)
            assert status == 422 and answer["error"]["code"] == "bad_model_config", answer
            assert answer["error"]["field"] == field


async def test_a_pasted_config_with_an_overflowing_hidden_size_is_answered_in_chat(tmp_path: Path) -> None:
    pasted = "部署这个模型 " + json.dumps({**CONFIG, "hidden_size": 10**300})
    async with serving(tmp_path) as client:
        status, reply = await post(client, "/api/chat", {"text": pasted})
    assert status == 200 and reply["kind"] in ("question", "answer", "error")


@pytest.mark.parametrize("text", ["/gpu \\ud800", "/\\ud800", "\\udfff 部署 13B"])
async def test_a_lone_surrogate_is_replaced_and_answered(tmp_path: Path, text: str) -> None:
    async with serving(tmp_path) as client:
        status, reply = await post(client, "/api/chat", '{"text": "' + text + '"}')
    assert status == 200 and "\ud800" not in reply["text"] and "\udfff" not in reply["text"]


@pytest.mark.parametrize(
    "body",
    [
        '{"task": "infer", "model": "llama-3-8b", "concurrency": ' + "9" * 5000 + "}",
        "[" * 30_000 + "]" * 30_000,
        '{"task": "infer", "model_config": ' + '{"a": ' * 100 + "1" + "}" * 101,
    ],
    ids=["5000_digits", "30000_deep", "100_deep_object"],
)
async def test_json_too_long_a_number_or_too_deep_is_refused_as_invalid_json(
    tmp_path: Path, body: str
) -> None:
    async with serving(tmp_path) as client:
        status, answer = await post(client, "/api/estimate", body)
    assert status == 422 and answer["error"]["code"] == "invalid_json"


async def test_a_bearer_token_that_is_not_ascii_is_a_wrong_token(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        reader, writer = await asyncio.open_connection("127.0.0.1", client.port)
        writer.write(
            b"PUT /api/admin/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer \xff\xfe\xd0\xba\r\n"
            b"Content-Type: text/csv\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx"
        )
        status_line = await reader.readline()
        writer.close()
    assert status_line.split()[1] == b"403"


async def test_an_origin_matching_a_host_header_it_chose_is_not_same_site(tmp_path: Path) -> None:
    async with serving(tmp_path, cors_origins=("https://rent.example",)) as client:
        evil = await client.post(
            "/api/chat",
            json={"text": "hi"},
            headers={"Origin": "https://evil.example", "Host": "evil.example"},
        )
        refused = await evil.json()
        own_page = await client.post(
            "/api/chat", json={"text": "hi"}, headers={"Origin": f"http://127.0.0.1:{client.port}"}
        )
    assert evil.status == 403 and refused["error"]["code"] == "origin_not_allowed"
    assert own_page.status == 200  # the chat page this server serves, on an address no one can rebind


def _validator(model: str) -> Any:
    root = {"components": document()["components"], "$ref": f"#/components/schemas/{model}"}
    return jsonschema_rs.Draft202012Validator(root)


@pytest.mark.parametrize(
    ("model", "body"),
    [
        ("ChatRequest", {"text": None, "button": None}),
        ("ChatRequest", {}),
        ("ChatRequest", {"text": "hi", "button": "x"}),
        ("Workload", {"task": "train", "model": "llama-3-8b", "train_tokens": 0}),
        ("Workload", {"task": "infer", "model": "llama-3-8b", "ttft_ms_p99": 0}),
        ("Workload", {"task": "infer", "model": "llama-3-8b", "tpot_ms_p99": 0}),
        ("Workload", {"task": "train", "model": "llama-3-8b", "duration_hours": 0}),
    ],
)
async def test_what_the_server_refuses_the_openapi_document_refuses_too(
    tmp_path: Path, model: str, body: dict[str, Any]
) -> None:
    assert not _validator(model).is_valid(body)
    path = "/api/chat" if model == "ChatRequest" else "/api/estimate"
    async with serving(tmp_path) as client:
        status, _ = await post(client, path, body)
    assert status == 422


async def test_metrics_go_only_to_listed_addresses_or_the_admin_token_and_name_no_python_version(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path, metrics_from=("10.0.0.0/8",)) as client:
        stranger = await client.get("/metrics")
        operator = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        text = await operator.text()
    assert stranger.status == 401  # send the admin token
    assert operator.status == 200 and "gpu_advisor_turns" in text and "python_info" not in text
