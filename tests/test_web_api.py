"""The web surface over real HTTP on loopback: chat, the engine contract, CORS, limits, the operator catalog.

Every test runs the real aiohttp Application on 127.0.0.1 (``TestServer``) and talks to it
with a real client; nothing of ours is mocked. The schemathesis test at the end holds the
live server to its own OpenAPI document.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, settings

from gpu_advisor.bot import cli
from gpu_advisor.bot.web import WebConfig, build_app
from gpu_advisor.bot.web.context import CONTEXT
from gpu_advisor.bot.web.openapi import document
from gpu_advisor.bot.web.run import add_web_command, config_from
from gpu_advisor.engine.results import Plan
from gpu_advisor.knowledge import CatalogError

try:
    import schemathesis
except ImportError:  # reported by test_schemathesis_is_installed
    schemathesis = None  # type: ignore[assignment]

SITE = "https://rent.example"
TOKEN = "s3cret-admin-token-for-tests-0123456789"  # 32+ characters, as the server requires
QUESTION = "我想部署一个13B的模型"
COLUMNS = "id,gpu,count,interconnect,price_month,price_hour,currency,yearly_discount,min_rental_hours"
CSV_CATALOG = f"""{COLUMNS},order_url,source
t4-cheap,t4,1,none,500,,CNY,0.1,720,https://rent.example/order/t4-cheap,our list 2026-12
a100-one,a100-80g-sxm,1,none,6000,,CNY,,,https://rent.example/order/a100-one,our list 2026-12
h100-eight,h100-sxm,8,nvswitch,,180,CNY,,1,https://rent.example/order/h100-eight,
"""
YAML_CATALOG = """operator: Example Cloud
currency: CNY
offers:
  - id: l4-one
    gpu: l4
    count: 1
    interconnect: none
    price_month: 700
    order_url: https://rent.example/order/l4-one
    source: example price list
  - id: h100-eight
    gpu: h100-sxm
    count: 8
    interconnect: nvswitch
    price_month: 150000
    order_url: https://rent.example/order/h100-eight
    source: example price list
"""


@asynccontextmanager
async def serving(
    tmp_path: Path, **overrides: Any
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    settings_ = {
        "db_path": str(tmp_path / "web.db"),
        "cors_origins": (SITE,),
        "admin_token": TOKEN,
        **overrides,
    }
    app = build_app(WebConfig(**settings_))
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        yield client


async def post(client: TestClient[Any, Any], path: str, body: Any, **kw: Any) -> tuple[int, Any]:
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    response = await client.post(path, data=data, headers={"Content-Type": "application/json"}, **kw)
    assert response.content_type == "application/json"
    return response.status, await response.json()


async def upload(client: TestClient[Any, Any], body: str, kind: str, token: str | None = TOKEN) -> Any:
    headers = {"Content-Type": kind, **({"Authorization": f"Bearer {token}"} if token else {})}
    return await client.put("/api/admin/catalog", data=body.encode(), headers=headers)


# --- chat ---------------------------------------------------------------------------
async def test_chinese_question_reaches_a_priced_recommendation_within_three_turns_via_buttons(
    tmp_path: Path,
) -> None:
    async with serving(tmp_path) as client:
        status, reply = await post(client, "/api/chat", {"text": QUESTION, "lang": "zh"})
        assert status == 200 and reply["kind"] == "question" and reply["buttons"]
        session, turns = reply["session_id"], 1
        while reply["kind"] != "answer" and turns < 3:
            button = reply["buttons"][0]["payload"]
            status, reply = await post(client, "/api/chat", {"session_id": session, "button": button})
            assert status == 200 and reply["session_id"] == session
            turns += 1
    assert reply["kind"] == "answer" and "¥" in reply["text"] and "推荐" in reply["text"]
    assert reply["lang"] == "zh" and reply["requirements"]["task"] == "infer"
    assert set(reply) >= {"session_id", "text", "buttons", "lang", "requirements", "plan"}
    assert reply["plan"]["recommendation"]["cost"]["currency"] == "CNY"


async def test_conversation_survives_a_server_restart_on_the_same_database(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        _, first = await post(client, "/api/chat", {"text": QUESTION})
    async with serving(tmp_path) as client:  # a new process would open the same file
        _, second = await post(
            client, "/api/chat", {"session_id": first["session_id"], "button": first["buttons"][0]["payload"]}
        )
    assert second["kind"] in ("question", "answer") and "stale" not in second["text"]
    assert second["requirements"]["params_b"] == 13.0 and second["requirements"]["concurrency"] == 4


async def test_sessions_are_random_and_a_malformed_session_id_is_refused(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        _, a = await post(client, "/api/chat", {"text": "hello"})
        _, b = await post(client, "/api/chat", {"text": "hello"})
        status, bad = await post(client, "/api/chat", {"session_id": "../../etc", "text": "hi"})
        both_status, both = await post(client, "/api/chat", {"text": "hi", "button": "/start"})
    assert a["session_id"] != b["session_id"] and len(a["session_id"]) >= 16
    assert status == 422 and bad["error"]["field"] == "session_id"
    assert both_status == 422 and both["error"]["field"] == "text"


async def test_english_site_language_is_used_for_the_first_turn(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        _, reply = await post(client, "/api/chat", {"button": "/start", "lang": "en"})
    assert reply["lang"] == "en" and reply["kind"] == "question" and reply["buttons"]


# --- the engine contract ------------------------------------------------------------
def cli_output(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, body: str) -> Any:
    path = tmp_path / "workload.json"
    path.write_text(body, encoding="utf-8")
    cli.main([command, "--json", str(path)])
    return json.loads(capsys.readouterr().out)


async def test_estimate_and_recommend_return_what_the_cli_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workload = json.dumps({"task": "infer", "model": "llama-2-13b", "concurrency": 8, "always_on": True})
    async with serving(tmp_path) as client:
        e_status, estimate = await post(client, "/api/estimate", workload)
        r_status, plan = await post(client, "/api/recommend", workload)
    assert e_status == 200 and estimate == cli_output(capsys, tmp_path, "estimate", workload)
    assert r_status == 200
    expected = cli_output(capsys, tmp_path, "recommend", workload)
    assert plan["recommendation"]["order_url"] is None  # the shipped catalog has no order pages
    assert plan == expected  # order_url is the engine's, so the CLI prints it too
    Plan.model_validate(plan)


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"task": "infer", "params_b": "13"}, "params_b", "invalid_input"),  # no "13" → 13 coercion
        ({"task": "infer"}, "model", "invalid_input"),
        ({"task": "infer", "model": "llama-2-13b", "concurrency": 0}, "concurrency", "invalid_input"),
        ({"task": "infer", "model": "llama-2-13b", "colour": "red"}, "colour", "invalid_input"),
        ({"task": "infer", "model": "no-such-model"}, "model", "unknown_model"),
        ("{not json", None, "invalid_json"),
        ("[1, 2]", None, "invalid_json"),
    ],
)
async def test_bad_workloads_get_422_with_the_clis_error_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: Any, field: str | None, code: str
) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    async with serving(tmp_path) as client:
        for path in ("/api/estimate", "/api/recommend"):
            status, out = await post(client, path, text)
            assert status == 422, path
            assert out["error"]["code"] == code and out["error"]["field"] == field
    assert out == cli_output(capsys, tmp_path, "recommend", text)


async def test_analyze_reads_a_sheet_and_names_a_missing_text_field(tmp_path: Path) -> None:
    sheet = "GPU: 8x NVIDIA A100 SXM4 80GB, NVLink\nCPU: 2x AMD EPYC 7763\n内存: 1TB DDR4"
    async with serving(tmp_path) as client:
        status, analysis = await post(client, "/api/analyze", {"text": sheet})
        bad_status, bad = await post(client, "/api/analyze", {"sheet": sheet})
    assert status == 200 and analysis["parsed"]["gpu_count"] == 8 and analysis["verdict"]
    assert bad_status == 422 and {e["field"] for e in bad["error"]["errors"]} == {"text", "sheet"}


async def test_unknown_paths_and_wrong_methods_get_json_errors(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        missing = await client.get("/api/nothing-here")
        wrong = await client.get("/api/chat")
        missing_body, wrong_body = await missing.json(), await wrong.json()
    assert missing.status == 404 and missing_body["error"]["code"] == "not_found"
    assert wrong.status == 405 and wrong_body["error"]["code"] == "method_not_allowed"
    assert wrong.headers["Allow"] == "POST"


# --- CORS, limits -------------------------------------------------------------------
async def test_only_listed_origins_get_cors_headers_and_preflight(tmp_path: Path) -> None:
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    async with serving(tmp_path) as client:
        ok = await client.options("/api/chat", headers={"Origin": SITE, **preflight})
        refused = await client.options("/api/chat", headers={"Origin": "https://evil.example", **preflight})
        allowed = await client.post("/api/chat", json={"text": "hi"}, headers={"Origin": SITE})
        evil = await client.post("/api/chat", json={"text": "hi"}, headers={"Origin": "https://evil.example"})
        own = await client.post(
            "/api/chat", json={"text": "hi"}, headers={"Origin": f"http://{client.host}:{client.port}"}
        )
        evil_body = await evil.json()
    assert ok.status == 204 and ok.headers["Access-Control-Allow-Origin"] == SITE
    assert "POST" in ok.headers["Access-Control-Allow-Methods"]
    assert "content-type" in ok.headers["Access-Control-Allow-Headers"].lower()
    assert refused.status == 403 and "Access-Control-Allow-Origin" not in refused.headers
    assert allowed.status == 200 and allowed.headers["Access-Control-Allow-Origin"] == SITE
    assert "Origin" in allowed.headers["Vary"]
    assert evil.status == 403 and evil_body["error"]["code"] == "origin_not_allowed"
    assert "Access-Control-Allow-Origin" not in evil.headers
    assert own.status == 200 and "Access-Control-Allow-Origin" not in own.headers  # the chat page at /


async def test_one_conversation_is_rate_limited_with_retry_after(tmp_path: Path) -> None:
    async with serving(tmp_path, session_per_minute=2) as client:
        _, first = await post(client, "/api/chat", {"text": "hi"})
        session = first["session_id"]
        await post(client, "/api/chat", {"session_id": session, "text": "hi"})
        response = await client.post("/api/chat", json={"session_id": session, "text": "hi"})
        other_status, _ = await post(client, "/api/chat", {"text": "hi"})  # another conversation is fine
        body = await response.json()
    assert response.status == 429 and int(response.headers["Retry-After"]) > 0
    assert body["error"]["code"] == "rate_limited" and body["error"]["retry_after"] > 0
    assert other_status == 200


async def test_a_throttled_unknown_session_is_refused_before_it_counts_as_a_new_one(tmp_path: Path) -> None:
    session = secrets.token_urlsafe(18)  # a session id this server has never stored
    async with serving(tmp_path, session_per_minute=1, sessions_per_ip_per_hour=1) as client:
        ctx = client.app[CONTEXT]
        assert ctx.per_session.allow((session, session))  # its one message a minute is spent
        status, body = await post(client, "/api/chat", {"session_id": session, "text": "hi"})
        assert status == 429 and "conversation" in body["error"]["message"]
        fresh, _ = await post(client, "/api/chat", {"text": "hi"})
        assert fresh == 200  # the address's one new conversation an hour was not used up


async def test_one_address_is_rate_limited_across_endpoints(tmp_path: Path) -> None:
    async with serving(tmp_path, ip_per_minute=3) as client:
        statuses = [(await client.get("/api/catalog")).status for _ in range(3)]
        limited = await client.post("/api/estimate", json={"task": "infer", "model": "llama-2-7b"})
        page = await client.get("/widget.js")  # the script itself is never limited
    assert statuses == [200, 200, 200] and limited.status == 429 and "Retry-After" in limited.headers
    assert page.status == 200


async def test_oversized_bodies_get_413_even_without_a_content_length(tmp_path: Path) -> None:
    big = json.dumps({"text": "x" * (70 * 1024)})

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(big), 4096):
            yield big[i : i + 4096].encode()

    async with serving(tmp_path) as client:
        sized = await client.post("/api/chat", data=big, headers={"Content-Type": "application/json"})
        chunked = await client.post(
            "/api/analyze", data=chunks(), headers={"Content-Type": "application/json"}
        )
        sized_body, chunked_body = await sized.json(), await chunked.json()
    assert sized.status == 413 and sized_body["error"]["code"] == "body_too_large"
    assert chunked.status == 413 and chunked_body["error"]["code"] == "body_too_large"


# --- the operator catalog -----------------------------------------------------------
async def test_admin_upload_needs_the_bearer_token(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        anonymous = await upload(client, CSV_CATALOG, "text/csv", token=None)
        wrong = await upload(client, CSV_CATALOG, "text/csv", token="guess")
        catalog = await (await client.get("/api/catalog")).json()
    async with serving(tmp_path, admin_token=None) as client:
        disabled = await upload(client, CSV_CATALOG, "text/csv", token="anything")
    assert anonymous.status == 401 and anonymous.headers["WWW-Authenticate"].startswith("Bearer")
    assert wrong.status == 403 and disabled.status == 403
    assert catalog["operator"].startswith("default")  # nothing changed


async def test_csv_upload_replaces_the_catalog_and_plans_link_to_order_pages(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        response = await upload(client, CSV_CATALOG, "text/csv")
        accepted = await response.json()
        catalog = await (await client.get("/api/catalog")).json()
        _, plan = await post(client, "/api/recommend", {"task": "infer", "model": "llama-2-7b"})
        _, reply = await post(client, "/api/chat", {"text": "部署 13B 聊天机器人，并发 8，7×24"})
    assert response.status == 200 and accepted == {"operator": "operator catalog", "offers": 3}
    assert [o["id"] for o in catalog["offers"]] == ["t4-cheap", "a100-one", "h100-eight"]
    assert catalog["offers"][2]["source"] and catalog["offers"][2]["price_hour"] == 180
    pick = plan["recommendation"]
    assert pick["offer"] in {"t4-cheap", "a100-one"}
    assert pick["order_url"] == f"https://rent.example/order/{pick['offer']}"
    assert all(o["order_url"].endswith(o["offer"]) for o in plan["alternatives"])
    answer = reply["plan"]["recommendation"]
    assert reply["kind"] == "answer" and answer["order_url"].endswith(answer["offer"])


async def test_yaml_upload_replaces_the_catalog(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        response = await upload(client, YAML_CATALOG, "application/yaml")
        accepted = await response.json()
        _, plan = await post(client, "/api/recommend", {"task": "infer", "model": "llama-2-7b"})
    assert response.status == 200 and accepted["operator"] == "Example Cloud"
    assert plan["recommendation"]["order_url"] == "https://rent.example/order/l4-one"


@pytest.mark.parametrize(
    ("body", "kind", "row", "field"),
    [
        (CSV_CATALOG.replace(",6000,", ",six thousand,"), "text/csv", 2, "price_month"),
        (CSV_CATALOG.replace("a100-80g-sxm", "a100-90g"), "text/csv", 2, "gpu"),
        (
            CSV_CATALOG.replace("https://rent.example/order/t4-cheap", "javascript:alert(1)"),
            "text/csv",
            1,
            "order_url",
        ),
        (CSV_CATALOG.replace("h100-eight,h100-sxm", "t4-cheap,h100-sxm"), "text/csv", 3, "id"),
        ("gpu,count,price_month\nt4,1,900\n", "text/csv", None, "interconnect"),
        (YAML_CATALOG.replace("count: 8", "count: -8"), "application/yaml", 2, "count"),
        (YAML_CATALOG.replace("operator: Example Cloud\n", ""), "application/yaml", None, "operator"),
    ],
)
async def test_a_bad_catalog_is_rejected_naming_row_and_field_and_the_old_one_stays(
    tmp_path: Path, body: str, kind: str, row: int | None, field: str
) -> None:
    async with serving(tmp_path) as client:
        await upload(client, YAML_CATALOG, "application/yaml")
        response = await upload(client, body, kind)
        error = (await response.json())["error"]
        catalog = await (await client.get("/api/catalog")).json()
    assert response.status == 422 and error["code"] == "bad_catalog"
    assert error["row"] == row and error["field"] == field, error
    assert catalog["operator"] == "Example Cloud" and len(catalog["offers"]) == 2


async def test_catalog_upload_of_another_media_type_is_refused(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        response = await upload(client, CSV_CATALOG, "application/vnd.ms-excel")
        body = await response.json()
    assert response.status == 415 and body["error"]["field"] == "Content-Type"


async def test_a_csv_catalog_given_at_startup_is_active(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(CSV_CATALOG, encoding="utf-8")
    async with serving(tmp_path, catalog=str(path)) as client:
        catalog = await (await client.get("/api/catalog")).json()
    assert catalog["operator"] == "prices" and len(catalog["offers"]) == 3
    path.write_text(CSV_CATALOG.replace(",500,", ",-5,"), encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        build_app(WebConfig(db_path=str(tmp_path / "x.db"), catalog=str(path)))
    assert caught.value.payload["error"]["row"] == 1
    assert caught.value.payload["error"]["field"] == "price_month"


# --- pages, document, command line --------------------------------------------------
async def test_widget_and_page_are_served_with_their_words_filled_in(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        script = await client.get("/widget.js")
        page = await client.get("/")
        js, html = await script.text(), await page.text()
    assert script.content_type == "text/javascript" and "/*UI*/" not in js and "\\u7b97\\u529b" in js
    assert "innerHTML" not in js and "textContent" in js
    assert page.content_type == "text/html" and 'name="viewport"' in html and "widget.js" in html
    assert f"frame-ancestors 'self' {SITE}" in page.headers["Content-Security-Policy"]


async def test_the_widget_carries_the_operators_human_link_and_plans_carry_the_order_label(
    tmp_path: Path,
) -> None:
    catalog = tmp_path / "prices.csv"
    catalog.write_text(
        "id,gpu,count,interconnect,price_month,order_url,order_label,source\n"
        "t4-one,t4,1,none,900,https://rent.example/o/t4,立即租用,our list 2026-12\n"
        "3090-one,rtx3090,1,none,1750,https://rent.example/o/3090,立即租用,our list 2026-12\n",
        encoding="utf-8",
    )
    human = "https://rent.example/help?from=<advisor>"
    async with serving(tmp_path, human_url=human, catalog=str(catalog)) as client:
        js = await (await client.get("/widget.js")).text()
        _, answer = await post(
            client, "/api/chat", {"text": "部署 13B 聊天机器人，并发 8，7×24", "lang": "zh"}
        )
    assert '{"human_url": "https://rent.example/help?from=\\u003cadvisor>"}' in js  # no "<" in the script
    assert "/*CONFIG*/" not in js
    assert answer["plan"]["recommendation"]["order_label"] == "立即租用"


def test_readme_shows_the_phone_screenshot_the_browser_test_draws() -> None:
    root = Path(__file__).resolve().parents[1]
    shot = root / "docs" / "widget-phone.png"  # written by tests/test_web_e2e.py
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert 'src="docs/widget-phone.png"' in (root / "README.md").read_text(encoding="utf-8")


def test_a_human_link_that_is_not_a_web_or_mail_address_is_refused() -> None:
    with pytest.raises(ValueError, match="not an https:, http: or mailto: URL"):
        WebConfig(human_url="javascript:alert(1)")
    assert WebConfig(human_url="mailto:sales@rent.example").human_url == "mailto:sales@rent.example"


async def test_openapi_document_lists_every_api_route(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        served = await (await client.get("/openapi.json")).json()
        routes = {r.resource.canonical for r in client.server.app.router.routes() if r.resource is not None}
    assert served == document() and served["openapi"].startswith("3.1")
    assert set(served["paths"]) == {path for path in routes if path.startswith("/api/")}
    assert {"/api/chat", "/api/quote", "/api/chat/chart", "/api/chat/forget"} <= set(served["paths"])
    assert "order_url" in served["components"]["schemas"]["Option"]["properties"]


def test_web_command_flags_become_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--catalog")
    add_web_command(parser.add_subparsers(dest="command"))
    monkeypatch.setenv("SITE_TOKEN", "t" * 32)
    flags = "--catalog ops.csv web --port 9000 --db w.db --cors-origin https://A.example/"
    flags += " --cors-origin https://b.example --admin-token-env SITE_TOKEN"
    config = config_from(parser.parse_args(flags.split()))
    assert (config.host, config.port, config.db_path, config.catalog) == (
        "127.0.0.1",
        9000,
        "w.db",
        "ops.csv",
    )
    assert config.cors_origins == ("https://a.example", "https://b.example")
    assert config.admin_token == "t" * 32
    assert config_from(parser.parse_args(["web", "--catalog", "mine.yaml"])).catalog == "mine.yaml"
    assert config.human_url is None
    human = config_from(parser.parse_args(["web", "--human-url", "https://rent.example/help"]))
    assert human.human_url == "https://rent.example/help"
    with pytest.raises(SystemExit, match="--human-url"):
        config_from(parser.parse_args(["web", "--human-url", "javascript:alert(1)"]))


# --- schemathesis against the live server -------------------------------------------
class ThreadedServer:
    """The app on its own event loop in a thread, for synchronous clients (schemathesis uses requests)."""

    def __init__(self, config: WebConfig) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.url = ""
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        runner = web.AppRunner(build_app(self.config))
        self.loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        host, port = runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        self.ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(runner.cleanup())
        self.loop.close()

    def __enter__(self) -> str:
        self.thread.start()
        assert self.ready.wait(30), "server did not start"
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("live") / "web.db"
    config = WebConfig(
        db_path=str(db),
        admin_token=TOKEN,
        ip_per_minute=100_000,
        session_per_minute=100_000,
        sessions_per_ip_per_hour=100_000,
    )
    with ThreadedServer(config) as url:
        yield url


def test_schemathesis_is_installed() -> None:
    if schemathesis is None:
        pytest.skip("schemathesis is not installed (pip install schemathesis): OpenAPI fuzzing skipped")


if schemathesis is not None:
    from schemathesis.specs.openapi.checks import positive_data_acceptance

    SCHEMA = schemathesis.openapi.from_dict(document())

    @SCHEMA.parametrize()
    @settings(
        max_examples=int(os.environ.get("FUZZ_EXAMPLES", "30")),  # `make fuzz` raises it
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    def test_live_api_has_no_5xx_and_matches_its_openapi_document(case: Any, live_url: str) -> None:
        # A schema-valid Workload may still name a model the knowledge base does not have (422 by
        # design, naming the field), so "every valid body gets a 2xx" does not hold here.
        case.call_and_validate(base_url=live_url, excluded_checks=[positive_data_acceptance])
