""" "租好了 A100，怎么用 vllm 把 X 起起来" gets the launch command for that model on that card
(bot.dialog.launch_answer through engine.launch and launch_view), never "train or serve?"."""

from __future__ import annotations

from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.reading.launch_words import launch_asked
from gpu_advisor.text.normalize import normalize


def _said(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.text


def test_a_chinese_vllm_request_gets_the_vllm_command(dialog: Dialog) -> None:
    said = _said(dialog, "已经租了一张 4090，怎么用 vllm 启动 qwen2.5 14b")
    assert "vllm serve Qwen/Qwen2.5-14B-Instruct" in said and "训练" not in said


def test_the_command_is_for_the_card_the_user_rented(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "已经租了一张 4090，怎么用 vllm 启动 qwen2.5 14b")
    assert reply.title is not None and "RTX 4090" in reply.title


def test_an_english_sglang_request_gets_only_the_sglang_command(dialog: Dialog) -> None:
    said = _said(dialog, "how do I spin up Mistral-7B with SGLang on my rented L40S?")
    assert "sglang.launch_server" in said and "vllm serve" not in said


def test_a_traditional_ollama_request_gets_the_gguf_and_ollama_steps(dialog: Dialog) -> None:
    said = _said(dialog, "租好了 A100，怎麼用 Ollama 把 Llama-3.1-8B 跑起來")
    assert "Q4_K_M.gguf" in said and "ollama create" in said


def test_a_launch_request_without_a_runtime_gets_the_planned_one(dialog: Dialog) -> None:
    said = _said(dialog, "I've got an A100 80G, how do I start qwen2.5 32b on it?")
    assert "vllm serve Qwen/Qwen2.5-32B-Instruct" in said


def test_how_to_deploy_cheaply_is_still_a_sizing_request() -> None:
    assert launch_asked(normalize("怎么部署 Qwen2.5-7B 给 50 人用最便宜")) is None


def test_a_capacity_question_naming_vllm_is_no_launch_request() -> None:
    assert launch_asked(normalize("how many users can vLLM handle for Llama 8B on an A100?")) is None


def test_the_command_asked_for_after_the_model_is_a_launch_request() -> None:
    assert launch_asked(normalize("刚租了台 H100，vLLM 部署 Qwen2.5-72B-Instruct 的命令是什么")) == "vllm"


def test_a_traditional_request_with_the_how_after_the_start_gets_the_command(dialog: Dialog) -> None:
    said = _said(dialog, "已經租好 4090 了，vLLM 啟動 Llama-3.1-8B 要怎麼下指令")
    assert "vllm serve" in said and "訓練" not in said
