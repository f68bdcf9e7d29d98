"""``gpu-advisor quote``: the quote verdict or the ownership comparison as JSON, words or a chart."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gpu_advisor.bot import cli

SERVE_72B = {"task": "infer", "model": "qwen2.5-72b", "qps": 2}
H100_SERVICE = {"task": "infer", "model": "deepseek-v3", "qps": 1, "gpu": "h100", "gpu_count": 8}


def quote(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], workload: object, *args: str
) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(workload)))
    code = cli.main(["quote", "--json", "-", *args])
    return code, capsys.readouterr().out


def test_the_quote_command_prints_the_verdict_as_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = quote(monkeypatch, capsys, SERVE_72B, "H100 整机每小时 ¥180 或包月 ¥9 万")
    body = json.loads(out)
    assert (
        code == 0
        and body["billing"]["break_even_hours_month"] == 500
        and body["billing"]["cheapest"] == "month"
    )


def test_the_quote_command_says_the_answer_in_words(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = quote(
        monkeypatch, capsys, SERVE_72B, "--say", "en", "--hours", "300", "H100 整机每小时 ¥180 或包月 ¥9 万"
    )
    assert code == 0 and "by the hour CN¥54,000 (300 h × CN¥180)" in out and "cheapest: by the hour" in out


def test_text_without_a_quote_exits_2_naming_the_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = quote(monkeypatch, capsys, SERVE_72B, "便宜点")
    assert code == 2 and json.loads(out)["error"]["field"] == "text"


def test_own_compares_buying_and_draws_the_chart(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    png = tmp_path / "own.png"
    code, out = quote(monkeypatch, capsys, H100_SERVICE, "--own", "--chart", str(png), "电费 0.6 元一度")
    body = json.loads(out)
    assert code == 0 and body["break_even_months"] == pytest.approx(26.1, abs=0.05)
    assert png.read_bytes().startswith(b"\x89PNG")


def test_own_in_usd_says_every_amount_in_usd(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = quote(
        monkeypatch, capsys, H100_SERVICE, "--own", "--currency", "usd", "electricity $0.12/kwh"
    )
    body = json.loads(out)
    assert code == 0 and body["currency"] == "USD"
    assert body["buy"]["price"] == 270_000  # the DGX row as quoted, no round trip through CNY
    assert body["rent_monthly"] == pytest.approx(80_000 / 7.1884, abs=0.01)
