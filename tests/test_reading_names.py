"""Cards and models people type are read right, and read the same way in chat and the API.

Names come from the shipped knowledge base (``kb`` fixture), because what is being
tested is the names people type in 2026 against the cards and models we actually list.
"""

from __future__ import annotations

import json

import pytest

from bot.contract import parse_workload
from bot.dialog.vocab import vocabulary
from bot.understand import Extraction, Vocabulary, extract
from engine.specs import Knowledge
from engine.validate import canonical


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
