"""The words a surface adds itself follow the script the user writes (issue 47).

The dialog answers a Traditional writer in Traditional (``bot.dialog.script``); what the
surfaces draw or label themselves — the chart's labels, Telegram's 📊 button, the widget's
chrome — is converted with the readers' own table (``text.hanzi``, read backwards by
``bot.charts.script``). Telegram is driven through the real Application and the loopback
Bot API, as its other tests.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.text import Text

from gpu_advisor import knowledge
from gpu_advisor.bot.charts import render, style
from gpu_advisor.bot.charts.script import to_traditional
from gpu_advisor.bot.telegram import render as telegram_render
from gpu_advisor.bot.web.pages import ui_strings
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.workload import Workload
from tests.fakes.telegram_api import Call, FakeTelegram
from tests.test_telegram_bot import running

SERVE_13B = {"task": "infer", "params_b": 13, "concurrency": 8, "always_on": True}
TRADITIONAL_QUESTION = "部署 13B 聊天機器人，並發 8，7×24"


def drawn_texts(traditional: bool) -> str:
    """Every text of the chart as painted (tick labels included), joined."""
    kb = knowledge.load()
    plan = recommend(Workload.model_validate(SERVE_13B), kb)
    fig = render.plan_figure(plan, "zh", "all", kb.catalog.fx_to_cny)
    style.png_bytes(fig, to_traditional if traditional else None)
    return "\n".join(a.get_text() for a in fig.findobj(Text) if isinstance(a, Text))


def test_a_chart_for_a_traditional_writer_labels_memory_and_cost_in_traditional() -> None:
    words = drawn_texts(traditional=True)
    assert "顯存" in words and "显存" not in words
    assert "費用" in words or "月租" in words or "/月" in words
    assert "显存" in drawn_texts(traditional=False)  # a Simplified writer's chart is unchanged


def test_a_traditional_chart_is_kept_apart_from_the_simplified_one() -> None:
    kb = knowledge.load()
    plan = recommend(Workload.model_validate(SERVE_13B), kb)
    simplified = render.chart_key(plan, "zh", kb.catalog.fx_to_cny, None, traditional=False)
    traditional = render.chart_key(plan, "zh", kb.catalog.fx_to_cny, None, traditional=True)
    english = render.chart_key(plan, "en", kb.catalog.fx_to_cny, None, traditional=True)
    assert simplified != traditional
    assert english == render.chart_key(plan, "en", kb.catalog.fx_to_cny, None, traditional=False)


def test_the_widget_chrome_has_a_traditional_set_of_words() -> None:
    words = ui_strings()
    assert words["zh-TW"]["send"] == "發送" and words["zh"]["send"] == "发送"
    assert words["zh-TW"]["title"] == "算力選型助手"
    assert set(words["zh-TW"]) == set(words["zh"])
    assert "萬" in words["script"]["hant"] and "万" in words["script"]["hans"]


def buttons_of(message: Call) -> list[str]:
    rows = (message.params.get("reply_markup") or {}).get("inline_keyboard", [])
    return [b["text"] for row in rows for b in row]


async def test_telegrams_chart_button_is_in_traditional_for_a_traditional_writer(
    tg: FakeTelegram, tmp_path: Path
) -> None:
    mei = tg.user(4701, "Mei", "zh-hant")
    async with running(tg, tmp_path):
        tg.send_text(mei, TRADITIONAL_QUESTION)
        (card,) = await tg.wait_for("sendMessage")
    labels = buttons_of(card)
    assert "📊 圖表" in labels and "📊 图表" not in labels, labels


def test_the_chart_button_of_a_simplified_reply_stays_simplified() -> None:
    from gpu_advisor.bot.dialog import Reply

    reply = Reply(kind="answer", lang="zh", title="✅ 推荐：1 张 T4 · ¥900/月", chart="all")
    (button,) = telegram_render.with_chart_button(reply).buttons
    assert button.label == "📊 图表"
