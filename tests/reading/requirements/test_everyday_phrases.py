"""Issue 17, "read what people actually say": loose amounts, edits, money, schedules, tasks.

Each table is one class of phrasing (Simplified, Traditional, English, typos, emoji);
every row gives the message and exactly the slots it must yield, so a wrong extra slot
fails as surely as a missing one. Golden values follow the documented rules in
``reading.requirements.vague`` (ranges at their upper end, 几 = 5, 几十 = 50, DAU × 10 %
peak share × 10 min / 60).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor import locales
from gpu_advisor.reading.message import read_message
from gpu_advisor.reading.requirements import Extraction, Vocabulary, extract
from gpu_advisor.reading.requirements.result import Edit
from gpu_advisor.text.normalize import language_of

GPUS = {
    "rtx3090": ["3090", "rtx 3090"],
    "rtx4090": ["4090", "rtx 4090"],
    "rtx4090d": ["4090d", "4090 d", "rtx 4090d"],
    "a100-80g-sxm": ["a100", "a100 80g"],
    "h100-sxm": ["h100"],
    "ascend-910b": ["910b", "昇腾910b", "ascend 910b"],
}
MODELS = {"qwen2.5-7b": ["qwen2.5 7b", "qwen 7b"], "llama-3.1-70b": ["llama 3.1 70b"]}


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary(MODELS, GPUS)


def read(vocab: Vocabulary, text: str, expecting: str | None = None) -> Extraction:
    return extract(text, vocab, expecting=expecting)


LOAD_CASES: list[tuple[str, dict[str, Any]]] = [
    ("大概三四十个人用", {"task": "infer", "concurrency": 40}),
    ("大概三四十個人用", {"task": "infer", "concurrency": 40}),
    ("三四十人同时用", {"task": "infer", "concurrency": 40}),
    ("30-40个用户", {"task": "infer", "concurrency": 40}),
    ("30到40人在用", {"task": "infer", "concurrency": 40}),
    ("就我们组几个人", {"task": "infer", "concurrency": 5}),
    ("几十人", {"task": "infer", "concurrency": 50}),
    ("十几个同事用", {"task": "infer", "concurrency": 15}),
    ("上百人", {"task": "infer", "concurrency": 100}),
    ("大概一两百个用户", {"task": "infer", "concurrency": 200}),
    ("a couple hundred users", {"task": "infer", "concurrency": 200}),
    ("a few hundred users", {"task": "infer", "concurrency": 300}),
    ("ten-ish people", {"task": "infer", "concurrency": 10}),
    ("10ish users", {"task": "infer", "concurrency": 10}),
    ("several users", {"task": "infer", "concurrency": 5}),
    ("dozens of users 😅", {"task": "infer", "concurrency": 50}),
    ("about 40 people use it", {"task": "infer", "concurrency": 40}),
    ("20 people using it", {"task": "infer", "concurrency": 20}),
    ("高峰每分钟 300 次调用", {"task": "infer", "qps": 5.0}),
    ("峰值每分钟600个请求", {"task": "infer", "qps": 10.0}),
    ("300 requests per minute at peak", {"task": "infer", "qps": 5.0}),
    ("差不多二三十人用", {"task": "infer", "concurrency": 30}),
    ("团队十来个人", {"task": "infer", "concurrency": 10}),
    ("公司两百来号人用", {"task": "infer", "concurrency": 200}),
    ("五六十個人同時用", {"task": "infer", "concurrency": 60}),
    ("几百个用户", {"task": "infer", "concurrency": 500}),
    ("about fifty users", {"task": "infer", "concurrency": 50}),
    ("a handful of users", {"task": "infer", "concurrency": 5}),
    ("~100 users 🙂", {"task": "infer", "concurrency": 100}),
    ("每分钟大概1200次请求", {"task": "infer", "qps": 20.0}),
    ("估计同时也就七八个人", {"task": "infer", "concurrency": 8}),
    ("一百多人用", {"task": "infer", "concurrency": 100}),
    ("全公司三百人左右", {"task": "infer", "concurrency": 300}),
    ("maybe a dozen folks", {"task": "infer", "concurrency": 12}),
    ("二十来个同事", {"task": "infer", "concurrency": 20}),
]


@pytest.mark.parametrize(("text", "slots"), LOAD_CASES)
def test_loose_load_reads_as_concurrency_or_qps(vocab: Vocabulary, text: str, slots: dict[str, Any]) -> None:
    assert read(vocab, text).slots == slots


DAILY_CASES: list[tuple[str, int]] = [
    ("日活五千左右", 84),  # 5000 × 0.1 × 10 / 60 = 83.3 → 84
    ("日活 5000", 84),
    ("DAU 大概 1万", 167),
    ("5k DAU", 84),
    ("about 5000 daily active users", 84),
    ("日活用户有两千", 34),
    ("日活大概3万", 500),
]


@pytest.mark.parametrize(("text", "concurrency"), DAILY_CASES)
def test_daily_actives_become_peak_concurrency_and_say_how(
    vocab: Vocabulary, text: str, concurrency: int
) -> None:
    result = read(vocab, text)
    assert result.slots == {"concurrency": concurrency, "task": "infer"}
    assert [i.id for i in result.issues] == ["concurrency_from_daily_users"]


def test_a_range_of_people_is_read_at_its_upper_end_and_said_back(vocab: Vocabulary) -> None:
    issue = read(vocab, "大概三四十个人用").issues[0]
    assert (issue.id, issue.field, issue.values["value"]) == ("approximated", "concurrency", 40)


DURATION_CASES: list[tuple[str, dict[str, Any]]] = [
    ("两三天", {"duration_hours": 72.0}),
    ("跑两三天", {"duration_hours": 72.0}),
    ("大概三五天", {"duration_hours": 120.0}),
    ("一两周", {"duration_hours": 336.0}),
    ("a couple of days", {"duration_hours": 48.0}),
    ("a few days", {"duration_hours": 72.0}),
    ("2-3 days", {"duration_hours": 72.0}),
    ("周末跑一下", {"duration_hours": 48.0}),
]


@pytest.mark.parametrize(("text", "slots"), DURATION_CASES)
def test_loose_durations_price_the_upper_end(vocab: Vocabulary, text: str, slots: dict[str, Any]) -> None:
    assert read(vocab, text).slots == slots


ANSWER_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("train_tokens", "1亿", {"train_tokens": 1e8}),
    ("train_tokens", "5000万", {"train_tokens": 5e7}),
    ("train_tokens", "2b", {"train_tokens": 2e9}),
    ("concurrency", "5", {"concurrency": 5}),
    ("concurrency", "几十人", {"concurrency": 50}),
    ("concurrency", "就我们组几个人", {"concurrency": 5}),
    ("concurrency", "大概20个", {"concurrency": 20}),
    ("method", "full", {"method": "full", "task": "train"}),
    ("method", "全参", {"method": "full", "task": "train"}),
    ("gpu_count", "8", {"gpu_count": 8}),
    ("duration_hours", "48", {"duration_hours": 48.0}),
    ("train_tokens", "3千万", {"train_tokens": 3e7}),
    ("concurrency", "20左右", {"concurrency": 20}),
    ("concurrency", "十来个", {"concurrency": 10}),
    ("method", "LoRA吧", {"method": "lora", "task": "train"}),
    ("method", "全量", {"method": "full", "task": "train"}),
    ("task", "都要", {"task": "both"}),
    ("task", "Both", {"task": "both"}),
    ("task", "两个都要", {"task": "both"}),
    ("concurrency", "Hundreds", {"concurrency": 500}),
    ("train_tokens", "10M", {"train_tokens": 1e7}),
    ("duration_hours", "一个月", {"duration_hours": 720.0}),
    ("duration_hours", "A few days", {"duration_hours": 72.0}),
]


@pytest.mark.parametrize(("expecting", "text", "slots"), ANSWER_CASES)
def test_a_bare_answer_fills_the_slot_just_asked(
    vocab: Vocabulary, expecting: str, text: str, slots: dict[str, Any]
) -> None:
    assert read(vocab, text, expecting).slots == slots


def test_a_bare_number_without_a_question_is_not_a_slot(vocab: Vocabulary) -> None:
    assert read(vocab, "5").slots == {}


LANGUAGE_CASES: list[tuple[str, str, str]] = [
    ("7x24", "zh", "zh"),
    ("13B", "zh", "zh"),
    ("LoRA", "zh", "zh"),
    ("20 QPS", "zh", "zh"),
    ("Qwen 7B LoRA fp16", "zh", "zh"),
    ("make it cheaper please", "zh", "en"),
    ("I want to serve Llama for my team", "zh", "en"),
    ("我们想部署一个模型", "en", "zh"),
    ("ok", "en", "en"),
    ("8 x H100", "en", "en"),
    ("7x24 跑 13B", "zh", "zh"),
    ("LoRA 微调 qwen", "en", "zh"),
    ("can you make it cheaper", "zh", "en"),
    ("what about H100 instead", "zh", "en"),
    ("H100 x8", "zh", "zh"),
]


@pytest.mark.parametrize(("text", "current", "expected"), LANGUAGE_CASES)
def test_language_sticks_unless_the_sentence_is_clearly_the_other(
    text: str, current: str, expected: str
) -> None:
    assert language_of(text, current) == expected  # type: ignore[arg-type]


def test_edit_structure_names_slot_operation_and_amount() -> None:
    edit = Edit(slot="budget", op="scale", factor=0.5)
    assert edit.model_dump() == {"slot": "budget", "op": "scale", "factor": 0.5, "value": None, "was": None}


EDIT_CASES: list[tuple[str, list[Edit]]] = [
    ("预算再少一半", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("預算再少一半", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("预算减半吧", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("half the budget", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("预算多20%", [Edit(slot="budget", op="scale", factor=1.2)]),
    ("cut the budget by 30%", [Edit(slot="budget", op="scale", factor=0.7)]),
    ("并发翻个倍", [Edit(slot="concurrency", op="scale", factor=2.0)]),
    ("並發翻倍", [Edit(slot="concurrency", op="scale", factor=2.0)]),
    ("用户翻三倍", [Edit(slot="concurrency", op="scale", factor=3.0)]),
    ("double the users", [Edit(slot="concurrency", op="scale", factor=2.0)]),
    ("再少一半", [Edit(slot=None, op="scale", factor=0.5)]),
    ("make it 2000 instead", [Edit(slot=None, op="set", value=2000.0)]),
    ("改成2000", [Edit(slot=None, op="set", value=2000.0)]),
    ("换成5k吧", [Edit(slot=None, op="set", value=5000.0)]),
    ("预算砍一半", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("budget halved", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("并发再加一倍", [Edit(slot="concurrency", op="scale", factor=2.0)]),
    ("用户数翻倍", [Edit(slot="concurrency", op="scale", factor=2.0)]),
    ("let's say 3000 instead", [Edit(slot=None, op="set", value=3000.0)]),
    ("并发x2", [Edit(slot="concurrency", op="scale", factor=2.0)]),
    ("预算降到一半", [Edit(slot="budget", op="scale", factor=0.5)]),
    ("预算提高50%", [Edit(slot="budget", op="scale", factor=1.5)]),
    ("double it", [Edit(slot=None, op="scale", factor=2.0)]),
]


@pytest.mark.parametrize(("text", "edits"), EDIT_CASES)
def test_relative_changes_become_edits_not_values(vocab: Vocabulary, text: str, edits: list[Edit]) -> None:
    result = read(vocab, text)
    assert (result.edits, result.slots) == (edits, {})


INTENT_CASES: list[tuple[str, str]] = [
    ("cheaper?", "cheaper"),
    ("有没有便宜点的", "cheaper"),
    ("太贵了 😭", "cheaper"),
    ("too expensive", "cheaper"),
    ("能快一点吗", "faster"),
    ("faster?", "faster"),
    ("一个月多少钱", "price"),
    ("一個月多少錢", "price"),
    ("how much per month", "price"),
    ("还能更便宜吗", "cheaper"),
    ("any cheaper option?", "cheaper"),
    ("每月多少钱", "price"),
    ("有更省钱的方案吗", "cheaper"),
    ("一年多少钱", "price"),
]


@pytest.mark.parametrize(("text", "intent"), INTENT_CASES)
def test_requests_are_intents_not_slots(vocab: Vocabulary, text: str, intent: str) -> None:
    assert read(vocab, text).slots == {}
    assert read_message(text, vocab).intent == intent


def test_a_price_question_is_not_a_one_month_job(vocab: Vocabulary) -> None:
    text = "部署Qwen 7B，一个月多少钱"
    assert read(vocab, text).slots == {"model": "qwen2.5-7b", "task": "infer"}
    assert read_message(text, vocab).intent == "price"


TASK_CASES: list[tuple[str, str, list[str]]] = [
    ("不对，是推理不是训练", "infer", ["task"]),
    ("不是训练，是推理", "infer", ["task"]),
    ("不對，是推理不是訓練", "infer", ["task"]),
    ("actually inference, not training", "infer", ["task"]),
    ("I meant fine-tuning", "train", ["task"]),
    ("train then serve", "both", []),
    ("先微调再部署", "both", []),
    ("做个小程序的客服", "infer", []),
    ("an API for our app", "infer", []),
    ("a customer-service bot", "infer", []),
    ("10 req/s", "infer", []),
    ("host it for the team", "infer", []),
    ("做一个API给客户调用", "infer", []),
    ("做个微信小程序", "infer", []),
    ("serve it to our users", "infer", []),
    ("不是推理，是微调", "train", ["task"]),
    ("先训练后上线", "both", []),
    ("sorry, I meant inference", "infer", ["task"]),
    ("给公司内部做个知识库问答", "infer", []),
    ("我们要搭一个聊天接口", "infer", []),
    ("no wait, it's training not inference", "train", ["task"]),
]


@pytest.mark.parametrize(("text", "task", "replace"), TASK_CASES)
def test_task_comes_from_context_and_corrections_replace_it(
    vocab: Vocabulary, text: str, task: str, replace: list[str]
) -> None:
    result = read(vocab, text)
    assert (result.slots.get("task"), result.replace) == (task, replace)


def test_a_task_guessed_from_a_load_is_marked_implied(vocab: Vocabulary) -> None:
    assert read(vocab, "20 QPS").implied == ["task"]


def test_an_answer_to_a_question_implies_no_task(vocab: Vocabulary) -> None:
    assert "task" not in read(vocab, "20", "qps").slots


@pytest.mark.parametrize("text", ["预训练一个7B模型", "pretrain a 7B model from scratch"])
def test_pretraining_is_full_training(vocab: Vocabulary, text: str) -> None:
    slots = {"task": "train", "method": "full", "params_b": 7.0, "pretrain": True}
    assert read(vocab, text).slots == slots


def cny(amount: float, per: str = "month", currency: str = "CNY") -> dict[str, Any]:
    return {"amount": amount, "currency": currency, "per": per}


MONEY_CASES: list[tuple[str, dict[str, Any]]] = [
    ("5k RMB 一个月", cny(5000)),
    ("5K rmb一个月", cny(5000)),
    ("预算三万五", cny(35000)),
    ("预算5个w", cny(50000)),
    ("預算5個w", cny(50000)),
    ("八千台币", cny(8000, currency="TWD")),
    ("八千新台幣", cny(8000, currency="TWD")),
    ("NT$3000 a month", cny(3000, currency="TWD")),
    ("2000港币每月", cny(2000, currency="HKD")),
    ("预算500欧元每月", cny(500, currency="EUR")),
    ("€500 per month", cny(500, currency="EUR")),
    ("$2.5/hr", cny(2.5, "hour", "USD")),
    ("每小时10块", cny(10, "hour")),
    ("一个月五千块", cny(5000)),
    ("预算2w/月", cny(20000)),
    ("budget 3k usd monthly", cny(3000, currency="USD")),
    ("一万港元一个月", cny(10000, currency="HKD")),
    ("1000 euros total", cny(1000, "total", "EUR")),
    ("一个月最多三千", cny(3000)),
    ("budget is around 2k a month", cny(2000)),
    ("每小时不超过5美金", cny(5, "hour", "USD")),
    ("月预算1.5w", cny(15000)),
    ("三千港幣每月", cny(3000, currency="HKD")),
]


@pytest.mark.parametrize(("text", "budget"), MONEY_CASES)
def test_money_keeps_its_thousands_currency_and_period(
    vocab: Vocabulary, text: str, budget: dict[str, Any]
) -> None:
    assert read(vocab, text).slots == {"budget": budget}


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("每卡每小时 12 块", cny(12, "hour")),
        ("$2 per GPU per hour", cny(2, "hour", "USD")),
        ("8 bucks an hour per card", cny(8, "hour", "USD")),
    ],
)
def test_a_price_per_card_is_flagged_per_gpu(vocab: Vocabulary, text: str, budget: dict[str, Any]) -> None:
    result = read(vocab, text)
    assert (result.slots, result.budget_per_gpu) == ({"budget": budget}, True)


SCHEDULE_CASES: list[tuple[str, dict[str, Any]]] = [
    ("24 小时都要在线", {"always_on": True}),
    ("24小時都要能用", {"always_on": True}),
    ("7x24", {"always_on": True}),
    ("on all the time", {"always_on": True}),
    ("不用一直开着", {"always_on": False}),
    ("不需要长期", {"always_on": False}),
    ("doesn't need to be on all the time", {"always_on": False}),
    ("一次性的", {"always_on": False}),
    ("just a one-off job", {"always_on": False}),
    ("周末跑一下", {"duration_hours": 48.0}),
    ("一个月多少钱", {}),
    ("要一直在线", {"always_on": True}),
    ("全年无休", {"always_on": True}),
    ("不需要一直开", {"always_on": False}),
    ("只是临时用一下", {"always_on": False}),
    ("一直要开着", {"always_on": True}),
    ("just need it for a weekend", {"duration_hours": 48.0}),
]


@pytest.mark.parametrize(("text", "slots"), SCHEDULE_CASES)
def test_schedules_say_always_on_or_not_and_never_a_price_period(
    vocab: Vocabulary, text: str, slots: dict[str, Any]
) -> None:
    assert read(vocab, text).slots == slots


EXCLUSION_CASES: list[tuple[str, dict[str, Any]]] = [
    ("不要 3090", {"exclude_gpus": ["rtx3090"]}),
    ("不要3090和4090", {"exclude_gpus": ["rtx3090", "rtx4090"]}),
    ("别用4090", {"exclude_gpus": ["rtx4090"]}),
    ("no 3090 please", {"exclude_gpus": ["rtx3090"]}),
    ("anything but H100", {"exclude_gpus": ["h100-sxm"]}),
    ("no consumer cards", {"exclude_segments": ["consumer"]}),
    ("不要消费级显卡", {"exclude_segments": ["consumer"]}),
    ("不要遊戲卡", {"exclude_segments": ["consumer"]}),
    ("只用国产卡", {"domestic_only": True}),
    ("只用國產卡", {"domestic_only": True}),
    ("only domestic chips", {"domestic_only": True}),
    ("only nvidia", {"only_vendor": "nvidia"}),
    ("只用昇腾", {"only_vendor": "huawei"}),
    ("别给我推荐3090", {"exclude_gpus": ["rtx3090"]}),
    ("no gaming cards", {"exclude_segments": ["consumer"]}),
    ("只要华为的卡", {"only_vendor": "huawei"}),
    ("必须用国产", {"domestic_only": True}),
    ("avoid the 4090 and 3090", {"exclude_gpus": ["rtx4090", "rtx3090"]}),
    ("除了4090都行", {"exclude_gpus": ["rtx4090"]}),
    ("不想用游戏卡", {"exclude_segments": ["consumer"]}),
    ("only Ascend cards", {"only_vendor": "huawei"}),
]


@pytest.mark.parametrize(("text", "constraints"), EXCLUSION_CASES)
def test_refused_cards_constrain_the_search_and_are_not_the_gpu(
    vocab: Vocabulary, text: str, constraints: dict[str, Any]
) -> None:
    result = read(vocab, text)
    assert (result.constraints.model_dump(exclude_defaults=True), result.slots) == (constraints, {})


@pytest.mark.parametrize("text", ["我手上有两张 4090D", "我手上有兩張4090D", "we have two 4090D"])
def test_owned_cards_are_read_with_their_count(vocab: Vocabulary, text: str) -> None:
    result = read(vocab, text)
    assert (result.slots, result.gpu_owned) == ({"gpu": "rtx4090d", "gpu_count": 2}, True)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    "text",
    [
        "大概三四十个人用",
        "日活五千左右",
        "两三天",
        "每卡每小时 12 块",
        "a couple hundred users",
        "每天一万次调用",
    ],
)
def test_the_notes_about_loose_readings_render_in_both_languages(
    vocab: Vocabulary, text: str, lang: str
) -> None:

    for issue in read(vocab, text).issues:
        line = locales.t(lang, f"issue.{issue.id}", **issue.values)
        assert not line.startswith("issue.") and "{" not in line


def test_a_loose_duration_is_said_back_in_the_unit_typed(vocab: Vocabulary) -> None:
    issue = read(vocab, "两三天").issues[0]
    assert (issue.values["said"], issue.values["value"]) == ("两三天", 3)


TYPO_AND_EMOJI_CASES: list[tuple[str, str, Any]] = [
    ("三、四十个人用", "concurrency", 40),
    ("大概 三四十 个人用", "concurrency", 40),
    ("30~40人", "concurrency", 40),
    ("30 - 40 users", "concurrency", 40),
    ("DAU5k", "concurrency", 84),
    ("预算 5k 一个月🙏", "budget", cny(5000)),
]


@pytest.mark.parametrize(("text", "slot", "value"), TYPO_AND_EMOJI_CASES)
def test_spacing_punctuation_and_emoji_do_not_change_the_reading(
    vocab: Vocabulary, text: str, slot: str, value: Any
) -> None:
    assert read(vocab, text).slots[slot] == value


@pytest.mark.parametrize("text", ["cheeper?", "chaper options?", "cheapr pls"])
def test_misspelt_cheaper_is_still_the_cheaper_intent(vocab: Vocabulary, text: str) -> None:
    assert read_message(text, vocab).intent == "cheaper"


@pytest.mark.parametrize("text", ["dont want 3090", "don't use 3090", "不要3090！"])
def test_refusals_without_apostrophes_or_with_bangs_exclude_the_card(vocab: Vocabulary, text: str) -> None:
    result = read(vocab, text)
    assert (result.constraints.exclude_gpus, result.slots) == (["rtx3090"], {})


def test_owned_cards_and_refused_cards_in_one_message_stay_apart(vocab: Vocabulary) -> None:
    result = read(vocab, "我们有4张A100，不要H100")
    assert (result.slots, result.gpu_owned, result.constraints.exclude_gpus) == (
        {"gpu": "a100-80g-sxm", "gpu_count": 4},
        True,
        ["h100-sxm"],
    )


def test_a_single_card_wish_after_a_budget_is_not_a_per_card_price(vocab: Vocabulary) -> None:
    assert not read(vocab, "预算每月2万，单卡就行").budget_per_gpu


DAILY_REQUEST_CASES: list[tuple[str, float]] = [
    ("每天一万次调用", 0.278),  # 10 000 × 0.1 / 3600 s
    ("日均 5w 请求", 1.389),  # 50 000 × 0.1 / 3600 s
    ("10k requests a day", 0.278),
    ("每日大概3000次问答", 0.083),
]


@pytest.mark.parametrize(("text", "qps"), DAILY_REQUEST_CASES)
def test_requests_per_day_become_peak_qps_and_say_how(vocab: Vocabulary, text: str, qps: float) -> None:
    result = read(vocab, text)
    assert (result.slots["qps"], [i.id for i in result.issues]) == (qps, ["qps_from_daily_requests"])


@pytest.mark.parametrize(
    "text", ["为什么不用 4090", "為什麼不用 4090？", "为啥不用4090", "why not a 4090?", "Why not 4090"]
)
def test_asking_why_not_a_card_names_it_without_refusing_it(vocab: Vocabulary, text: str) -> None:
    got = read(vocab, text)
    assert got.slots.get("gpu") == "rtx4090"
    assert "rtx4090" not in got.constraints.exclude_gpus


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("p99 TTFT 1.5s", "ttft_ms_p99"),
        ("p99 首token 不超过 1.5 秒", "ttft_ms_p99"),
        ("99% 的首 token 在 1.5 秒以内", "ttft_ms_p99"),
        ("首 token 1.5 秒以内", "ttft_ms_max"),
        ("TTFT under 1.5s", "ttft_ms_max"),
    ],
)
def test_a_tail_first_token_target_is_a_p99_limit(vocab: Vocabulary, text: str, slot: str) -> None:
    slots = read(vocab, text).slots
    assert slots.get(slot) == 1500 and slots.get("task") == "infer"


@pytest.mark.parametrize(
    ("text", "amount"), [("一个月 5600 的预算", 5600), ("部署 7B，一个月 3000 块的预算", 3000)]
)
def test_a_period_and_amount_before_the_budget_word_are_a_budget_not_a_duration(
    vocab: Vocabulary, text: str, amount: float
) -> None:
    slots = read(vocab, text).slots
    assert slots["budget"]["amount"] == amount and "duration_hours" not in slots


@pytest.mark.parametrize("text", ["32k 上下文 20 个并发", "32k上下文20个并发", "32k 上下文、20 个并发"])
def test_a_load_after_the_context_word_is_the_load_not_the_context(vocab: Vocabulary, text: str) -> None:
    slots = read(vocab, text).slots
    assert slots["context_len"] == 32768 and slots["concurrency"] == 20


@pytest.mark.parametrize(
    ("text", "samples"),
    [
        ("想微调 qwen2.5-7b，lora，数据 5 万条", 50_000),
        ("fine-tune llama3 8b with qlora on 20k samples", 20_000),
        ("lora 微调 7b，3000 条对话数据", 3_000),
        ("sft on 12,000 examples", 12_000),
    ],
)
def test_a_dataset_counted_in_examples_becomes_tokens_and_says_how(
    vocab: Vocabulary, text: str, samples: int
) -> None:
    got = read(vocab, text)
    (said,) = [i for i in got.issues if i.id == "train_tokens_from_samples"]
    assert said.values["samples"] == samples
    assert got.slots["train_tokens"] == samples * said.values["per_sample"]


def test_a_token_count_said_outright_wins_over_examples(vocab: Vocabulary) -> None:
    assert read(vocab, "训练 7b，2B tokens，3000 条样本").slots["train_tokens"] == 2e9


@pytest.mark.parametrize("text", ["推荐一个跑 70B 的方案", "跑个 7b 给团队用", "跑 qwen2.5-72b 需要几张卡"])
def test_running_a_model_is_serving_it(vocab: Vocabulary, text: str) -> None:
    assert read(vocab, text).slots.get("task") == "infer"


@pytest.mark.parametrize("text", ["跑训练 7B lora", "想跑 qwen2.5 7b 做 lora 微调"])
def test_running_a_training_job_stays_training(vocab: Vocabulary, text: str) -> None:
    assert read(vocab, text).slots.get("task") == "train"


@pytest.mark.parametrize(
    "text", ["訓練一個 1B 模型從零開始", "从零开始训一个 3B 模型", "pretrain a 1b model"]
)
def test_from_scratch_in_any_order_is_pretraining(vocab: Vocabulary, text: str) -> None:
    assert read(vocab, text).slots.get("pretrain") is True


@pytest.mark.parametrize(
    ("text", "qps"),
    [
        ("host mistral 7b for our discord bot, ~100 msgs/min", 100 / 60),
        ("serve 7b at 300 requests per minute", 5.0),
        ("部署 7b，每分钟 120 条消息", 2.0),
        ("部署 7b，60 个请求/分钟", 1.0),
    ],
)
def test_a_rate_per_minute_is_read_per_second(vocab: Vocabulary, text: str, qps: float) -> None:
    assert read(vocab, text).slots.get("qps") == pytest.approx(qps)
