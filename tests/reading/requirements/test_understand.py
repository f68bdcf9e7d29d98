"""Behaviour of the zh/en free-text understanding layer (reading.requirements).

The tables are first messages as users type them, each with the exact slots it must
yield: the whole slots dict is compared, so an extra wrong slot fails as surely as a
missing one. Field names and value types are those of ``engine.workload.Workload``.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_advisor.engine.workload import Workload
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS, Extraction, Vocabulary, extract, normalize
from gpu_advisor.text.normalize import MAX_REPEAT

MODELS = {
    "llama-2-13b": ["llama 2 13b", "llama2 13b", "llama-2-13b-chat"],
    "llama-3.1-70b": ["llama 3.1 70b", "llama-3.1-70b-instruct"],
    "llama-3.1-8b": ["llama 3.1 8b"],
    "llama-3-8b": ["llama 3 8b", "llama3 8b"],
    "qwen2.5-14b": ["qwen2.5 14b", "qwen 14b", "qwen2.5-14b-instruct"],
    "qwen2.5-7b": ["qwen2.5 7b", "qwen 7b"],
    "qwen2.5-72b": ["qwen2.5 72b", "qwen 72b"],
    "mixtral-8x7b": ["mixtral 8x7b", "mixtral-8x7b-instruct"],
    "deepseek-r1-distill-qwen-32b": ["deepseek r1 distill qwen 32b", "deepseek-r1-32b"],
    "chatglm3-6b": ["chatglm3 6b", "chatglm3"],
    "mistral-7b": ["mistral 7b"],
    "yi-34b": ["yi 34b"],
}
GPUS = {
    "t4": ["t4", "tesla t4"],
    "rtx3090": ["3090", "rtx 3090"],
    "rtx4090": ["4090", "rtx 4090"],
    "a100-40g-sxm": ["a100", "a100 40g"],
    "a100-80g-sxm": ["a100 80g"],
    "h100-sxm": ["h100"],
    "l40s": ["l40s"],
    "h20": ["h20"],
    "v100-32g-sxm": ["v100"],
}


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary(MODELS, GPUS)


def cny(amount: float, per: str = "month") -> dict[str, Any]:
    return {"amount": amount, "currency": "CNY", "per": per}


def usd(amount: float, per: str = "month") -> dict[str, Any]:
    return {"amount": amount, "currency": "USD", "per": per}


A100 = "a100-40g-sxm"

# (behaviour, message, exact slots). Any CJK character in the message means lang "zh".
ZH_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("owned_t4_counts_one", "我有一张T4", {"gpu": "t4", "gpu_count": 1}),
    ("budget_yi_wan_a_month", "预算一万一个月", {"budget": cny(10000)}),
    ("budget_monthly_cap", "每月3000以内", {"budget": cny(3000)}),
    ("budget_month_prefix_qian", "月预算5千", {"budget": cny(5000)}),
    ("budget_wan_per_month_slash", "1.5万/月", {"budget": cny(15000)}),
    ("budget_yuan", "2000元", {"budget": cny(2000)}),
    ("budget_us_dollars_zh", "500美元", {"budget": usd(500)}),
    ("budget_per_hour_kuai", "每小时10块", {"budget": cny(10, "hour")}),
    ("budget_total", "总预算5万", {"budget": cny(50000, "total")}),
    ("budget_fullwidth_yen", "预算￥2000每月", {"budget": cny(2000)}),
    ("budget_k_is_money_after_budget_word", "预算8k", {"budget": cny(8000)}),
    ("budget_wan_with_trailing_digit", "预算1万5", {"budget": cny(15000)}),
    ("budget_chinese_numerals", "预算一万五", {"budget": cny(15000)}),
    ("budget_kuai_a_month", "预算三千块一个月", {"budget": cny(3000)}),
    ("budget_per_day_restated_monthly", "每天100元", {"budget": cny(3000)}),
    ("duration_three_days", "跑三天", {"duration_hours": 72.0}),
    ("deadline_within_a_week_and_infer", "一周内上线", {"deadline_hours": 168.0, "task": "infer"}),
    ("duration_two_weeks", "两周", {"duration_hours": 336.0}),
    ("duration_one_month", "跑一个月", {"duration_hours": 720.0}),
    ("duration_hours", "10小时", {"duration_hours": 10.0}),
    ("duration_arabic_days", "跑2天", {"duration_hours": 48.0}),
    ("always_on_7x24_hours", "7×24小时运行", {"always_on": True}),
    ("always_on_long_term_resident", "长期常驻", {"always_on": True}),
    ("always_on_keep_running", "一直跑", {"always_on": True}),
    ("always_on_all_weather", "全天候运行", {"always_on": True}),
    ("train_tokens_yi", "2亿 token 的数据", {"train_tokens": 2e8}),
    ("gpu_count_spaced_ka", "8 卡 A100", {"gpu": A100, "gpu_count": 8}),
    ("gpu_count_zhang", "8张A100", {"gpu": A100, "gpu_count": 8}),
    ("gpu_count_liang_zhang", "两张3090", {"gpu": "rtx3090", "gpu_count": 2}),
    ("gpu_count_kuai", "4块L40S", {"gpu": "l40s", "gpu_count": 4}),
    ("gpu_single_card", "单卡T4", {"gpu": "t4", "gpu_count": 1}),
    ("gpu_count_without_name", "服务器要8卡", {"gpu_count": 8}),
    ("batch_size_zh", "批大小16", {"batch_size": 16}),
    ("lora_rank_zh", "秩8", {"lora_rank": 8}),
    ("output_tokens_zh", "输出500 token", {"output_tokens": 500}),
    ("context_keyword_first", "上下文4096", {"context_len": 4096}),
    ("sequence_length", "序列长度2048", {"context_len": 2048}),
    ("concurrency_keyword_first", "并发16", {"task": "infer", "concurrency": 16}),
    ("concurrency_number_first", "16并发", {"task": "infer", "concurrency": 16}),
    ("concurrency_lu", "16路并发", {"task": "infer", "concurrency": 16}),
    ("concurrency_online_people", "同时在线50人", {"task": "infer", "concurrency": 50}),
    ("qps_per_second_requests", "每秒20个请求", {"task": "infer", "qps": 20.0}),
    ("ttft_first_token_ms", "首token低于200ms", {"task": "infer", "ttft_ms_max": 200.0}),
    ("ttft_first_char_haomiao", "首字延迟200毫秒以内", {"task": "infer", "ttft_ms_max": 200.0}),
    ("params_yi_canshu", "70亿参数", {"params_b": 7.0}),
    ("params_qi_bai_yi", "七百亿", {"params_b": 70.0}),
    ("params_chinese_numeral_with_b", "十三B", {"params_b": 13.0}),
    ("params_qian_yi", "千亿参数的模型", {"params_b": 100.0}),
    (
        "params_pretrain_small",
        "预训练一个1.5B的模型",
        {"method": "full", "task": "train", "params_b": 1.5, "pretrain": True},
    ),
    ("task_train_jing_tiao", "精调一个模型", {"task": "train"}),
    ("params_bare_qian_yi", "千亿", {"params_b": 100.0}),
    ("task_both_finetune_then_deploy", "先微调再部署", {"task": "both"}),
    ("method_full_quan_can", "全参微调", {"method": "full", "task": "train"}),
    ("method_full_quan_liang", "全量训练", {"method": "full", "task": "train"}),
    ("dtype_half_precision_infer", "半精度推理", {"weight_dtype": "fp16", "task": "infer"}),
    ("dtype_four_wei", "4位量化", {"weight_dtype": "int4"}),
    ("dtype_eight_wei_deploy", "8位量化部署", {"weight_dtype": "int8", "task": "infer"}),
    ("skip_dont_know", "不知道", {}),
    ("skip_whatever", "随便", {}),
    ("skip_default", "默认就行", {}),
    ("infer_answer_users", "给用户回答问题的聊天机器人", {"task": "infer"}),
    ("trained_model_is_deployed_not_trained", "训练好的模型要部署", {"task": "infer"}),
    ("year_is_a_date_not_a_duration", "2024年底前上线", {"task": "infer"}),
    ("ordinary_words_are_not_numbers", "统一一下，十分重要，万一不行呢", {}),
    (
        "lora_finetune_full_message",
        "我想用LoRA微调Llama 2 13B，数据大概2亿token，预算每月一万，跑三天",
        {
            "model": "llama-2-13b",
            "method": "lora",
            "task": "train",
            "train_tokens": 2e8,
            "budget": cny(10000),
            "duration_hours": 72.0,
        },
    ),
    (
        "serving_full_message",
        "部署qwen2.5-14b给用户回答问题，并发16，首token低于200ms，上下文8k",
        {
            "model": "qwen2.5-14b",
            "task": "infer",
            "concurrency": 16,
            "ttft_ms_max": 200.0,
            "context_len": 8192,
        },
    ),
    (
        "full_finetune_on_eight_a100",
        "需要跑一个月的全参微调，70亿参数，bf16，8卡A100",
        {
            "duration_hours": 720.0,
            "method": "full",
            "task": "train",
            "params_b": 7.0,
            "weight_dtype": "bf16",
            "gpu": A100,
            "gpu_count": 8,
        },
    ),
    (
        "monthly_w_budget_and_long_term",
        "月预算2w，部署一个七百亿参数的模型，长期运行",
        {"budget": cny(20000), "task": "infer", "params_b": 70.0, "always_on": True},
    ),
    (
        "load_lengths_and_hourly_budget",
        "每秒20个请求，输出500 token，输入2000 token，预算每小时10块",
        {
            "task": "infer",
            "qps": 20.0,
            "output_tokens": 500,
            "prompt_tokens": 2000,
            "budget": cny(10, "hour"),
        },
    ),
    (
        "owned_cards_asking_about_model",
        "我有两张3090，能跑qwen 7b推理吗",
        {"gpu": "rtx3090", "gpu_count": 2, "model": "qwen2.5-7b", "task": "infer"},
    ),
    (
        "per_sample_tokens_times_samples",
        "10万条样本，每条500 token，用LoRA微调qwen2.5-7b",
        {"model": "qwen2.5-7b", "method": "lora", "task": "train", "train_tokens": 5e7},
    ),
    (
        "kv_cache_precision_is_not_weight_precision",
        "kv cache fp8，权重int8，部署 deepseek-r1-distill-qwen-32b",
        {"kv_dtype": "fp8", "weight_dtype": "int8", "task": "infer", "model": "deepseek-r1-distill-qwen-32b"},
    ),
    (
        "my_4090_finetune_chatglm",
        "我的4090能不能微调chatglm3-6b",
        {"gpu": "rtx4090", "task": "train", "model": "chatglm3-6b"},
    ),
    ("context_before_chatbot", "8k上下文，上线一个客服机器人", {"context_len": 8192, "task": "infer"}),
    ("generation_speed_is_not_output_length", "生成速度20 token/s", {}),
    ("concurrency_people_at_once", "支持100人同时使用", {"task": "infer", "concurrency": 100}),
    (
        "fullwidth_digits_and_letters",
        "ＱＰＳ２０，１３Ｂ模型",
        {"task": "infer", "qps": 20.0, "params_b": 13.0},
    ),
    # Traditional characters
    (
        "traditional_finetune_budget",
        "我想微調一個130億參數的模型，預算每月一萬",
        {"task": "train", "params_b": 13.0, "budget": cny(10000)},
    ),
    (
        "traditional_two_a100_serving",
        "預算每月一萬，兩張A100，推理服務",
        {"budget": cny(10000), "gpu": A100, "gpu_count": 2, "task": "infer"},
    ),
    (
        "traditional_load_and_latency",
        "並發16，首字延遲200毫秒以內，上下文32K",
        {"task": "infer", "concurrency": 16, "ttft_ms_max": 200.0, "context_len": 32768},
    ),
    (
        "traditional_size_and_data",
        "我想微調一個七十億參數的模型，數據量2億token",
        {"task": "train", "params_b": 7.0, "train_tokens": 2e8},
    ),
    (
        "traditional_total_budget_two_weeks",
        "總預算5萬，跑兩週",
        {"budget": cny(50000, "total"), "duration_hours": 336.0},
    ),
    (
        "traditional_hourly_budget_month",
        "每小時10塊，部署一個月",
        {"budget": cny(10, "hour"), "task": "infer", "duration_hours": 720.0},
    ),
    ("traditional_owned_t4", "我有一張T4，想跑推理", {"gpu": "t4", "gpu_count": 1, "task": "infer"}),
    (
        "traditional_full_params_half_precision",
        "全參數微調，半精度，序列長度4096",
        {"method": "full", "task": "train", "weight_dtype": "fp16", "context_len": 4096},
    ),
    # Mixed Chinese and English
    (
        "mixed_two_a100_for_training",
        "需要 2x A100 for training",
        {"gpu": A100, "gpu_count": 2, "task": "train"},
    ),
    (
        "mixed_deploy_with_dollar_budget",
        "部署 Llama-3.1-70B, 8k context, 预算 $2000/月",
        {"task": "infer", "model": "llama-3.1-70b", "context_len": 8192, "budget": usd(2000)},
    ),
    (
        "mixed_eight_t4_fp16",
        "用 8 x T4 跑 llama2 13b 推理 FP16",
        {"gpu": "t4", "gpu_count": 8, "model": "llama-2-13b", "task": "infer", "weight_dtype": "fp16"},
    ),
    (
        "mixed_lora_rank_two_4090",
        "fine-tune qwen2.5-14b 用 LoRA, rank 16, 两张4090",
        {
            "task": "train",
            "model": "qwen2.5-14b",
            "method": "lora",
            "lora_rank": 16,
            "gpu": "rtx4090",
            "gpu_count": 2,
        },
    ),
    (
        "mixed_serve_concurrency_ttft",
        "serve chatglm3-6b, 并发 32, TTFT 300ms以内",
        {"task": "infer", "model": "chatglm3-6b", "concurrency": 32, "ttft_ms_max": 300.0},
    ),
]

EN_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("owned_4090_counts_one", "I have a 4090", {"gpu": "rtx4090", "gpu_count": 1}),
    (
        "mixtral_on_eight_h100",
        "Mixtral 8x7B on 8x H100",
        {"model": "mixtral-8x7b", "gpu": "h100-sxm", "gpu_count": 8},
    ),
    ("model_alias_with_suffix", "Llama-3.1-70B-Instruct", {"model": "llama-3.1-70b"}),
    ("model_short_alias", "qwen 14b", {"model": "qwen2.5-14b"}),
    ("params_upper_b", "13B", {"params_b": 13.0}),
    ("params_lower_b", "a 13b model", {"params_b": 13.0}),
    ("params_spaced_b", "13 B", {"params_b": 13.0}),
    ("params_decimal", "1.5B", {"params_b": 1.5}),
    ("params_half_billion", "0.5b", {"params_b": 0.5}),
    ("params_millions", "a 350M params model", {"params_b": 0.35}),
    ("method_full_finetune", "full fine-tune", {"method": "full", "task": "train"}),
    ("method_full_parameter", "full-parameter training", {"method": "full", "task": "train"}),
    ("qlora_implies_training", "QLoRA", {"method": "qlora", "task": "train"}),
    ("dtype_fp16", "FP16", {"weight_dtype": "fp16"}),
    ("dtype_bf16", "BF16 weights", {"weight_dtype": "bf16"}),
    ("dtype_fp8", "serve in FP8", {"weight_dtype": "fp8", "task": "infer"}),
    ("dtype_8bit", "8bit", {"weight_dtype": "int8"}),
    ("dtype_4_dash_bit", "4-bit", {"weight_dtype": "int4"}),
    ("dtype_q4", "Q4", {"weight_dtype": "q4_k_m"}),
    ("dtype_q4_k_m", "q4_k_m gguf", {"weight_dtype": "q4_k_m"}),
    ("dtype_q8", "Q8", {"weight_dtype": "q8_0"}),
    ("dtype_gptq", "GPTQ", {"weight_dtype": "gptq"}),
    ("dtype_int4", "int4", {"weight_dtype": "int4"}),
    ("dtype_q8_0", "q8_0", {"weight_dtype": "q8_0"}),
    ("dtype_awq", "AWQ", {"weight_dtype": "awq"}),
    ("dtype_int8", "INT8", {"weight_dtype": "int8"}),
    (
        "dtype_4bit",
        "run 70b in 4bit on 2x 3090",
        {"task": "infer", "params_b": 70.0, "weight_dtype": "int4", "gpu": "rtx3090", "gpu_count": 2},
    ),
    ("context_number_first", "4096 context", {"context_len": 4096}),
    ("context_128k", "128k context", {"context_len": 131072}),
    ("context_of_16k", "context of 16k", {"context_len": 16384}),
    ("context_seq_len", "seq len 2048", {"context_len": 2048}),
    ("bare_8k_is_context", "8k", {"context_len": 8192}),
    ("dollar_8k_is_budget", "$8k", {"budget": usd(8000)}),
    ("concurrent_users", "30 concurrent users", {"task": "infer", "concurrency": 30}),
    ("qps_number_first", "20 QPS", {"task": "infer", "qps": 20.0}),
    ("qps_keyword_first", "qps 20", {"task": "infer", "qps": 20.0}),
    ("qps_requests_per_second", "20 requests per second", {"task": "infer", "qps": 20.0}),
    ("qps_req_per_s", "20 req/s", {"task": "infer", "qps": 20.0}),
    ("qps_per_minute", "600 requests per minute", {"task": "infer", "qps": 10.0}),
    ("ttft_seconds", "TTFT < 0.5s", {"task": "infer", "ttft_ms_max": 500.0}),
    ("ttft_without_unit_small_is_seconds", "ttft 2", {"task": "infer", "ttft_ms_max": 2000.0}),
    ("ttft_without_unit_large_is_ms", "TTFT 500", {"task": "infer", "ttft_ms_max": 500.0}),
    ("concurrency_after_number", "inference with 128 concurrency", {"task": "infer", "concurrency": 128}),
    ("hourly_cap_in_rmb", "cost per hour under 20 rmb", {"budget": cny(20, "hour")}),
    ("ollama_tag_is_a_model", "qwen2.5:7b", {"model": "qwen2.5-7b"}),
    ("ttft_first_token_under", "first token under 300 ms", {"task": "infer", "ttft_ms_max": 300.0}),
    ("budget_yen_sign", "¥2000", {"budget": cny(2000)}),
    ("budget_dollar_a_month", "$500 a month", {"budget": usd(500)}),
    ("budget_dollars_per_month", "500 dollars per month", {"budget": usd(500)}),
    ("budget_usd_hourly", "budget of about $2/hour", {"budget": usd(2, "hour")}),
    ("deadline_within_a_week", "within a week", {"deadline_hours": 168.0}),
    ("duration_for_three_days", "for 3 days", {"duration_hours": 72.0}),
    ("always_on_24_7", "24/7", {"always_on": True}),
    ("always_on_times_sign", "7×24", {"always_on": True}),
    ("always_on_24_times_7", "24×7 serving", {"always_on": True, "task": "infer"}),
    ("always_on_words", "always on", {"always_on": True}),
    ("train_tokens_b", "2B tokens", {"train_tokens": 2e9}),
    ("train_tokens_m", "500M tokens", {"train_tokens": 5e8}),
    (
        "train_tokens_billion_word",
        "pretrain on 2 billion tokens",
        {"method": "full", "task": "train", "train_tokens": 2e9, "pretrain": True},
    ),
    ("gpu_times_sign", "8×H100", {"gpu": "h100-sxm", "gpu_count": 8}),
    ("gpu_spaced_x", "2 x 4090", {"gpu": "rtx4090", "gpu_count": 2}),
    ("gpu_word_count", "one A100", {"gpu": A100, "gpu_count": 1}),
    (
        "gpu_count_after_name",
        "v100 x 4 for training",
        {"gpu": "v100-32g-sxm", "gpu_count": 4, "task": "train"},
    ),
    (
        "gpu_80g_variant",
        "inference on a100 80GB with 4k context",
        {"gpu": "a100-80g-sxm", "task": "infer", "context_len": 4096},
    ),
    ("batch_size_en", "batch size 8", {"batch_size": 8}),
    ("batch_size_bs", "bs=4", {"batch_size": 4}),
    ("lora_rank_en", "rank 16", {"lora_rank": 16}),
    ("lora_rank_r_equals", "r=64", {"lora_rank": 64}),
    ("prompt_and_output", "prompt 2000 tokens, output 300", {"prompt_tokens": 2000, "output_tokens": 300}),
    ("skip_dont_know", "don't know", {}),
    ("skip_whatever", "whatever", {}),
    ("host_a_chatbot", "host a chatbot", {"task": "infer"}),
    ("trained_model_is_served", "a trained model, just serve it", {"task": "infer"}),
    ("server_is_not_serving", "which server should I rent", {}),
    (
        "qlora_full_message",
        "I want to fine-tune llama 3 8b with QLoRA, rank 16, batch size 8, seq len 2048, budget $500 a month",
        {
            "task": "train",
            "model": "llama-3-8b",
            "method": "qlora",
            "lora_rank": 16,
            "batch_size": 8,
            "context_len": 2048,
            "budget": usd(500),
        },
    ),
    (
        "serving_full_message",
        "serve Llama-3.1-70B-Instruct at 20 QPS with 8k context, 7x24",
        {"task": "infer", "model": "llama-3.1-70b", "qps": 20.0, "context_len": 8192, "always_on": True},
    ),
    (
        "pretraining_full_message",
        "We have 8 A100s and want to pretrain a 7B model on 500B tokens within a week",
        {
            "method": "full",
            "gpu": A100,
            "gpu_count": 8,
            "task": "train",
            "params_b": 7.0,
            "train_tokens": 5e11,
            "deadline_hours": 168.0,
            "pretrain": True,
        },
    ),
    (
        "awq_beats_generic_int4",
        "deploy mixtral 8x7b in int4 awq, 30 concurrent users, ttft under 1s",
        {
            "task": "infer",
            "model": "mixtral-8x7b",
            "weight_dtype": "awq",
            "concurrency": 30,
            "ttft_ms_max": 1000.0,
        },
    ),
    (
        "total_dollar_budget_two_weeks",
        "How much for 4x H100 for 2 weeks? budget 5000 dollars total",
        {"gpu": "h100-sxm", "gpu_count": 4, "duration_hours": 336.0, "budget": usd(5000, "total")},
    ),
    (
        "hourly_budget_context_prompt",
        "budget of about $2/hour, context 32K, prompt 1k tokens",
        {"budget": usd(2, "hour"), "context_len": 32768, "prompt_tokens": 1024},
    ),
    (
        "single_gpu_70b",
        "finetune 70b model on a single gpu?",
        {"task": "train", "params_b": 70.0, "gpu_count": 1},
    ),
    ("gpus_for_days", "need 4 gpus for 3 days", {"gpu_count": 4, "duration_hours": 72.0}),
    (
        "lora_on_a_3090",
        "LoRA fine-tuning of qwen2.5-7b on a 3090",
        {"method": "lora", "task": "train", "model": "qwen2.5-7b", "gpu": "rtx3090", "gpu_count": 1},
    ),
    (
        "owned_h100s_serving",
        "I have 2 H100s and want to serve llama 3.1 70b",
        {"gpu": "h100-sxm", "gpu_count": 2, "task": "infer", "model": "llama-3.1-70b"},
    ),
    ("usd_budget_and_h20", "budget 3000 usd per month, h20", {"budget": usd(3000), "gpu": "h20"}),
    ("hours_on_an_l40s", "12 hours on an l40s", {"duration_hours": 12.0, "gpu": "l40s", "gpu_count": 1}),
    (
        "model_with_gptq",
        "deepseek-r1-distill-qwen-32b with gptq",
        {"model": "deepseek-r1-distill-qwen-32b", "weight_dtype": "gptq"},
    ),
    (
        "lengths_number_first",
        "4096 tokens context, 500 tokens output, 2 req/s",
        {"task": "infer", "context_len": 4096, "output_tokens": 500, "qps": 2.0},
    ),
    (
        "small_token_count_is_a_length",
        "I need 8k tokens and about 1.5k output tokens",
        {"context_len": 8192, "output_tokens": 1536},
    ),
]


@pytest.mark.parametrize(("text", "slots"), [pytest.param(t, s, id=i) for i, t, s in ZH_CASES])
def test_chinese_first_message_yields_exactly_these_slots(
    vocab: Vocabulary, text: str, slots: dict[str, Any]
) -> None:
    result = extract(text, vocab)
    assert result.slots == slots
    assert result.lang == "zh"


@pytest.mark.parametrize(("text", "slots"), [pytest.param(t, s, id=i) for i, t, s in EN_CASES])
def test_english_first_message_yields_exactly_these_slots(
    vocab: Vocabulary, text: str, slots: dict[str, Any]
) -> None:
    result = extract(text, vocab)
    assert result.slots == slots
    assert result.lang == "en"


def test_tables_cover_enough_messages() -> None:
    traditional = [case for case in ZH_CASES if case[0].startswith("traditional_")]
    assert len(ZH_CASES) >= 45
    assert len(EN_CASES) >= 40
    assert len(traditional) >= 5
    assert len(ZH_CASES) + len(EN_CASES) >= 90


# -- names and counts ---------------------------------------------------------------


def test_mixtral_8x7b_is_a_model_not_eight_gpus_nor_a_7b_size(vocab: Vocabulary) -> None:
    result = extract("Mixtral 8x7B", vocab)
    assert result.slots == {"model": "mixtral-8x7b"}


def test_unknown_mixture_of_experts_size_is_reported_not_guessed(vocab: Vocabulary) -> None:
    result = extract("部署 8x22B", vocab)
    assert result.slots == {"task": "infer"}
    assert [(issue.id, issue.values["name"]) for issue in result.issues] == [("unknown_model", "8x22b")]


def test_known_model_suppresses_params_b(vocab: Vocabulary) -> None:
    result = extract("llama 2 13b, that is 13B parameters", vocab)
    assert result.slots == {"model": "llama-2-13b"}


def test_unknown_model_of_a_known_family_keeps_its_size_and_says_so(vocab: Vocabulary) -> None:
    result = extract("qwen3-32b 推理", vocab)
    assert result.slots == {"task": "infer", "params_b": 32.0}
    assert [issue.id for issue in result.issues] == ["unknown_model"]
    assert result.issues[0].values["name"] == "qwen3-32b"


def test_longest_gpu_alias_wins_and_gigabytes_spelling_is_tolerated(vocab: Vocabulary) -> None:
    assert extract("A100 80G", vocab).slots == {"gpu": "a100-80g-sxm"}
    assert extract("a100-80gb", vocab).slots == {"gpu": "a100-80g-sxm"}
    assert extract("A100", vocab).slots == {"gpu": A100}


def test_owning_a_gpu_is_flagged_but_asking_about_one_is_not(vocab: Vocabulary) -> None:
    assert extract("我有一张T4", vocab).gpu_owned
    assert extract("I have a 4090", vocab).gpu_owned
    assert extract("我的4090能跑吗", vocab).gpu_owned
    assert not extract("I have a question about the H100", vocab).gpu_owned
    assert not extract("我没有显卡，想租一张A100", vocab).gpu_owned
    assert not extract("4090 能跑 13b 吗", vocab).gpu_owned


def test_owned_gpu_is_preferred_over_one_merely_asked_about(vocab: Vocabulary) -> None:
    result = extract("想问问A100行不行，我有一张T4", vocab)
    assert result.slots["gpu"] == "t4"
    assert result.gpu_owned
    assert result.gpus == ["t4", A100]


def test_two_cards_in_one_message_are_a_comparison_not_a_conflict(vocab: Vocabulary) -> None:
    result = extract("a100 x 8, h100 x 4 哪个划算", vocab)
    assert result.slots == {"gpu": A100, "gpu_count": 8}
    assert result.gpus == [A100, "h100-sxm"]
    assert not result.issues


def test_two_budgets_conflict_as_money_never_as_a_raw_record(vocab: Vocabulary) -> None:
    result = extract("预算每月一万，预算每月两万", vocab)
    conflict = next(i for i in result.issues if i.id == "conflicting_values")
    assert conflict.values["kept_amount"] == 10000 and conflict.values["ignored_amount"] == 20000


# -- numbers ------------------------------------------------------------------------


def test_size_followed_by_tokens_is_data_not_model_size(vocab: Vocabulary) -> None:
    result = extract("train a 7B model on 2B tokens", vocab)
    assert result.slots == {"task": "train", "params_b": 7.0, "train_tokens": 2e9}


def test_qlora_wins_over_lora_and_sets_no_weight_dtype(vocab: Vocabulary) -> None:
    result = extract("QLoRA, or maybe LoRA", vocab)
    assert result.slots == {"method": "qlora", "task": "train"}


def test_money_8k_is_budget_and_bare_8k_is_context(vocab: Vocabulary) -> None:
    assert extract("预算8k, 8k", vocab).slots == {"budget": cny(8000), "context_len": 8192}


def test_currency_is_assumed_cny_and_flagged_only_without_a_currency_word(vocab: Vocabulary) -> None:
    assumed = extract("budget 10000 a month", vocab)
    assert [(issue.id, issue.values) for issue in assumed.issues] == [
        ("currency_assumed", {"currency": "CNY"})
    ]
    assert extract("每月一万元", vocab).issues == []
    chinese = extract("预算一万一个月", vocab)  # issue 44: nobody writing Chinese doubts it is yuan
    assert chinese.slots["budget"] == cny(10000) and chinese.issues == []
    assert extract("$500 a month", vocab).issues == []


def test_budget_without_period_is_monthly_and_flagged(vocab: Vocabulary) -> None:
    result = extract("2000元", vocab)
    assert result.slots == {"budget": cny(2000)}
    assert [(issue.id, issue.values) for issue in result.issues] == [("period_assumed", {"per": "month"})]


def test_budget_month_words_are_not_read_as_durations(vocab: Vocabulary) -> None:
    assert "duration_hours" not in extract("预算一万一个月", vocab).slots
    assert extract("跑一个月，预算一万元", vocab).slots["duration_hours"] == 720.0


def test_absurd_params_become_an_issue_not_a_slot(vocab: Vocabulary) -> None:
    result = extract("10000000B", vocab)
    assert result.slots == {}
    assert result.issues[0].model_dump() == {
        "id": "params_out_of_range",
        "field": "params_b",
        "values": {"value": 1e7, "max": 10000},
    }


def test_negative_context_becomes_an_issue_quoting_the_typed_value(vocab: Vocabulary) -> None:
    result = extract("-5k context", vocab)
    assert result.slots == {}
    assert result.issues[0].model_dump() == {
        "id": "negative_number",
        "field": "context_len",
        "values": {"value": -5000},
    }


def test_huge_context_is_too_large(vocab: Vocabulary) -> None:
    result = extract("context 4,000,000 tokens", vocab)
    assert result.slots == {}
    assert result.issues[0].id == "number_too_large"
    assert result.issues[0].values == {"value": 4_000_000, "max": 2_097_152}


def test_zero_is_not_a_usable_number(vocab: Vocabulary) -> None:
    result = extract("batch size 0", vocab)
    assert result.slots == {}
    assert result.issues[0].id == "number_not_positive"


def test_hyphen_inside_a_name_is_not_a_minus_sign(vocab: Vocabulary) -> None:
    assert extract("foo-13b", vocab).slots == {"params_b": 13.0}


# -- flags, language, normalisation, matched spans ----------------------------------


@pytest.mark.parametrize("text", ["不知道", "随便", "默认", "skip", "don't know", "whatever", "隨便"])
def test_skip_words_set_the_skip_flag(vocab: Vocabulary, text: str) -> None:
    assert extract(text, vocab).skip


def test_specific_answer_is_not_a_skip(vocab: Vocabulary) -> None:
    assert not extract("并发16", vocab).skip


@pytest.mark.parametrize(
    ("text", "lang"),
    [("需要 2x A100 for training", "zh"), ("serve llama", "en"), ("１３Ｂ", "zh"), ("", "en"), ("😀", "en")],
)
def test_any_chinese_character_means_chinese(vocab: Vocabulary, text: str, lang: str) -> None:
    assert extract(text, vocab).lang == lang


def test_normalize_folds_width_traditional_characters_and_case() -> None:
    assert normalize("ＱＰＳ，１３Ｂ") == "qps,13b"
    assert normalize("萬億兩張訓練推理預算並發顯卡個時週") == "万亿两张训练推理预算并发显卡个时周"
    assert normalize("8×H100") == "8xh100"


def test_normalize_turns_each_whitespace_run_into_one_space() -> None:
    """One space per run keeps adjacent ``\\s*`` from splitting a long run (issue 14)."""
    assert normalize("并发 \t\u3000\u00a0\u200b 16\t\tusers") == "并发 16 users"


def test_normalize_keeps_a_run_with_a_line_break_as_one_newline() -> None:
    """A newline ends a clause for the readers, so it must survive the collapse."""
    assert normalize("并发 \r\n\n\t 16") == "并发\n16"


def test_a_line_break_inside_a_whitespace_run_still_ends_the_clause(vocab: Vocabulary) -> None:
    assert "concurrency" not in extract("并发 \n\n\t 16", vocab).slots


def test_normalize_cuts_a_run_of_one_character_to_the_cap() -> None:
    assert normalize("k" * 500 + "x") == "k" * MAX_REPEAT + "x"


def test_normalize_turns_lone_surrogates_into_spaces() -> None:
    assert normalize("并发\ud80016\udfff") == "并发 16 "


def test_matched_spans_of_text_with_lone_surrogates_can_be_encoded(vocab: Vocabulary) -> None:
    """A budget word reaches its amount across a few characters, a surrogate among them."""
    result = extract("预算\ud800一万", vocab)
    assert result.slots["budget"]["amount"] == 10000.0
    assert [span.encode("utf-8") for span in result.matched] == ["预算 一万".encode()]


def test_matched_lists_the_understood_spans_in_message_order(vocab: Vocabulary) -> None:
    result = extract("部署qwen2.5-14b，并发16，预算每月一万", vocab)
    assert result.matched == ["部署", "qwen2.5-14b", "并发16", "预算每月一万"]


# -- bad input ----------------------------------------------------------------------

HOSTILE = [
    "",
    "   \n\t ",
    "😀🎉🔥",
    b"\xff\xfe\x00\x81GPU\x9c\xc3".decode("utf-8", errors="replace"),
    "'; DROP TABLE users; --",
    "<script>alert(1)</script>",
    "\x00\x01\x02",
    "1e9999",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_junk_and_injection_yield_no_slots_and_no_exception(vocab: Vocabulary, text: str) -> None:
    result = extract(text, vocab)
    assert result.slots == {}
    assert result.lang == "en"


def test_hostile_text_with_chinese_is_still_chinese(vocab: Vocabulary) -> None:
    result = extract("<script>你好</script>", vocab)
    assert (result.slots, result.lang) == ({}, "zh")


def test_input_is_capped_before_parsing(vocab: Vocabulary) -> None:
    text = "x" * MAX_INPUT_CHARS + " 13B"
    assert extract(text, vocab).slots == {}
    assert extract("13B " + "x" * 100_000, vocab).slots == {"params_b": 13.0}


@pytest.mark.parametrize("unit", ["1", "1,", "1 ", "8x", "一万", "预算", "1k ", "a100 "])
def test_long_repetitive_input_is_parsed_quickly(vocab: Vocabulary, unit: str) -> None:
    text = unit * (100_000 // len(unit))
    started = time.perf_counter()
    extract(text, vocab)
    assert time.perf_counter() - started < 2.0


# -- properties ---------------------------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        "预算", "每月", "一万", "8k", "-", "13b", "亿", "张", "a100", "x", "并发", "qps", "token",
        "上下文", "首token", "ms", "$", "元", "3天", " ", ",", "，", "lora", "int4", "7x24",
        "mixtral 8x7b", "我有", "10000000b", "0", "1.5", "两", "半", "个月", "batch size", "r=",
    ]
)  # fmt: skip
_MESSAGES = st.one_of(st.text(max_size=300), st.lists(_FRAGMENTS, max_size=25).map("".join))


@settings(max_examples=300, deadline=None)
@given(_MESSAGES)
def test_extract_never_raises_and_always_names_a_language(vocab: Vocabulary, text: str) -> None:
    result = extract(text, vocab)
    assert isinstance(result, Extraction)
    assert result.lang in {"zh", "en"}


@settings(max_examples=300, deadline=None)
@given(_MESSAGES)
def test_every_extracted_slot_is_valid_for_the_workload_contract(vocab: Vocabulary, text: str) -> None:
    result = extract(text, vocab)
    for name, value in result.slots.items():
        base: dict[str, Any] = {"task": "infer", "params_b": 7.0}
        Workload.model_validate({**base, name: value})
