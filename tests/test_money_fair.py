"""A quote in NT$ or US$ judged "合理吗 / fair?" for the hours said is set beside the catalog's card
(issue 44, class 5), converted at the catalog's dated rates (knowledge/catalog.yaml fx_to_cny, fx_date).

Catalog figures: 1× A100 40GB SXM4 rents at ¥2,800 a month; H100 80GB SXM5 only as an 8-card
machine at ¥80,000 a month (¥10,000 a card); both bill at least a month.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.quote import beside_catalog, money_only
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.quote import read
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(" ".join([reply.title or "", *reply.summary]))


def test_a_twd_hourly_quote_is_set_beside_the_catalogs_month_in_twd(kb: Knowledge) -> None:
    r = read("A100 每小时 NT$80", kb)
    q = r.quote()
    assert q is not None
    b = beside_catalog(money_only(q, kb, 200, "job", r.currency), kb)
    assert b is not None and b.quoted.amount == 16_000  # 200 h × NT$80
    assert b.catalog_own.amount == 2_800 and b.catalog.currency == "TWD"
    assert b.catalog.amount == pytest.approx(
        2_800 * kb.catalog.fx_to_cny["CNY"] / kb.catalog.fx_to_cny["TWD"], 0.01
    )
    assert b.fx_date == kb.catalog.fx_date


def test_one_card_of_a_machine_the_catalog_rents_whole_is_its_share(kb: Knowledge) -> None:
    r = read("H100 at US$3.5 an hour", kb)
    q = r.quote()
    assert q is not None
    b = beside_catalog(money_only(q, kb, 100, "job", r.currency), kb)
    assert b is not None and b.share_of == 8 and b.catalog_own.amount == 10_000  # ¥80,000 / 8


@pytest.mark.parametrize(
    ("text", "total"),
    [
        ("有人报价 A100 每小时 NT$80，我要跑 200 小时，合理吗", "NT$16,000"),
        ("有人報價 A100 每小時 NT$80，我要跑 200 小時，合理嗎", "NT$16,000"),
        ("H100 at US$3.5 an hour, I need it for 100 hours, is that a fair price?", "US$350"),
    ],
)
def test_a_foreign_currency_quote_gets_its_total_and_the_catalog_beside_it_with_the_rates_date(
    dialog: Dialog, text: str, total: str, kb: Knowledge
) -> None:
    reply = said(dialog, text)
    assert total in reply
    assert ("目录" in reply or "catalog" in reply.lower()) and str(kb.catalog.fx_date) in reply
