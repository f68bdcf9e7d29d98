"""A relative cut of a stated month's budget is a cut of that amount (issue 44, class 1).

Our own phrasings in Simplified, Traditional and English. The new budget is base × share
kept; the machines come from the catalog (knowledge/catalog.yaml) priced in the user's
currency at the catalog's fx_to_cny of its fx_date.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.engine.budget import cut
from gpu_advisor.engine.results import Money
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.budget_cut import kept_share
from gpu_advisor.text.normalize import normalize
from tests.dialogs import simplified, talk


def said(dialog: Dialog, text: str) -> str:
    reply, _ = talk(dialog, text)
    return simplified(" ".join([reply.title or "", *reply.summary]))


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("砍 25%", 0.75),
        ("能不能再降个 10%", 0.9),
        ("cut it to 70%", 0.7),
        ("壓到八成", 0.8),
        ("預算打八五折", 0.85),
        ("月租 12 萬，降三成", 0.7),
        ("management wants a 25% cut", 0.75),
        ("cut it by a third", 2 / 3),
        ("減掉一半", 0.5),
    ],
)
def test_a_cut_is_read_as_the_share_kept(text: str, kept: float) -> None:
    assert kept_share(normalize(text)) == pytest.approx(kept)


@pytest.mark.parametrize(
    "text", ["年付85折", "年付打85折", "15% off yearly", "GPU 利用率 25%", "25% of the time"]
)
def test_a_percentage_without_a_cutting_word_is_no_cut(text: str) -> None:
    assert kept_share(normalize(text)) is None


def test_every_machine_listed_fits_the_cut_budget(kb: Knowledge) -> None:
    c = cut(Money(amount=60_000, currency="CNY"), 0.75, kb)
    assert c.budget.amount == 45_000 and c.within
    assert all(m.month.amount <= 45_000 for m in c.within)


def test_a_budget_in_dollars_is_compared_through_the_catalogs_dated_rate(kb: Knowledge) -> None:
    c = cut(Money(amount=9_000, currency="USD"), 2 / 3, kb)
    assert c.budget.amount == 6_000 and c.fx_date == kb.catalog.fx_date


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("每月 6 万的方案太贵，砍 25%", "¥45,000"),  # 60,000 × 75 %
        ("每月預算 3 萬，想再砍掉四分之一", "¥22,500"),  # 30,000 × 3/4
        ("月租 NT$50,000 壓到八成", "NT$40,000"),  # 50,000 × 80 %
        ("the $9,000/month box is too much, cut it by a third", "US$6,000"),  # 9,000 × 2/3
    ],
)
def test_a_cut_of_a_stated_budget_says_the_new_budget_and_the_catalog_within_it(
    dialog: Dialog, text: str, budget: str
) -> None:
    reply = said(dialog, text)
    assert budget in reply, reply
    assert "A100" in reply  # the catalog's biggest machine within each of these budgets
    assert "训练" not in reply and "train" not in reply.lower()


@pytest.mark.parametrize("text", ["每月预算 2 万，延迟降 30%", "budget $3,000 a month, cut latency by 20%"])
def test_a_cut_of_something_other_than_money_is_no_cut(text: str) -> None:
    assert kept_share(normalize(text)) is None
