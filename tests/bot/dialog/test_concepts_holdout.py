"""Held-out concept and myth questions (issue 27): phrasings the triggers were never tuned on.

These phrasings were written before any concept trigger or myth claim pattern was
tuned (see this file's first commit on the ``concepts`` branch); do not add a phrasing
here after making it pass, add it to ``test_concepts_phrasings.py`` instead. Each
question counts as answered when the expected concept's or myth's own sentence opens
the reply (its first 40 characters appear within the reply's first 250), which is how
issue 27 scores a direct question. The floors are the shares measured when the set was
last scored; a change that loses held-out questions fails here.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import ConversationState, Dialog, faq
from gpu_advisor.bot.dialog.spelling import llm_spellings, respelled
from gpu_advisor.engine.concepts import BY_ID
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.message import read_message
from tests.dialogs import simplified

SHOWN = 250  # issue 27: the answer must appear within the reply's first 250 characters
STEM = 40  # characters of the expected sentence that must appear there

CONCEPTS: list[tuple[str, str]] = [
    ("train_and_serve_apart", "训练服务器和推理服务器为啥要分开买？"),
    ("train_and_serve_apart", "為什麼訓練跟推理不建議用同一台機器"),
    ("train_and_serve_apart", "why do people say training boxes and inference boxes are different?? 🤔"),
    ("t4_training", "手上只有一张T4，能拿来训练模型吗"),
    ("t4_training", "T4 拿來微調可以嗎？"),
    ("t4_training", "is a single T4 any good for fine tuning?"),
    ("t4_or_3090_for_serving", "部署推理的话 T4 和 3090 选哪个"),
    ("t4_or_3090_for_serving", "推理機選T4還是3090比較好"),
    ("t4_or_3090_for_serving", "3090 or T4 for inference, which one?"),
    ("nvlink_for_inference", "推理的时候 NVLink 有意义吗？"),
    ("nvlink_for_inference", "做推理需要買有NVLink的機器嗎"),
    ("nvlink_for_inference", "is nvlink worth it for inference?"),
    ("pcie_vs_sxm_training", "多卡训练用 PCIe 版和 SXM 版差别大吗"),
    ("pcie_vs_sxm_training", "PCIe版A100跟SXM版多卡訓練差多少"),
    ("pcie_vs_sxm_training", "pcie vs sxm for multi gpu training — how big is the gap?"),
    ("multi_card_training", "训练是不是一定得上多卡？"),
    ("multi_card_training", "訓練一定要多卡嗎"),
    ("multi_card_training", "do I really need multiple GPUs to train?"),
    ("train_to_serve", "模型训好以后怎么部署到推理机上"),
    ("train_to_serve", "訓練完的模型要怎麼搬到推理機"),
    ("train_to_serve", "how do I move my finetuned model from the training box to the inference server?"),
    ("slow_inference_cause", "显存明明够了，为什么推理还是很慢"),
    ("slow_inference_cause", "顯存夠但推理很慢是什麼原因"),
    ("slow_inference_cause", "model fits in vram but generation is still slow, why?"),
    ("split_budget", "预算有限，训练和推理怎么折中？"),
    ("split_budget", "小團隊只有一台機器的預算，訓練跟推理怎麼分配"),
    (
        "split_budget",
        "small team, budget for one machine: how do we split it between training and inference?",
    ),
    ("keep_training_box", "训练完了，训练机要不要留着跑推理？"),
    ("keep_training_box", "訓練機訓完可以直接拿來當推理機嗎"),
    ("keep_training_box", "should I keep my 8-gpu training server around for serving after training?"),
    ("kv_cache_size", "Qwen2.5-7B 跑 32k 上下文 10 个并发，KV cache 要多少显存"),
    ("kv_cache_size", "KV cache 大概要佔多少顯存？"),
    ("kv_cache_size", "how much kv cache does llama 3 8b need at 8k context with 16 users"),
    ("memory_breakdown", "训练和推理时显存都被什么占了"),
    ("memory_breakdown", "訓練的時候顯存主要花在哪裡，跟推理有什麼不同"),
    ("memory_breakdown", "what eats gpu memory during training vs inference?"),
    ("precision_choice", "训练用什么精度，推理用什么精度？"),
    ("precision_choice", "訓練用FP32還是BF16，推理要不要用INT8"),
    ("precision_choice", "which precision should i use for training vs inference? fp8? int4?"),
    ("serving_stack", "推理框架选 vLLM 还是 TensorRT-LLM？"),
    ("serving_stack", "PTQ 跟 QAT 差在哪"),
    ("serving_stack", "vllm vs sglang vs llama.cpp for serving, which should I pick"),
    ("seven_dimensions", "训练型服务器和推理型服务器在哪些方面不一样？"),
    ("seven_dimensions", "訓練型跟推理型伺服器有哪些維度的差別"),
    ("seven_dimensions", "what are the main dimensions where training servers and inference servers differ?"),
    ("network_and_storage", "训练机和推理机对网络和存储的要求有什么不同"),
    ("network_and_storage", "多機訓練需要IB網路嗎？推理需要嗎"),
    ("network_and_storage", "does an inference server need infiniband like a training cluster?"),
    ("cpu_role", "训练服务器的 CPU 重要吗？推理呢"),
    ("cpu_role", "GPU服務器的CPU要選多少核，訓練跟推理一樣嗎"),
    ("cpu_role", "how much does the cpu matter in a training box vs an inference box?"),
    ("business_model", "训练型和推理型算力的生意模式有什么区别"),
    ("business_model", "做推理服務怎麼算回本"),
    ("business_model", "training vs inference gpu business — how do they make money differently?"),
]

MYTHS: list[tuple[str, str]] = [
    ("t4_int8_65_tops", "T4 INT8 才 65 TOPS 吧？"),
    ("t4_int8_65_tops", "聽說T4的int8算力是65T"),
    ("t4_int8_65_tops", "the t4 does 65 tops of int8 right?"),
    ("a100_nvlink_900", "A100 的 NVLink 带宽 900GB/s 对吧"),
    ("a100_nvlink_900", "A100 NVLink 有900G嗎"),
    ("a100_nvlink_900", "a100 nvlink is 900gb/s isn't it"),
    ("pcie_64_gbs", "PCIe 4.0 x16 单向 64GB/s 吗"),
    ("pcie_64_gbs", "PCIe4 單向頻寬有64GB/s？"),
    ("pcie_64_gbs", "pcie gen4 x16 gives 64 GB/s each way, correct?"),
    ("a100_4g_slice", "A100 最小可以切成 4G 的切片吗"),
    ("a100_4g_slice", "A100 MIG 最小切片是4G嗎"),
    ("a100_4g_slice", "can i rent a 4gb mig slice of an a100?"),
    ("h100_10t_tokens_per_day", "8卡H100一天能跑超过10T token？"),
    ("h100_10t_tokens_per_day", "8張H100每天能處理10T token是真的嗎"),
    ("h100_10t_tokens_per_day", "8x h100 can chew through 10 trillion tokens a day, true?"),
    ("adam_doubles_memory", "训练显存大概是权重的两倍吧？"),
    ("adam_doubles_memory", "訓練顯存 = 權重 x2 對嗎"),
    ("adam_doubles_memory", "training memory is roughly 2x the weights, right?"),
    ("full_finetune_7b_fits_40gb", "7B 全参微调 40G 显存够吗"),
    ("full_finetune_7b_fits_40gb", "7B全量微调一张A100 40G就够了吧"),
    ("full_finetune_7b_fits_40gb", "a 40gb card is enough to full fine-tune a 7b, right?"),
    ("q4_405b_on_one_h100", "405B 量化到 4bit 一张 H100 跑得动吗"),
    ("q4_405b_on_one_h100", "Llama 405B Q4 單卡H100能跑50 tok/s?"),
    ("q4_405b_on_one_h100", "405b at 4 bit fits on a single h100 80g, yes?"),
    ("t4_high_bandwidth", "T4、3090、A100切片都是高带宽路线对吧"),
    ("t4_high_bandwidth", "T4 是高頻寬卡嗎"),
    ("t4_high_bandwidth", "is the t4 a high-bandwidth card like the 3090?"),
    ("t4_high_bandwidth", "便宜的卡带宽也都很高吗"),
    ("t4_high_bandwidth", "cheap cards all have high bandwidth anyway, right?"),
    ("nvlink_useless_for_inference", "NVLink 对推理完全没用吧"),
    ("nvlink_useless_for_inference", "推理用不到NVLink，對嗎"),
    ("nvlink_useless_for_inference", "nvlink is useless for inference isn't it"),
    ("full_finetune_13b_fits_80gb", "13B 全参微调一张 80G 够不够"),
    ("full_finetune_13b_fits_80gb", "a single 80gb card can full finetune 13b right"),
]

# A second held-out set, written after the first scoring of the sets above (which then
# guided general fixes) and before any further tuning: the clean measurement.
CONCEPTS_B: list[tuple[str, str]] = [
    ("train_and_serve_apart", "训练卡和推理卡到底差在哪，为什么不能一台机器全包"),
    ("train_and_serve_apart", "can't I just use one server for both training and inference?"),
    ("t4_training", "T4 16G 能做 LoRA 微调吗"),
    ("t4_training", "can you train on a tesla t4?"),
    ("t4_or_3090_for_serving", "上线一个 7B 的对话服务，用 T4 好还是 3090 好"),
    ("t4_or_3090_for_serving", "t4 vs 3090 to serve a 7b chatbot"),
    ("nvlink_for_inference", "推理服务器有必要上 NVLink 吗"),
    ("nvlink_for_inference", "does nvlink matter when serving a 70b across 2 gpus?"),
    ("pcie_vs_sxm_training", "8卡A100 PCIe版做训练会比SXM版慢很多吗"),
    ("pcie_vs_sxm_training", "is the pcie a100 much slower than sxm for distributed training?"),
    ("multi_card_training", "微调 13B 必须用多张卡吗"),
    ("multi_card_training", "is one gpu enough to train or do i need several?"),
    ("train_to_serve", "LoRA 训完怎么上线到推理服务"),
    ("train_to_serve", "what are the steps to deploy a model after fine-tuning it?"),
    ("slow_inference_cause", "4090 跑 8B 只有十几 token/s，为什么这么慢"),
    ("slow_inference_cause", "why is my inference so slow even though the model fits?"),
    ("split_budget", "钱不多，训练和部署的预算怎么安排"),
    ("split_budget", "we can only afford one gpu server, how to balance training and serving?"),
    ("keep_training_box", "训练跑完了，那台 8 卡机器还要继续租着做推理吗"),
    ("keep_training_box", "is it ok to keep the training cluster running to serve the model?"),
    ("kv_cache_size", "Llama 3 70B 128k 上下文，KV cache 要多大"),
    ("kv_cache_size", "how big is the kv cache for qwen2.5-14b at 16k tokens and 4 users?"),
    ("memory_breakdown", "全参微调时显存被哪些东西吃掉了"),
    ("memory_breakdown", "what uses the memory when fine-tuning, and what when serving?"),
    ("precision_choice", "训练能用 INT8 吗？推理用 FP8 还是 INT4"),
    ("precision_choice", "what precision do people train in, and what do they serve in?"),
    ("serving_stack", "部署大模型用什么推理框架好"),
    ("serving_stack", "should I use tensorrt-llm or vllm?"),
    ("seven_dimensions", "训练服务器和推理服务器从哪几个维度区分"),
    ("seven_dimensions", "in which aspects do training machines differ from inference machines?"),
    ("network_and_storage", "推理机需要 IB 网络吗"),
    ("network_and_storage", "how much storage and network does a training node need vs a serving node?"),
    ("cpu_role", "推理服务器的 CPU 要多少核"),
    ("cpu_role", "does cpu core count matter for training?"),
    ("business_model", "推理卡多久能回本"),
    ("business_model", "how do inference gpu businesses make a profit?"),
]
MYTHS_B: list[tuple[str, str]] = [
    ("t4_int8_65_tops", "T4 的 INT8 只有 65 TOPS 对吧"),
    ("t4_int8_65_tops", "t4 int8 = 65 tops?"),
    ("a100_nvlink_900", "A100 NVLink 带宽是 900 GB/s 吗"),
    ("a100_nvlink_900", "i read the a100 has 900gb/s nvlink"),
    ("pcie_64_gbs", "PCIe 4.0 带宽 64GB/s 是单向的吗"),
    ("pcie_64_gbs", "is pcie 4 x16 really 64gb/s one way?"),
    ("a100_4g_slice", "A100 能切 4G 一份的 MIG 吗"),
    ("a100_4g_slice", "smallest a100 mig slice is 4g right?"),
    ("h100_10t_tokens_per_day", "听说 8 卡 H100 每天能处理超过 10T token"),
    ("h100_10t_tokens_per_day", "8 h100s do over 10t tokens per day?"),
    ("adam_doubles_memory", "Adam 训练显存是不是就是权重的 2 倍"),
    ("adam_doubles_memory", "training needs 2x the model size in vram, correct?"),
    ("full_finetune_7b_fits_40gb", "听说 7B 全参 40G 就够了"),
    ("full_finetune_7b_fits_40gb", "full finetune 7b in 40gb is fine right?"),
    ("full_finetune_13b_fits_80gb", "13B 全量微调 80G 单卡够了吧"),
    ("q4_405b_on_one_h100", "听说 405B Q4 单卡 H100 能跑 50 token/s"),
    ("q4_405b_on_one_h100", "405b q4 on one h100 is doable right?"),
    ("t4_high_bandwidth", "T4 属于高带宽卡对吧"),
    ("t4_high_bandwidth", "cheap gpus are all high bandwidth anyway?"),
    ("nvlink_useless_for_inference", "推理用不上 NVLink 吧"),
    ("nvlink_useless_for_inference", "nvlink is pointless for inference, right?"),
]

# Shares measured when the sets were last scored (concept 50/54, myth 29/34, concept_b 32/36,
# myth_b 19/21), after main added the buy-or-rent answerer (it now takes "多久能回本") and read
# "40G 显存" as a card (the verdict takes "7B 全参微调 40G 显存够吗"); raise, never lower.
# First scores, before any tuning on them: set A concepts 47/54 and myths 18/34 (the myth
# patterns as they were on main); set B concepts 30/36 and myths 15/21. The misses left are
# questions another answerer takes first: two cards named (the comparison), a yes/no or speed
# question about named hardware (the verdict), or "回本" (buy or rent).
FLOORS = {"concept": 0.92, "myth": 0.85, "concept_b": 0.88, "myth_b": 0.9}
SETS = {"concept": CONCEPTS, "myth": MYTHS, "concept_b": CONCEPTS_B, "myth_b": MYTHS_B}


def _expected(dialog: Dialog, kind: str, ident: str, text: str, lang: str) -> str:
    """The sentence the expected concept or myth answers with, for this very message."""
    if kind.startswith("myth"):
        return faq.myth_sentences(dialog.kb, lang, [ident])[0]
    msg = read_message(text, dialog.vocab)
    return locales.t(lang, f"concept.{ident}", **BY_ID[ident].facts(dialog.kb, faq.asked_of(msg)))


def answered(dialog: Dialog, kind: str, ident: str, text: str) -> bool:
    """Whether the reply opens with the expected answer (its stem within the first 250 characters)."""
    reply, _ = dialog.handle(ConversationState(), text)
    # a model the question names is said back as the user wrote it (bot.dialog.spelling)
    said = llm_spellings(text, dialog.vocab, dialog.kb)
    expected = respelled(_expected(dialog, kind, ident, text, reply.lang), said)
    return expected[:STEM] in simplified(reply.as_text())[:SHOWN]


def scores(dialog: Dialog) -> dict[str, tuple[int, int]]:
    """Per category: (answered, asked)."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for kind, items in SETS.items():
        for ident, text in items:
            tally[kind][0] += answered(dialog, kind, ident, text)
            tally[kind][1] += 1
    return {k: (v[0], v[1]) for k, v in tally.items()}


def test_every_held_out_id_is_declared(kb: Knowledge) -> None:
    from gpu_advisor.engine.rules.myths import RULES, claim_of

    assert {i for i, _ in CONCEPTS + CONCEPTS_B} <= set(BY_ID)
    assert {i for i, _ in MYTHS + MYTHS_B} <= {claim_of(r) for r in RULES}


@pytest.mark.parametrize("kind", sorted(FLOORS))
def test_held_out_share_stays_at_its_floor(dialog: Dialog, kind: str) -> None:
    items = SETS[kind]
    hits = sum(answered(dialog, kind, ident, text) for ident, text in items)
    assert hits / len(items) >= FLOORS[kind], f"{kind}: {hits}/{len(items)}"
