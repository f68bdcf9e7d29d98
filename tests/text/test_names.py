"""Cards and models people type are read right, and read the same way in chat and the API.

Names come from the shipped knowledge base (``kb`` fixture), because what is being
tested is the names people type in 2026 against the cards and models we actually list.
"""

from __future__ import annotations

import json

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.contract import parse_workload
from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.vocab import vocabulary
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.validate import canonical
from gpu_advisor.reading.requirements import Extraction, Vocabulary, extract, normalize
from gpu_advisor.text.hanzi import TRADITIONAL, simplified
from gpu_advisor.text.sheet_lines import fold


@pytest.fixture(scope="module")
def vocab(kb: Knowledge) -> Vocabulary:
    return vocabulary(kb)


def read(text: str, vocab: Vocabulary) -> Extraction:
    return extract(text, vocab)


# --- one resolver: chat and the JSON API agree -------------------------------------
SPELLINGS_OF_MODELS = ["qwen2.5:7b", "Qwen2.5-7B", "qwen2.5 7b", "QWEN2.5_7B", "llama3.1_70b", "deepseek r1"]
SPELLINGS_OF_GPUS = ["h100sxm", "H100_SXM", "h100 sxm", "ｈ１００", "a100 80GB", "910B", "4090D", "mi300x"]


@pytest.mark.parametrize("name", SPELLINGS_OF_MODELS)
def test_a_model_spelling_resolves_to_the_same_id_in_chat_and_in_the_json_api(
    name: str, vocab: Vocabulary, kb: Knowledge
) -> None:
    chat = read(f"推理 {name}", vocab).slots.get("model")
    api = canonical(parse_workload(json.dumps({"model": name, "task": "infer"})), kb).model
    assert chat is not None and chat == api


@pytest.mark.parametrize("name", SPELLINGS_OF_GPUS)
def test_a_gpu_spelling_resolves_to_the_same_id_in_chat_and_in_the_json_api(
    name: str, vocab: Vocabulary, kb: Knowledge
) -> None:
    chat = read(f"{name} 推理 7B", vocab).slots.get("gpu")
    api = canonical(parse_workload(json.dumps({"gpu": name, "task": "infer", "params_b": 7})), kb).gpu
    assert chat is not None and chat == api


# --- cards people type in 2026 -----------------------------------------------------
CARDS = [
    ("昇腾910B能跑70B吗", "ascend-910b"),
    ("昇騰910B能跑70B嗎", "ascend-910b"),
    ("can an Ascend 910B run 70B", "ascend-910b"),
    ("华为910b 推理", "ascend-910b"),
    ("4090D 能训练7B吗", "rtx4090d"),
    ("rtx 4090d 微調 7B", "rtx4090d"),
    ("用 A6000 跑 13B", "a6000"),
    ("RTX A6000 serving 13B", "a6000"),
    ("5090 能跑 32B 吗", "rtx5090"),
    ("RTX5090 for a 7B chatbot", "rtx5090"),
    ("4090 48G 能跑 70B 吗", "rtx4090-48g"),
    ("魔改4090 推理", "rtx4090-48g"),
    ("H20 141G 部署 70B", "h20-141g"),
    ("h20-141gb serve 70B", "h20-141g"),
    ("MI300X 跑 405B", "mi300x"),
    ("AMD MI300X inference 70B", "mi300x"),
    ("ＭＩ３００Ｘ 推理", "mi300x"),
]


@pytest.mark.parametrize(("text", "gpu"), CARDS)
def test_a_card_typed_in_chat_resolves_to_its_knowledge_card(text: str, gpu: str, vocab: Vocabulary) -> None:
    assert read(text, vocab).slots.get("gpu") == gpu


@pytest.mark.parametrize("text", ["昇腾910B能跑70B吗", "Ascend 910B run 70B?", "4090D 能训练70B吗"])
def test_a_card_number_is_not_read_as_a_model_size(text: str, vocab: Vocabulary) -> None:
    assert read(text, vocab).slots.get("params_b") == 70.0


# --- names that carry their shape --------------------------------------------------
SHAPES = [
    ("部署 30B-A3B", "qwen3-30b-a3b"),
    ("serve a 30b a3b model", "qwen3-30b-a3b"),
    ("qwen3 30b a3b 推理", "qwen3-30b-a3b"),
    ("235B-A22B 要几张卡", "qwen3-235b-a22b"),
    ("235b_a22b 推理", "qwen3-235b-a22b"),
    ("部署 8x7B", "mixtral-8x7b"),
    ("8×7B 的模型", "mixtral-8x7b"),
    ("serve an 8 x 22b", "mixtral-8x22b"),
    ("8x22B 微調", "mixtral-8x22b"),
]


@pytest.mark.parametrize(("text", "model"), SHAPES)
def test_a_moe_shape_resolves_to_the_library_model_it_names(text: str, model: str, vocab: Vocabulary) -> None:
    result = read(text, vocab)
    assert result.slots.get("model") == model and "params_b" not in result.slots


def test_a_moe_shape_is_not_read_as_two_conflicting_sizes(vocab: Vocabulary) -> None:
    assert not [issue for issue in read("235B-A22B", vocab).issues if issue.id == "conflicting_values"]


def test_a_moe_shape_read_as_a_library_model_says_so(vocab: Vocabulary) -> None:
    issues = [(i.id, i.values) for i in read("部署 8x7B", vocab).issues]
    assert issues == [("model_from_shape", {"name": "8x7b", "model": "mixtral-8x7b"})]


def test_an_unlisted_total_active_shape_is_sized_by_its_total(vocab: Vocabulary) -> None:
    result = read("部署 100B-A10B", vocab)
    assert result.slots.get("params_b") == 100.0
    assert [i.id for i in result.issues] == ["unknown_model"]


def test_an_unlisted_expert_shape_is_reported_not_guessed(vocab: Vocabulary) -> None:
    result = read("部署 16x3B", vocab)
    assert "params_b" not in result.slots and "model" not in result.slots
    assert [i.values["name"] for i in result.issues if i.id == "unknown_model"] == ["16x3b"]


# --- unknown names are said aloud --------------------------------------------------
UNKNOWN_CARDS = [
    ("H300 推理 70B", "h300"),
    ("用 b300 训练 7B", "b300"),
    ("RTX 5080 跑 7B", "rtx 5080"),
    ("rtx5080 serve 7B", "rtx5080"),
    ("昇腾910C 训练 7B", "昇腾910c"),
    ("昇騰910C 訓練 7B", "昇腾910c"),
    ("MI355X inference 70B", "mi355x"),
    ("l40 推理", "l40"),
]


@pytest.mark.parametrize(("text", "name"), UNKNOWN_CARDS)
def test_an_unknown_card_is_reported_with_the_closest_known_card(
    text: str, name: str, vocab: Vocabulary, kb: Knowledge
) -> None:
    issues = [i for i in read(text, vocab).issues if i.id == "unknown_gpu"]
    assert [i.values["name"] for i in issues] == [name]
    assert issues[0].values["closest"] in kb.gpus


@pytest.mark.parametrize(
    "text", ["serve a 30b a3b model", "部署 235B-A22B", "qwen3 32b 推理", "budget 100 a month"]
)
def test_a_model_shape_or_size_is_not_mistaken_for_an_unknown_card(text: str, vocab: Vocabulary) -> None:
    assert not [i for i in read(text, vocab).issues if i.id == "unknown_gpu"]


@pytest.mark.parametrize("text", ["llama5-70b 推理", "serve Llama-9 70B", "qwen9-7b 微调"])
def test_an_unknown_model_is_reported_with_the_closest_known_model(
    text: str, vocab: Vocabulary, kb: Knowledge
) -> None:
    issues = [i for i in read(text, vocab).issues if i.id == "unknown_model"]
    assert len(issues) == 1 and issues[0].values["closest"] in kb.models


@pytest.mark.parametrize(
    ("lang", "issue", "values", "expected"),
    [
        (
            "zh",
            "unknown_gpu",
            {"name": "h300", "closest": "h200-sxm"},
            "我不认识「h300」这张卡；最接近的是 h200-sxm",
        ),
        (
            "en",
            "unknown_gpu",
            {"name": "h300", "closest": "h200-sxm"},
            'I don\'t know the "h300"; closest known',
        ),
        ("zh", "unknown_model", {"name": "llama5", "closest": "llama-3-70b"}, "config.json"),
        ("en", "unknown_model", {"name": "llama5", "closest": "llama-3-70b"}, "config.json or give its size"),
    ],
)
def test_an_unknown_name_is_rendered_in_the_users_language(
    lang: str, issue: str, values: dict[str, str], expected: str
) -> None:
    assert expected in locales.t(lang, f"issue.{issue}", **values)


def test_the_dialog_says_an_unknown_card_aloud(kb: Knowledge) -> None:
    reply, _ = Dialog(kb).handle(ConversationState(), "H300 推理 70B")
    assert "h300" in reply.text and "最接近" in reply.text


# --- a pasted config.json ----------------------------------------------------------
CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
}


@pytest.mark.parametrize(
    "text",
    [
        "部署这个模型 " + json.dumps(CONFIG, indent=2),
        "serve this: " + json.dumps(CONFIG) + " for 20 users",
        "```json\n" + json.dumps(CONFIG, indent=4) + "\n```",
        "幫我部署 " + json.dumps(CONFIG),
    ],
)
def test_a_pasted_config_json_becomes_the_model_config_slot(text: str, vocab: Vocabulary) -> None:
    assert read(text, vocab).slots.get("hf_config") == CONFIG


def test_numbers_inside_a_pasted_config_are_not_read_as_requirements(vocab: Vocabulary) -> None:
    slots = read("部署 " + json.dumps(CONFIG) + " 并发 20", vocab).slots
    assert set(slots) == {"hf_config", "task", "concurrency"} and slots["concurrency"] == 20


@pytest.mark.parametrize(
    "text",
    [
        '部署 {"num_hidden_layers": 32, oops}',
        '部署 {"architectures": ["X"]}',
        '{"num_hidden_layers": ' + "[" * 5000 + "}",
        '{"num_hidden_layers": 32, "pad": "' + "x" * 17_000 + '"}',
    ],
)
def test_an_unreadable_config_is_reported_not_used(text: str, vocab: Vocabulary) -> None:
    result = read(text, vocab)
    assert "hf_config" not in result.slots
    assert [i.id for i in result.issues if i.field == "hf_config"] == ["model_config_unreadable"]


def test_a_config_pasted_in_the_dialog_sizes_the_model(kb: Knowledge) -> None:
    reply, state = Dialog(kb).handle(ConversationState(), "部署这个模型 " + json.dumps(CONFIG))
    assert state.slots.get("hf_config") == CONFIG and "model" not in reply.missing


# --- one Traditional table for chat and sheets -------------------------------------
def test_chat_and_sheet_readers_fold_every_traditional_character_alike() -> None:
    expected = list(simplified(TRADITIONAL))
    assert [normalize(c) for c in TRADITIONAL] == [fold(c) for c in TRADITIONAL] == expected


def test_a_traditional_sheet_word_is_read_in_chat_too(vocab: Vocabulary) -> None:
    assert read("昇騰910B 訓練 7B", vocab).slots == {"gpu": "ascend-910b", "task": "train", "params_b": 7.0}
