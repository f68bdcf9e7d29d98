"""The job contract on its surfaces: ``gpu-advisor job`` (a real process) and ``POST /api/job``
(the real aiohttp app on a loopback server) take the same JSON, chosen by ``family``, and
answer with the same plan or the same error naming the field."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from gpu_advisor.bot.job_contract import JobAnswer
from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.openapi import document

SDXL_SERVICE = {"family": "image_gen", "model": "sdxl", "images_per_day": 20000}


def cli(payload: Any, *options: str) -> tuple[int, dict[str, Any]]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_advisor.bot.cli", "job", "--json", "-", *options],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    app = build_app(WebConfig(db_path=str(tmp_path / "web.db")))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


async def post_job(client: TestClient[Any, Any], body: Any, query: str = "") -> tuple[int, Any]:
    data = body if isinstance(body, str) else json.dumps(body)
    response = await client.post(f"/api/job{query}", data=data, headers={"Content-Type": "application/json"})
    return response.status, await response.json()


def test_the_cli_prices_an_image_service_and_says_why_in_chinese() -> None:
    code, out = cli(SDXL_SERVICE, "--say", "zh")
    answer = JobAnswer.model_validate(out)
    assert code == 0 and answer.plan.family == "image_gen" and answer.plan.pick is not None
    assert {m.id for m in answer.plan.pick.unit_costs} == {"per_1000_images"}
    assert any("张" in line for line in answer.text)


def test_the_cli_sizes_a_video_clip_with_its_minutes() -> None:
    code, out = cli({"family": "video_gen", "model": "wan2.1 14b", "width": 1280, "height": 720})
    metrics = {m["id"] for m in out["plan"]["pick"]["metrics"]}
    assert code == 0 and "minutes_per_clip" in metrics


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"family": "image_gen", "steps": 0}, "invalid_input", "image_gen.steps"),
        ({"family": "video_gen", "colour": "red"}, "invalid_input", "video_gen.colour"),
        ({"family": "video_gen", "guidance": 0}, "invalid_input", "video_gen.guidance"),
        ({"family": "image_gen", "steps": "30"}, "invalid_input", "image_gen.steps"),
        ({"family": "llm", "model": "llama-3-8b"}, "unknown_family", "family"),
        ({"model": "sdxl"}, "unknown_family", "family"),
        ("{not json", "invalid_json", None),
    ],
)
def test_the_cli_refuses_bad_requests_naming_the_field(body: Any, code: str, field: str | None) -> None:
    status, out = cli(body)
    assert status == 2 and out["error"]["code"] == code and out["error"]["field"] == field


async def test_the_api_answers_what_the_cli_prints(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post_job(client, SDXL_SERVICE, "?lang=en")
    _, printed = cli(SDXL_SERVICE, "--say", "en")
    assert status == 200 and body == printed


async def test_the_api_refuses_an_unknown_family_with_422_naming_it(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post_job(client, {"family": "llm"})
    assert status == 422 and body["error"]["field"] == "family" and "image_gen" in body["error"]["families"]


async def test_the_api_refuses_a_language_it_does_not_speak(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        status, body = await post_job(client, SDXL_SERVICE, "?lang=fr")
    assert status == 422 and body["error"]["field"] == "lang"


async def test_the_api_speaks_the_browsers_language_without_a_query(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        response = await client.post(
            "/api/job",
            data=json.dumps({"family": "image_train", "model": "sdxl"}),
            headers={"Content-Type": "application/json", "Accept-Language": "en-US"},
        )
        body = await response.json()
    assert response.status == 200 and body["lang"] == "en" and body["text"]


def test_the_openapi_document_describes_the_job_endpoint_and_every_family() -> None:
    doc = document()
    body = doc["components"]["schemas"]["JobRequestBody"]
    assert "/api/job" in doc["paths"] and body["discriminator"]["propertyName"] == "family"
    assert {"image_gen", "image_train", "video_gen"} <= set(body["discriminator"]["mapping"])
