"""A name is said in the reply's language wherever that language has its own words (issue 47).

The engine carries the catalogue's names and ids (a runtime's "Hugging Face transformers
(generate, eager)", a rebuilt board's "(rebuilt)", an upgrade's "cpu-16c", a codec's "h264");
the reply says each as a Chinese reader reads it, and the English reply keeps its own words.
Product and architecture names (vLLM, Ampere, H.264) stay as they are in both.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.bot.dialog.money_lines import gpu_name
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.locales.names import runtime_name
from tests.dialogs import talk

TRANSFORMERS = "Hugging Face transformers (generate, eager)"  # knowledge/runtimes.yaml's name


def test_a_money_line_names_the_rebuilt_4090_in_the_replys_language(kb: Knowledge) -> None:
    assert gpu_name("zh", kb, "rtx4090-48g") == "RTX 4090 48GB（魔改）"
    assert gpu_name("en", kb, "rtx4090-48g") == "RTX 4090 48GB (modified board)"


def test_a_buy_or_rent_answer_on_the_rebuilt_4090_never_says_rebuilt(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "买一张 4090 48G 两万，还是租划算")
    assert "RTX 4090 48GB（魔改）" in reply.text
    assert "rebuilt" not in reply.text


def test_a_budget_answer_on_the_rebuilt_4090_names_it_as_the_plan_does(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "预算 5000 一个月，4090 48G 够吗")
    assert "RTX 4090 48GB（魔改）" in reply.text


def test_the_transformers_runtime_is_said_in_chinese_and_kept_in_english() -> None:
    assert runtime_name("zh", TRANSFORMERS) == "Hugging Face transformers（逐条生成，PyTorch 即时执行）"
    assert runtime_name("en", TRANSFORMERS) == TRANSFORMERS


def test_a_runtime_with_a_products_name_is_said_as_it_is() -> None:
    assert runtime_name("zh", "vLLM") == "vLLM"


def test_a_finding_says_its_runtime_in_the_replys_language() -> None:
    values = {"tokens_per_s": 12, "batch": 4, "aggregate_tokens_per_s": 48, "runtime": TRANSFORMERS}
    text = locales.render_finding("zh", "decode_speed", values | {"bandwidth_gbs": 320, "bw_efficiency": 0.5})
    assert "逐条生成，PyTorch 即时执行" in text
    assert "eager" not in text


def test_a_plan_run_on_transformers_says_the_runtime_in_chinese_in_why(dialog: Dialog) -> None:
    _, state = talk(dialog, "部署 Qwen2.5-7B，并发 4，常驻")
    state = state.model_copy(update={"slots": {**state.slots, "runtime": "transformers"}})
    why, _ = talk(dialog, "/plan", "/why all", state=state)
    assert "Hugging Face transformers（逐条生成" in why.text
    assert "generate, eager" not in why.text


def test_a_catalog_upgrade_is_named_in_chinese(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "一张 A100 包月多少钱？CPU 升到 16 核要加多少")
    assert "+ CPU 升到 16 核：¥400/月" in reply.text
    assert "cpu-16c" not in reply.text


def test_a_transcoding_job_is_read_back_with_its_codecs_name(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "50 路 1080p 直播同时转码，租什么卡")
    assert "视频转码：H.264（50 路" in reply.text


def test_a_transcoding_jobs_arithmetic_says_preset_and_tuning_in_chinese(dialog: Dialog) -> None:
    _, state = talk(dialog, "50 路 1080p 直播同时转码，租什么卡")
    why, _ = talk(dialog, "/why all", state=state)
    assert "H.264 P4 高画质调优，1080p" in why.text


def test_a_cards_architecture_is_said_by_its_name(dialog: Dialog) -> None:
    _, state = talk(dialog, "Flux dev 每天 3,000 张，租什么卡")
    why, _ = talk(dialog, "/why all", state=state)
    assert "RTX 3090（Ampere 架构）" in why.text


def test_an_image_loras_optimizer_is_said_by_its_label(dialog: Dialog) -> None:
    _, state = talk(dialog, "SDXL LoRA 训练 30张图 用3090 大概要多久")
    why, _ = talk(dialog, "/why all", state=state)
    assert "优化器 8-bit AdamW" in why.text


def test_the_confirmation_line_writes_a_weight_format_as_people_write_it(dialog: Dialog) -> None:
    reply, _ = talk(dialog, "部署 Qwen2.5-14B，并发 16", "换成 AWQ")
    assert "精度 AWQ" in reply.text


def test_a_speech_jobs_runtime_id_is_said_by_what_it_runs_on(dialog: Dialog) -> None:
    _, state = talk(dialog, "CosyVoice 语音合成 每天 1000 小时")
    why, _ = talk(dialog, "/why all", state=state)
    assert "CosyVoice（Triton + TensorRT-LLM）公开实测" in why.text
