"""Charts: real PNGs of the plan, Chinese drawn with real glyphs, and the ``chart`` subcommand."""

from __future__ import annotations

import argparse
import io
import json
import logging
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.patches import Rectangle
from PIL import Image

from gpu_advisor import locales
from gpu_advisor.bot.charts import KINDS, fonts, plan_chart, render_plan_png, size_px
from gpu_advisor.bot.charts.cli import add_chart_command
from gpu_advisor.bot.charts.cost import draw_cost
from gpu_advisor.bot.charts.speed import draw_speed
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.results import Cost, Plan
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SERVE_8B = {"task": "infer", "model": "llama-3-8b", "concurrency": 16}
# 10T parameters: more than the largest pipeline (four 8-GPU machines) of any offer holds.
NOTHING_FITS = {"task": "infer", "params_b": 10000}
TRAIN_13B = {"task": "train", "params_b": 13, "method": "full", "train_tokens": 1e8}


def plan_for(data: dict[str, object], kb: Knowledge) -> Plan:
    return recommend(Workload.model_validate(data), kb)


@pytest.fixture(scope="module")
def serve_plan(kb: Knowledge) -> Plan:
    return plan_for(SERVE_8B, kb)


def pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as img:
        return np.asarray(img.convert("RGB"))


def ink(png: bytes) -> float:
    """Share of pixels that are not (near-)white."""
    return float((pixels(png).min(axis=2) < 240).mean())


def zh_chart_chars() -> set[str]:
    """Every CJK character (and full-width punctuation) in the Chinese chart templates."""
    text = "".join(v for k, v in locales.messages("zh").items() if k.startswith("chart."))
    return {ch for ch in text if ord(ch) >= 0x2E80}


def missing_glyph_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lang", locales.LANGS)
def test_serving_plan_renders_a_png_of_the_documented_size(
    serve_plan: Plan, kb: Knowledge, kind: str, lang: str
) -> None:
    png = render_plan_png(serve_plan, lang, kind, kb.catalog.fx_to_cny)
    assert png.startswith(PNG_SIGNATURE)
    height, width, _ = pixels(png).shape
    assert (width, height) == size_px(kind)
    assert size_px("memory") == (1000, 700)


def test_chart_is_not_blank(serve_plan: Plan, kb: Knowledge) -> None:
    png = render_plan_png(serve_plan, "zh", "all", kb.catalog.fx_to_cny)
    rgb = pixels(png).astype(np.uint32)
    distinct = len(np.unique((rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]))
    assert distinct > 200  # bars, lines, anti-aliased text
    assert 0.05 < ink(png) < 0.8


def test_training_plan_charts_training_speed_per_option(kb: Knowledge) -> None:
    plan = plan_for(TRAIN_13B, kb)
    assert plan.recommendation is not None and plan.recommendation.tokens_per_s
    png = render_plan_png(plan, "en", "speed", kb.catalog.fx_to_cny)
    assert png.startswith(PNG_SIGNATURE) and ink(png) > 0.03


def test_plan_where_nothing_fits_still_renders_an_explanation(kb: Knowledge) -> None:
    plan = plan_for(NOTHING_FITS, kb)
    assert plan.status == "no_fit"
    png = render_plan_png(plan, "zh", "all", kb.catalog.fx_to_cny)
    assert png.startswith(PNG_SIGNATURE) and ink(png) > 0.001


def test_unknown_kind_or_language_is_rejected(serve_plan: Plan, kb: Knowledge) -> None:
    with pytest.raises(ValueError, match="kind"):
        render_plan_png(serve_plan, "zh", "pie", kb.catalog.fx_to_cny)
    with pytest.raises(ValueError, match="language"):
        render_plan_png(serve_plan, "fr", "memory", kb.catalog.fx_to_cny)


def test_speed_panel_draws_the_engines_curve_and_says_so_when_there_is_none(
    serve_plan: Plan, kb: Knowledge
) -> None:
    without = serve_plan.model_copy(update={"serving_curve": []})
    drawn = render_plan_png(serve_plan, "en", "speed", kb.catalog.fx_to_cny)
    empty = render_plan_png(without, "en", "speed", kb.catalog.fx_to_cny)
    assert serve_plan.serving_curve and ink(drawn) > 2 * ink(empty) > 0


def test_plan_chart_is_the_three_panel_picture_or_nothing_without_a_pick(
    serve_plan: Plan, kb: Knowledge
) -> None:
    png = plan_chart(serve_plan, "zh", kb.catalog.fx_to_cny)
    assert png is not None and png.startswith(PNG_SIGNATURE)
    height, width, _ = pixels(png).shape
    assert (width, height) == size_px("all")
    assert plan_chart(plan_for(NOTHING_FITS, kb), "zh") is None
    assert plan_chart(None, "zh") is None


def test_packaged_cjk_font_is_registered_and_has_every_chinese_glyph_the_charts_use() -> None:
    chosen = fonts.chart_font()
    assert chosen.path is not None and chosen.path == fonts.packaged_font()
    assert fonts.family()[0] == chosen.name and "CJK" in chosen.name
    face = FT2Font(str(chosen.path))
    chars = zh_chart_chars()
    assert len(chars) > 30
    missing = sorted(ch for ch in chars if face.get_char_index(ord(ch)) == 0)
    assert missing == []


def render_text(text: str, family: list[str]) -> tuple[bytes, list[str]]:
    fig = Figure(figsize=(6, 1), dpi=100)
    FigureCanvasAgg(fig)
    fig.text(0.02, 0.5, text, fontsize=24, fontfamily=family, va="center")
    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(buf, format="png")
    return buf.getvalue(), missing_glyph_warnings(caught)


def test_chinese_title_renders_as_glyphs_not_boxes() -> None:
    title = locales.t("zh", "chart.title.memory")
    real, real_missing = render_text(title, fonts.family())
    tofu, tofu_missing = render_text(title, ["DejaVu Sans"])
    assert real_missing == []
    assert tofu_missing, "DejaVu Sans should lack these glyphs (else this test proves nothing)"
    assert not np.array_equal(pixels(real), pixels(tofu))


def test_different_chinese_words_look_different_unlike_missing_glyph_boxes() -> None:
    # Every missing glyph is the same box, so two different words of equal length render
    # identically in a font without CJK glyphs; with real glyphs they must differ.
    a, b = "每卡显存", "月租对比"
    assert not np.array_equal(
        pixels(render_text(a, fonts.family())[0]), pixels(render_text(b, fonts.family())[0])
    )
    tofu_a, tofu_b = render_text(a, ["DejaVu Sans"])[0], render_text(b, ["DejaVu Sans"])[0]
    assert np.array_equal(pixels(tofu_a), pixels(tofu_b))


def test_whole_chinese_chart_draws_without_missing_glyphs(serve_plan: Plan, kb: Knowledge) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_plan_png(serve_plan, "zh", "all", kb.catalog.fx_to_cny)
    assert missing_glyph_warnings(caught) == []


def test_without_the_font_package_falls_back_and_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(fonts, "packaged_font", lambda: None)
    monkeypatch.setattr(fonts, "_installed_cjk_font", lambda: None)
    with caplog.at_level(logging.WARNING, logger=fonts.__name__):
        chosen = fonts.choose_font()
    assert chosen == fonts.ChartFont(fonts.LATIN_FALLBACK, None)
    assert any("Chinese" in r.getMessage() for r in caplog.records)


def test_renders_from_several_threads_give_the_same_image(serve_plan: Plan, kb: Knowledge) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        rates = kb.catalog.fx_to_cny
        images = list(pool.map(lambda lang: render_plan_png(serve_plan, lang, "cost", rates), ["zh", "zh"]))
    assert images[0] == images[1]


def test_chart_templates_have_the_same_keys_in_both_languages() -> None:
    zh = {k for k in locales.messages("zh") if k.startswith("chart.")}
    en = {k for k in locales.messages("en") if k.startswith("chart.")}
    assert zh == en and len(zh) > 20


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gpu-advisor")
    parser.add_argument("--catalog")
    sub = parser.add_subparsers(dest="command", required=True)
    add_chart_command(sub)
    args = parser.parse_args(argv)
    return int(args.func(args))


def test_chart_command_writes_the_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "workload.json"
    source.write_text(json.dumps(SERVE_8B), encoding="utf-8")
    out = tmp_path / "plan.png"
    code = run_cli(["chart", "--json", str(source), "-o", str(out), "--kind", "memory", "--lang", "en"])
    assert code == 0
    assert out.read_bytes().startswith(PNG_SIGNATURE)
    assert json.loads(capsys.readouterr().out) == {"chart": str(out), "kind": "memory", "status": "ok"}


def test_chart_command_rejects_bad_json_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "broken.json"
    source.write_text("{not json", encoding="utf-8")
    out = tmp_path / "plan.png"
    assert run_cli(["chart", "--json", str(source), "-o", str(out)]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_json"
    assert not out.exists()


def test_chart_command_names_the_unknown_model_like_recommend_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "workload.json"
    source.write_text(json.dumps({"task": "infer", "model": "no-such-model"}), encoding="utf-8")
    assert run_cli(["chart", "--json", str(source), "-o", str(tmp_path / "x.png")]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "unknown_model" and error["field"] == "model"


SERVE_3_DAYS = {"task": "infer", "params_b": 13, "concurrency": 8, "duration_hours": 72}


def _panel(draw: Callable[[Axes], None]) -> Axes:
    fig = Figure()
    ax = fig.add_subplot()
    draw(ax)
    return ax


def _texts(ax: Axes) -> list[str]:
    return [t.get_text() for a in ax.figure.axes for t in a.texts]


def test_cost_panel_draws_the_budget_line_at_the_budget(serve_plan: Plan, kb: Knowledge) -> None:
    budget = Cost(amount=1500, currency="CNY", per="month")
    ax = _panel(lambda ax: draw_cost(ax, serve_plan, "zh", dict(kb.catalog.fx_to_cny), budget))
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [np.asarray(line.get_xdata())[0] for line in dashed] == [1500]
    assert any("预算 ¥1,500" in t for t in _texts(ax))


def test_an_hourly_budget_is_drawn_at_the_engines_720_hours_a_month(serve_plan: Plan, kb: Knowledge) -> None:
    """The bars are the engine's monthly costs (engine.cost.HOURS_PER_MONTH = 720), so is the line."""
    budget = Cost(amount=10, currency="CNY", per="hour")
    ax = _panel(lambda ax: draw_cost(ax, serve_plan, "zh", dict(kb.catalog.fx_to_cny), budget))
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert [np.asarray(line.get_xdata())[0] for line in dashed] == [7200]


def test_cost_panel_without_a_budget_has_no_budget_line(serve_plan: Plan, kb: Knowledge) -> None:
    ax = _panel(lambda ax: draw_cost(ax, serve_plan, "zh", dict(kb.catalog.fx_to_cny)))
    assert not [line for line in ax.lines if line.get_linestyle() == "--"]


def test_cost_panel_charts_a_one_off_job_as_its_job_cost_not_a_month(kb: Knowledge) -> None:
    plan = plan_for(SERVE_3_DAYS, kb)
    pick = plan.recommendation
    assert pick is not None and pick.job_cost is not None
    ax = _panel(lambda ax: draw_cost(ax, plan, "en", dict(kb.catalog.fx_to_cny)))
    assert ax.get_title(loc="left") == locales.t("en", "chart.title.cost_job")
    bar = ax.patches[0]
    assert isinstance(bar, Rectangle) and bar.get_width() == pytest.approx(pick.job_cost.amount)
    assert not any("/mo" in t for t in _texts(ax))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_speed_panel_titles_both_y_axes(serve_plan: Plan, lang: str) -> None:
    ax = _panel(lambda ax: draw_speed(ax, serve_plan, lang))
    left, right = ax.figure.axes
    assert left.get_ylabel() == locales.t(lang, "chart.axis.per_stream")
    assert right.get_ylabel() == locales.t(lang, "chart.axis.aggregate")


# --- issue 41: a picture is drawn once per plan and words, and written without Pillow ------------
def counting_renderer(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``plan_chart``'s drawing replaced by a cheap stand-in that records each call."""
    from gpu_advisor.bot.charts import render

    drawn: list[str] = []

    def draw(plan: Plan, lang: str, kind: str, fx: object, budget: Cost | None, traditional: bool) -> bytes:
        drawn.append(lang)
        return PNG_SIGNATURE + str(len(drawn)).encode()

    render._cache.clear()
    monkeypatch.setattr(render, "render_plan_png", draw)
    return drawn


def test_the_same_plan_in_the_same_words_is_drawn_once(
    serve_plan: Plan, kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = counting_renderer(monkeypatch)
    first = plan_chart(serve_plan, "zh", kb.catalog.fx_to_cny)
    again = plan_chart(serve_plan.model_copy(), "zh", kb.catalog.fx_to_cny)  # an equal plan, another object
    english = plan_chart(serve_plan, "en", kb.catalog.fx_to_cny)
    assert first == again != english
    assert drawn == ["zh", "en"]


def test_a_different_budget_is_a_different_picture(
    serve_plan: Plan, kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = counting_renderer(monkeypatch)
    plan_chart(serve_plan, "zh", kb.catalog.fx_to_cny, Cost(amount=1000, currency="CNY", per="month"))
    plan_chart(serve_plan, "zh", kb.catalog.fx_to_cny, Cost(amount=2000, currency="CNY", per="month"))
    assert len(drawn) == 2


def test_the_kept_pictures_are_bounded(
    serve_plan: Plan, kb: Knowledge, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpu_advisor.bot.charts import render

    counting_renderer(monkeypatch)
    for amount in range(render.CACHED + 10):
        plan_chart(
            serve_plan, "zh", kb.catalog.fx_to_cny, Cost(amount=amount + 1, currency="CNY", per="month")
        )
    assert len(render._cache) == render.CACHED


def test_the_png_encoder_writes_the_pixels_it_is_given() -> None:
    from gpu_advisor.bot.charts.style import png_encode

    rgba = np.random.default_rng(7).integers(0, 256, size=(37, 53, 4), dtype=np.uint8)
    png = png_encode(rgba)
    assert png.startswith(PNG_SIGNATURE)
    assert np.array_equal(pixels(png), rgba[..., :3])
