"""The reader hears classes of phrasing, not sentences: each test is a phrasing the corpus
does not hold, asked the way the independent set showed people ask (issue 42)."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.message import read_message


def intent(dialog: Dialog, text: str) -> str:
    return read_message(text, dialog.vocab).intent


@pytest.mark.parametrize(
    "text",
    [
        "A100 包年和按量哪个省钱，一个月用 100 小时",
        "L40S daily or monthly? I need it for about two weeks",
        "3090 按量 1.6 元/小时，我要跑 40 个小时，总共多少钱",
        "A800 包月是不是亏了，我一周只开两天",
        "someone offered me an H100 at $1.99/hr, can you beat that?",
    ],
)
def test_two_ways_of_billing_or_an_offered_rate_weighed_is_a_quote(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "quote"


@pytest.mark.parametrize(
    "text",
    ["Qwen 7B LoRA 在 A100 上要跑几个钟头", "SD1.5 出一张图要 40 秒，正常吗"],
)
def test_a_duration_asked_or_judged_normal_is_a_speed_question(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "speed"


@pytest.mark.parametrize(
    "text", ["一张 L40S 跑 Qwen 14B 能同时服务几个人", "how many users at once can one A10 serve Llama 3 8B"]
)
def test_how_many_at_once_is_a_capacity_question(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "capacity"


def test_two_product_names_side_by_side_are_compared(dialog: Dialog) -> None:
    assert intent(dialog, "Flux 跟 SDXL 比，出图速度差很多吗") == "compare"


def test_which_of_two_is_cheaper_is_a_comparison_not_a_cheaper_request(dialog: Dialog) -> None:
    assert intent(dialog, "sensevoice vs whisper, which is cheaper to run on a T4") == "compare"


@pytest.mark.parametrize(
    "text", ["不是说 4090 不能做多卡训练吗", "LoRA 效果和全参一样，真的假的", "MIG is useless for inference?"]
)
def test_a_claim_asked_back_is_a_myth(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "myth"


def test_what_a_thing_is_good_for_is_a_concept(dialog: Dialog) -> None:
    assert intent(dialog, "MIG 到底有啥用") == "concept"


@pytest.mark.parametrize("text", ["行，就这台，怎么付款", "有销售的联系方式吗，想谈个年付"])
def test_paying_or_a_salesperson_is_an_order(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "order"


def test_a_pasted_machine_with_an_ethernet_speed_is_a_sheet(dialog: Dialog) -> None:
    assert intent(dialog, "4x L40S 48GB, 512GB RAM, 25GbE, 2x 3.84TB NVMe") == "sheet"


def test_a_job_and_a_pick_asked_is_sizing_even_with_how_long(dialog: Dialog) -> None:
    assert intent(dialog, "transcribe 3,000 hours of calls with Whisper, which GPU and how long") == "sizing"


@pytest.mark.parametrize("text", ["好吧，重新来过", "行 从头开始吧，之前的都不算", "okay, start fresh"])
def test_a_restart_with_a_filler_word_or_a_tail_is_still_a_restart(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "start_over"


@pytest.mark.parametrize("text", ["余额不够了怎么续费", "can we pay by wire transfer for this one"])
def test_topping_up_or_a_way_to_pay_is_an_order(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "order"


def test_one_card_said_faster_than_another_is_a_comparison(dialog: Dialog) -> None:
    assert intent(dialog, "L40S 比 A10 快多少，跑 Qwen 7B") == "compare"


def test_a_measured_speed_complained_of_is_a_speed_question_though_it_says_why(dialog: Dialog) -> None:
    assert intent(dialog, "L4 跑 Qwen 7B 只有 8 token/s，为啥这么慢") == "speed"


@pytest.mark.parametrize(
    "text",
    [
        "我们现在每月付 5000 块租两张 A10，跑 13B",
        "vendor quoted $3 an hour or $1,900 a month for an L40S, which?",
    ],
)
def test_a_price_already_paid_or_quoted_is_a_quote(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "quote"


@pytest.mark.parametrize(
    "text", ["how many A100 cards for llama 3 70b training?", "host mistral 7b on a T4?"]
)
def test_how_many_cards_for_a_model_or_a_bare_verb_on_a_card_is_a_fit_question(
    dialog: Dialog, text: str
) -> None:
    assert intent(dialog, text) == "fit"


@pytest.mark.parametrize(
    "text",
    [
        "一张 L4 顶得住 Qwen2.5-7B 吗",  # 顶 + 得住: a verb and a result the corpus never paired
        "A10 载不载得动 SDXL",  # the A-not-A form of the same class
        "T4 放得下 whisper large-v3 不",  # a question ending in 不
        "单卡 4090 跑 Qwen2.5-32B 会不会溢出",  # a trouble asked with 会不会
        "L40S 訓 Flux LoRA 吃不吃力",  # Traditional, read through the one table
    ],
)
def test_a_bearing_verb_with_its_potential_complement_asks_a_verdict(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "fit"


def test_a_potential_complement_that_describes_a_card_asks_no_verdict(dialog: Dialog) -> None:
    assert intent(dialog, "有没有撑得住的便宜一点的卡") != "fit"


def test_a_load_borne_by_how_many_is_still_a_capacity_question(dialog: Dialog) -> None:
    assert intent(dialog, "一张 A10 撑得住多少并发") == "capacity"


@pytest.mark.parametrize(
    "text",
    [
        "could an A10G cope with SDXL at 1024?",
        "is it feasible to serve Qwen 14B on one L4?",
        "would an L40S be able to fine-tune a 13B with LoRA?",
    ],
)
def test_an_english_modal_with_a_verdict_verb_asks_a_verdict(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "fit"


def test_a_bearing_verb_asked_is_a_yes_no_form_for_the_verdict_answerer(dialog: Dialog) -> None:
    """The verdict answerer reads ``form.yes_no``: it hears the lexicon's classes too."""
    assert read_message("一张 L4 顶得住 Qwen2.5-7B 吗", dialog.vocab).form.yes_no


def test_two_cards_joined_by_or_are_compared_though_the_catalog_knows_one(dialog: Dialog) -> None:
    assert intent(dialog, "L4 or A10G for running bge-m3 embeddings?") == "compare"


@pytest.mark.parametrize("text", ["L40S 包日多少", "A100 按天租得多少", "H100 一个钟头多少"])
def test_any_period_word_with_how_much_asks_a_price(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "price"


@pytest.mark.parametrize("text", ["that's a bit pricey for us", "can you do it for less?"])
def test_pricey_or_for_less_asks_for_something_cheaper(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "cheaper"


def test_how_many_transcodes_a_card_fits_is_a_capacity_question(dialog: Dialog) -> None:
    assert intent(dialog, "how many 1080p transcodes can a T4 do?") == "capacity"


@pytest.mark.parametrize(
    "text", ["L4 撑得住 Qwen2.5-14B 是真的吗", "a 3090 can handle 70B at Q4, is that true?"]
)
def test_a_verdict_asked_as_true_or_not_is_a_claim_checked(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "myth"


@pytest.mark.parametrize(
    "text", ["4090 怎么卖", "what do you charge for an H100 by the hour", "what's an L4 going for these days"]
)
def test_what_a_card_sells_or_is_charged_for_asks_a_price(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "price"


@pytest.mark.parametrize(
    "text", ["whisper large 在 T4 上跑沒問題嗎", "A10 跑 SDXL 稳不稳", "is 8GB of VRAM OK for Flux schnell?"]
)
def test_no_problem_or_good_enough_asked_is_a_verdict(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "fit"


def test_no_problem_put_with_ba_for_agreement_is_a_claim(dialog: Dialog) -> None:
    assert intent(dialog, "A100 也有硬件编码的吧？直接拿来转码没问题吧") == "myth"


@pytest.mark.parametrize(
    "text", ["4090 多卡没有 NVLink 就不能训练，对吗", "is it a myth that you need ECC memory for training?"]
)
def test_a_statement_closed_with_an_agreement_tag_is_a_claim(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "myth"


@pytest.mark.parametrize(
    "text", ["what latency would I see for Llama 8B on an L4?", "how quick is Flux on an H100?"]
)
def test_latency_or_how_quick_is_a_speed_question(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "speed"


@pytest.mark.parametrize("text", ["一张 4090 一小时能出几张图", "how many SDXL images per hour on one 4090?"])
def test_an_output_counted_over_any_span_of_time_is_a_capacity_question(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "capacity"


@pytest.mark.parametrize("text", ["4090 和 A100 差在哪", "is an H100 worth it over an A100?"])
def test_where_two_cards_differ_is_a_comparison(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "compare"


def test_what_a_word_is_called_is_a_concept(dialog: Dialog) -> None:
    assert intent(dialog, "什么叫张量并行") == "concept"


@pytest.mark.parametrize("text", ["怎么选了这张", "为什么要两张卡", "why two GPUs?", "为什么不推荐 4090"])
def test_the_plans_own_choice_asked_about_is_why(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "why"


@pytest.mark.parametrize("text", ["好，就它了，下单", "我要租，怎么开通", "how do I sign up and pay?"])
def test_a_choice_made_or_an_account_opened_is_an_order(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "order"


@pytest.mark.parametrize("text", ["重新問", "reset please"])
def test_asking_again_or_a_polite_reset_starts_over(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "start_over"


@pytest.mark.parametrize("text", ["你能做什么", "what can you do?"])
def test_what_the_assistant_can_do_is_small_talk_not_a_verdict(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "small_talk"


@pytest.mark.parametrize("text", ["包月 3000 一张 4090，合算吗", "A100 我们现在每个月付 ¥12,000，贵了吗"])
def test_a_price_held_and_judged_is_a_quote_not_a_cheaper_request(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "quote"


def test_chats_at_once_name_a_language_model(dialog: Dialog) -> None:
    assert read_message("how many chats can an L40S handle at once?", dialog.vocab).job == "llm_serve"


def test_a_duration_in_milliseconds_is_a_speed_question(dialog: Dialog) -> None:
    assert intent(dialog, "A10 上 ResNet50 单张图推理要几毫秒") == "speed"


def test_which_of_two_cards_to_buy_with_no_renting_is_a_comparison(dialog: Dialog) -> None:
    assert intent(dialog, "二手 3090 和 4080 Super 買哪張好") == "compare"


def test_a_better_buy_per_hour_is_value_not_a_purchase(dialog: Dialog) -> None:
    assert intent(dialog, "L4 or A10G for Whisper, which is the better buy per hour?") == "compare"


def test_something_under_a_price_asks_for_something_cheaper(dialog: Dialog) -> None:
    assert intent(dialog, "anything under $2 an hour?") == "cheaper"


def test_hardware_decoding_is_a_video_encoding_job(dialog: Dialog) -> None:
    assert read_message("L4 硬解 20 路 4K 撑得住吗", dialog.vocab).job == "video_encode"


@pytest.mark.parametrize("text", ["说错了，并发是 80 不是 8", "上下文要 64k，刚才写错了"])
def test_a_corrected_load_or_length_names_no_job(dialog: Dialog, text: str) -> None:
    msg = read_message(text, dialog.vocab)
    assert (msg.intent, msg.job) == ("correction", "none")


def test_a_corrected_model_size_still_names_the_job(dialog: Dialog) -> None:
    assert read_message("不是 14B，是 32B", dialog.vocab).job == "llm_serve"


@pytest.mark.parametrize("text", ["Flux 在 4090 上出图快不快", "A10 跑 7B 慢不慢"])
def test_fast_or_not_asked_is_a_speed_question(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "speed"


def test_what_a_thing_is_asked_with_shi_sha_is_a_concept(dialog: Dialog) -> None:
    assert intent(dialog, "continuous batching 是啥") == "concept"


def test_what_everyone_says_is_a_claims_source(dialog: Dialog) -> None:
    assert intent(dialog, "4090 做训练会不会很快就坏，大家都这么说") == "myth"


@pytest.mark.parametrize(
    "text",
    [
        "有人给我报 H100 整机一小时 180，靠谱吗",
        "包年 8 折，和按月比能省多少",
        "got an offer of ¥4,500/month for a 4090, good price?",
    ],
)
def test_an_offer_held_or_two_ways_weighed_is_a_quote(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "quote"


@pytest.mark.parametrize("text", ["that's more than I wanted to spend", "超出预算了"])
def test_more_than_one_meant_to_spend_asks_cheaper(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "cheaper"


@pytest.mark.parametrize("text", ["为啥是 L40S", "how did you come up with this?"])
def test_why_this_card_or_how_it_was_chosen_is_why(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "why"


def test_a_mistake_owned_with_any_verb_is_a_correction(dialog: Dialog) -> None:
    assert intent(dialog, "搞错了，不是推理是训练") == "correction"


@pytest.mark.parametrize("text", ["怎么付钱", "可以先試用嗎"])
def test_paying_or_a_trial_is_an_order(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "order"


def test_plenty_for_a_job_is_a_verdict(dialog: Dialog) -> None:
    assert intent(dialog, "is one 4090 plenty for a 7B chatbot?") == "fit"


@pytest.mark.parametrize(
    "text", ["单张 4090 全量微调 1.5B 问题大不大", "can I squeeze Llama 3 70B onto two 4090s?"]
)
def test_whether_it_is_a_problem_or_squeezes_in_is_a_verdict(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "fit"


def test_rates_for_a_card_ask_a_price(dialog: Dialog) -> None:
    assert intent(dialog, "rates for H100?") == "price"


def test_time_to_first_token_asked_is_a_speed_question(dialog: Dialog) -> None:
    assert intent(dialog, "what's the time to first token for a 70B on 2 H100s?") == "speed"


@pytest.mark.parametrize("text", ["FP8 和 INT8 有啥区别", "what's the point of NVLink for inference?"])
def test_how_two_notions_differ_or_what_one_is_for_is_a_concept(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "concept"


def test_the_reason_for_a_recommendation_is_why(dialog: Dialog) -> None:
    assert intent(dialog, "这个推荐的理由是什么") == "why"


def test_is_x_not_y_is_a_correction(dialog: Dialog) -> None:
    assert intent(dialog, "不好意思，是 3 张不是 2 张") == "correction"


def test_open_one_for_me_is_an_order(dialog: Dialog) -> None:
    assert intent(dialog, "OK 帮我开一台") == "order"


def test_another_question_wanted_starts_over(dialog: Dialog) -> None:
    assert intent(dialog, "我想换个问题问") == "start_over"


@pytest.mark.parametrize(
    "text",
    [
        "有个供应商给我报 3090 的机器，2500一个月，贵不贵",
        "a supplier quoted 1200 a month for a T4, is that expensive?",
        "RunPod charges 0.34 an hour for an A100, too much?",
        "一个朋友收我 4090 每天 35，算不算贵",
        "有家机房开价 L40S 一个月 6 千，划算吗",
    ],
)
def test_an_offered_amount_without_a_currency_sign_judged_is_a_quote(dialog: Dialog, text: str) -> None:
    """An offer word (报/开价/收我/quoted/charges), an amount billed over a period and a judging
    word: the writer weighs a price put to them, though no ¥ or $ marks the number."""
    assert intent(dialog, text) == "quote"


def test_a_card_and_a_period_without_an_offer_word_is_not_a_quote(dialog: Dialog) -> None:
    """ "3090 一天" names a card beside a period: with no offer word nothing was quoted."""
    assert intent(dialog, "3090 一天能训多少 token") != "quote"


@pytest.mark.parametrize(
    "text",
    [
        "你们最便宜的是什么",
        "whats the cheapest thing you rent?",
        "你們最便宜的 GPU 是哪一款",
        "which is your lowest priced GPU",
    ],
)
def test_the_catalogs_cheapest_asked_is_a_price_lookup(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "price"


def test_the_cheapest_card_for_a_named_job_is_a_pick_to_size(dialog: Dialog) -> None:
    assert intent(dialog, "最便宜能跑 70B 的卡是哪张") == "sizing"


@pytest.mark.parametrize(
    "text",
    [
        "訓練 LoRA 用 T4 還是 3090 比較划算？",
        "L4 和 A10 哪个性价比高",
        "is an L40S worth it over a 4090 for SDXL?",
        "A10 跟 T4 哪個 CP 值高",
    ],
)
def test_two_cards_weighed_for_value_are_compared(dialog: Dialog, text: str) -> None:
    assert intent(dialog, text) == "compare"
