"""Concept and myth questions heard however they are phrased (issue 27), and ordinary requests left alone.

Each concept and each myth is asked here in Simplified and Traditional Chinese and in
English, with typos, emoji and missing punctuation; the concept's trigger (or the myth's
claim pattern) must hear it and no other concept may win. These are the phrasings the
triggers were tuned on; ``test_concepts_holdout.py`` keeps the ones they never saw.
Requirement messages that merely mention a concept word (NVLink, KV cache, T4, 预算)
must still reach the requirement flow.
"""

from __future__ import annotations

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog import ConversationState, Dialog
from gpu_advisor.bot.dialog.spelling import llm_spellings, respelled
from gpu_advisor.engine.concepts import BY_ID, Asked
from gpu_advisor.engine.rules.myths import RULES, claim_of
from gpu_advisor.reading.claims import claims_in
from gpu_advisor.reading.concepts import find
from gpu_advisor.text.normalize import normalize

CONCEPT_PHRASINGS: dict[str, tuple[str, ...]] = {
    "mig_slices": (
        "MIG 是什么意思？",
        "能不能只租半张卡",
        "MIG 切片怎麼租",
        "what does MIG mean on an A100?",
        "can i rent a slice of an h100 instead of the whole thing",
        "how does MIG work",
    ),
    "quantized_fit": (
        "为什么 4bit 量化后 70B 能塞进 48G",
        "量化为什么能让大模型放得下",
        "為什麼 int4 量化後 32B 放得進 24G",
        "why does an 8-bit 13B fit on a 16GB card?",
        "how come awq lets a 34B fit in 24GB?",
        "int8 量化能省多少显存",
    ),
    "train_and_serve_apart": (
        "训练和推理能不能放在同一台机器上？",
        "为什么训练机和推理机要分开",
        "訓練和推理可以共用一台伺服器嗎",
        "為啥訓練跟推理要分開租",
        "why should training and inference run on separate machines?",
        "can training n serving share one box?? 🤔",
    ),
    "t4_training": (
        "T4 能不能用来训练",
        "只有一张 t4 可以微调 7B 吗？",
        "T4 可以拿來訓練嗎",
        "用T4微調會不會太慢",
        "is the t4 ok for training?",
        "can i finetune on a T4 🙏",
        "拿推理卡来训练行不行？",
    ),
    "t4_or_3090_for_serving": (
        "T4 和 3090 做推理差多少",
        "推理的话t4跟3090怎么选？",
        "T4 跟 3090 部署推理哪個好",
        "推理用3090還是t4",
        "t4 or 3090 for inference?",
        "3090 vs t4 for serving a chatbot",
    ),
    "nvlink_for_inference": (
        "what is tensor parallelism",
        "张量并行是什么意思",
        "NVLink 对推理有没有用？",
        "推理要不要 nvlink",
        "NVLink 對推理有幫助嗎",
        "部署推理需要NVLink嗎？",
        "do I need nvlink for inference?",
        "is NVLink useful when serving??",
    ),
    "pcie_vs_sxm_training": (
        "PCIe 版和 SXM 版的 A100 多卡训练差多少？",
        "多卡训练 PCIe 和 NVLink 差距大吗",
        "訓練用 SXM 還是 PCIe 版",
        "PCIe 跟 SXM 的 8 卡訓練速度差在哪",
        "how much slower is pcie than sxm for multi-gpu training?",
        "sxm vs pcie for 8x training, does it matter",
    ),
    "multi_card_training": (
        "训练一定要多卡吗",
        "微调是不是必须多张卡？",
        "訓練一定要多張卡嗎",
        "單卡可以訓練嗎？",
        "do i have to use multiple gpus to train?",
        "must training use multiple GPUs",
    ),
    "train_to_serve": (
        "训练完的模型怎么迁移到推理机？",
        "LoRA 训完怎么合并然后部署",
        "訓練好的模型要怎麼部署到推理機上",
        "模型訓完怎麼轉到推理伺服器",
        "how to move a trained model to the inference box?",
        "steps to get my fine-tuned weights from the training server to production?",
    ),
    "slow_inference_cause": (
        "显存够了为什么推理还是慢",
        "推理很慢是带宽的问题吗",
        "顯存夠但是推理還是很慢",
        "為什麼推理這麼慢",
        "why is inference slow when the model fits?",
        "generation is sooo slow, is it the gpu or the software stack?",
    ),
    "split_budget": (
        "预算有限，训练和推理怎么分配？",
        "小团队只有一台机器的预算，怎么安排训练和推理",
        "預算不多，訓練和推理怎麼折中",
        "只有一台機器的預算，訓練推理怎麼分",
        "how do i split a small budget between training and inference?",
        "small team with budget for one machine - training vs serving?",
    ),
    "keep_training_box": (
        "训练完训练机要不要留着做推理",
        "训练机训完了能直接拿来当推理机吗",
        "訓練機訓完要不要留著跑推理",
        "訓練機閒置的時候拿來做推理划算嗎",
        "should I keep the training server for serving afterwards?",
        "can we reuse the training cluster for inference after training is done?",
        "用训练机跑推理划算吗",
        "is using a training server for inference a waste?",
    ),
    "lora_vs_qlora": (
        "LoRA 和 QLoRA 有什么区别",
        "lora vs qlora, which should I use?",
        "QLoRA 跟 LoRA 差在哪",
        "LoRA 與 QLoRA 的差別",
        "what's the difference between lora and qlora for a 13b?",
        "微调选 lora 还是 qlora",
    ),
    "kv_cache_meaning": (
        "KV cache 是什么",
        "什么是 kv 缓存？",
        "KV 快取是幹嘛的",
        "what is the KV cache?",
        "can you explain the kv cache",
        "kv cache 有什么用",
    ),
    "kv_cache_size": (
        "KV cache 要多少显存？",
        "Qwen2.5-7B 32k 上下文 kv cache 多大",
        "KV cache 會佔多少顯存",
        "70B 的 kv 快取要多少",
        "how much memory does the kv cache take?",
        "kv cache size for llama 3 8b at 8k context with 10 users?",
    ),
    "memory_needed": (
        "how much vram for qwen2.5 32b?",
        "7b模型推理要多大显存",
        "微調 14B 需要多少顯存？",
        "how much gpu memory do i need to run llama 3 70b",
        "跑 Qwen2.5-72B 得多少显存",
        "13B 要几G显存",
    ),
    "memory_breakdown": (
        "训练时显存都被什么占了？",
        "训练显存由哪些部分组成",
        "訓練和推理的顯存分別花在哪裡",
        "顯存佔用由什麼構成",
        "what takes up gpu memory during training?",
        "whats the memory breakdown for training vs inference",
    ),
    "precision_choice": (
        "训练和推理分别用什么精度？",
        "训练用 FP32 还是 BF16",
        "訓練該用什麼精度",
        "推理用 INT8 還是 FP8，訓練呢",
        "which precision should I use for training?",
        "bf16 for training and int8 for serving, is that the usual choice?",
    ),
    "serving_stack": (
        "推理框架用 vLLM 还是 TensorRT-LLM？",
        "PTQ 和 QAT 有什么区别",
        "vllm 跟 sglang 哪個好",
        "部署用什麼推理引擎比較好",
        "vllm or llama.cpp for serving?",
        "which inference engine should I use for serving?",
    ),
    "seven_dimensions": (
        "训练型服务器和推理型服务器有哪些方面的区别？",
        "训练机和推理机从哪几个维度比较",
        "訓練型和推理型伺服器差在哪些方面",
        "訓練伺服器跟推理伺服器有哪些維度不同",
        "in what ways do training servers differ from inference servers?",
        "what dimensions separate a training server from an inference server?",
    ),
    "network_and_storage": (
        "训练机和推理机对网络有什么不同要求？",
        "推理服务器需要 IB 网络吗",
        "訓練機跟推理機的儲存要求差在哪",
        "多機訓練需要什麼網路",
        "does inference need infiniband?",
        "storage needs for training vs inference servers?",
    ),
    "cpu_role": (
        "训练服务器的 CPU 重要吗？",
        "训练机和推理机的 CPU 要多少核",
        "訓練跟推理的CPU需求一樣嗎",
        "推理伺服器的 CPU 要幾核",
        "does the cpu matter for training?",
        "how many cpu cores for a training box vs an inference box?",
    ),
    "business_model": (
        "训练算力和推理算力的生意有什么不同？",
        "推理算力靠什么盈利？",
        "推理服務要怎麼賺錢",
        "訓練型算力的商業模式是什麼",
        "how does an inference gpu business make money?",
        "whats the business model of a serving gpu vs a training box?",
    ),
}

MYTH_PHRASINGS: dict[str, tuple[str, ...]] = {
    "t4_int8_65_tops": (
        "T4 的 INT8 是 65 TOPS 吗",
        "T4 int8 算力 65T 对吧",
        "聽說 T4 INT8 有 65 TOPS",
        "the T4 has 65 TOPS INT8, right?",
        "t4 = 65 tops int8 ??",
    ),
    "a100_nvlink_900": (
        "A100 的 NVLink 是 900GB/s 吗",
        "a100 nvlink 带宽 900g 对吧",
        "A100 NVLink 頻寬 900 GB/s？",
        "A100 nvlink = 900 GB/s right?",
        "isn't the a100's nvlink 900 gb/s?",
    ),
    "pcie_64_gbs": (
        "PCIe 4.0 x16 单向 64GB/s 对吗",
        "pcie 带宽 64GB/s 是单向吗",
        "PCIe4 頻寬是 64GB/s 嗎",
        "pcie 4.0 is 64 GB/s each way?",
        "is PCIe gen4 x16 64GB/s one direction",
    ),
    "a100_4g_slice": (
        "A100 最小能切 4G 切片吗",
        "a100 mig 最小 4gb 对吧",
        "A100 可以切成 4G 的 MIG 嗎",
        "is there a 4gb slice of the a100?",
        "smallest a100 mig = 4g?",
    ),
    "h100_10t_tokens_per_day": (
        "8 卡 H100 一天处理 10T token 是真的吗",
        "听说 8卡h100 每天超过10万亿token",
        "8張 H100 每天能跑 10T token？",
        "is it true 8x h100 processes 10 trillion tokens a day",
        "8 h100 = 10T tokens/day??",
    ),
    "adam_doubles_memory": (
        "训练显存是权重的两倍吧",
        "Adam 优化器只是让显存翻倍？",
        "訓練顯存大約是權重乘以2嗎",
        "training vram is 2x the model weights, right?",
        "adam just doubles memory?",
    ),
    "full_finetune_7b_fits_40gb": (
        "7B 全参微调 40G 够吧",
        "40G 显存全量微调 7B 没问题吧",
        "7B 全參微調 40G 顯存夠嗎",
        "full finetune 7b fits in 40gb right?",
        "can 40GB do a full fine-tune of a 7B?",
    ),
    "full_finetune_13b_fits_80gb": (
        "13B 全参微调 80G 够吧",
        "80G 单卡能全量微调 13B 对吧",
        "13B 全參微調一張 80G 夠嗎",
        "full finetune of 13b fits on one 80gb card, right?",
    ),
    "q4_405b_on_one_h100": (
        "405B Q4 一张 H100 能跑对吧",
        "听说 405b 4bit 单卡 h100 就行",
        "405B 量化後單卡 H100 跑得了？",
        "405b q4 runs on a single h100, right?",
        "llama 405b on one h100 at 4bit?",
    ),
    "t4_high_bandwidth": (
        "T4 是高带宽卡吧",
        "T4、3090 都是高带宽路线对吧",
        "T4 屬於高頻寬的卡嗎",
        "is the t4 high bandwidth?",
        "cheap cards are all high-bandwidth too, right?",
    ),
    "nvlink_useless_for_inference": (
        "NVLink 对推理没用吧",
        "推理用不到 NVLink 对吗",
        "NVLink 對推理沒意義吧",
        "nvlink is useless for inference right?",
        "inference doesn't need nvlink, correct?",
    ),
}

# Requirement messages that mention a concept word: they describe a job, they do not ask a concept.
REQUIREMENTS = (
    "部署 Llama 3 8B，32k 上下文，20 并发，KV cache 用 FP8",
    "微调 13B，8 卡 A100 SXM 带 NVLink，数据 2 亿 token",
    "用 T4 部署 7B 给 10 个人用",
    "训练 7B 全参，4 张 A100 80G，一周内完成",
    "serve qwen2.5-14b for 30 users with vllm",
    "预算 2 万，训练加推理",
    "fine-tune llama 3 8b with lora on 100M tokens, budget $2000",
    "我们要上线一个客服机器人，7×24，并发 50",
    "想租 3090 跑 sd 出图",
    "train a 70b on 8x h100 sxm for two weeks",
)

# Ordinary sizing questions: a plan or a verdict answers them, not a concept or a myth.
ORDINARY_QUESTIONS = (
    "训练 7B 要多少显存，用什么卡？",
    "部署 Qwen2.5-14B 要什么配置",
    "预训练 7B 用 10T token 要多少张 H100？",
    "给 50 个人用的客服机器人，用什么卡部署？",
    "微调 Llama 3 8B 大概要多少钱",
    "小团队，预算 3 万，部署一个 7B 客服怎么配？",
    "how many GPUs do I need to serve llama 3 70b to 100 users?",
    "what gpu should I rent to fine-tune qwen2.5-7b?",
    "推理 70B 用什么卡比较好",
    "A100 和 H100 的 NVLink 分别多少？",
    "PCIe 4.0 x16 带宽多少",
    "A100 能切哪些 MIG 规格",
    "T4 带宽多少？",
    "A100 4g.20gb 切片能跑 13B 吗",
)

CONCEPT_CASES = [
    pytest.param(ident, text, id=f"{ident}-{i}")
    for ident, texts in CONCEPT_PHRASINGS.items()
    for i, text in enumerate(texts)
]
MYTH_CASES = [
    pytest.param(ident, text, id=f"{ident}-{i}")
    for ident, texts in MYTH_PHRASINGS.items()
    for i, text in enumerate(texts)
]


def test_every_concept_and_myth_has_phrasings() -> None:
    assert set(CONCEPT_PHRASINGS) == set(BY_ID)
    assert set(MYTH_PHRASINGS) == {claim_of(r) for r in RULES}


@pytest.mark.parametrize(("ident", "text"), CONCEPT_CASES)
def test_a_concept_is_heard_however_it_is_asked(ident: str, text: str) -> None:
    assert find(normalize(text)) == ident


@pytest.mark.parametrize(("ident", "text"), MYTH_CASES)
def test_a_myth_is_heard_however_it_is_claimed(ident: str, text: str) -> None:
    assert claims_in(normalize(text)) == [ident]


@pytest.mark.parametrize("text", REQUIREMENTS)
def test_a_requirement_is_neither_a_concept_nor_a_myth(text: str) -> None:
    low = normalize(text)
    assert find(low) is None and claims_in(low) == []


@pytest.mark.parametrize("text", ORDINARY_QUESTIONS)
def test_an_ordinary_sizing_question_is_neither_a_concept_nor_a_myth(text: str) -> None:
    low = normalize(text)
    assert find(low) is None and claims_in(low) == []


@pytest.mark.parametrize("ident", sorted(BY_ID))
def test_the_dialog_opens_with_the_concepts_own_sentence(dialog: Dialog, ident: str) -> None:
    text = CONCEPT_PHRASINGS[ident][0]
    reply, _ = dialog.handle(ConversationState(), text)
    own = locales.t(reply.lang, f"concept.{ident}", **BY_ID[ident].facts(dialog.kb, _asked(dialog, text)))
    # a model the question names is said back as the user wrote it (bot.dialog.spelling)
    assert reply.title == respelled(own, llm_spellings(text, dialog.vocab, dialog.kb)) and reply.plan is None


def _asked(dialog: Dialog, text: str) -> Asked:
    from gpu_advisor.bot.dialog.faq import asked_of
    from gpu_advisor.reading.message import read_message

    return asked_of(read_message(text, dialog.vocab))


def _first(dialog: Dialog, text: str) -> str:
    reply, _ = dialog.handle(ConversationState(), text)
    return reply.as_text()


def test_a_named_model_is_answered_for_that_model(dialog: Dialog) -> None:
    said = _first(dialog, "Qwen2.5-14B 训练完怎么部署到推理机上？")
    assert said.startswith("四步") and "Qwen2.5-14B" in said.splitlines()[0] and "没说模型" not in said


def test_an_unnamed_model_is_answered_for_a_typical_one_that_is_named(dialog: Dialog) -> None:
    said = _first(dialog, "KV cache 要多少显存？")
    assert said.startswith("Llama 3.1 8B") and "没说模型，按 Llama 3.1 8B 估算" in said


def test_kv_cache_uses_the_context_and_users_even_when_the_reader_swaps_them(dialog: Dialog) -> None:
    said = _first(dialog, "Llama 3 8B 在 32k 上下文、20 个并发下 KV cache 要多少显存？").splitlines()[0]
    assert "32,768 token" in said and "20 路并发约 85.9 GB" in said


def test_kv_cache_in_english_names_the_users_numbers(dialog: Dialog) -> None:
    said = _first(dialog, "kv cache for qwen2.5-14b, 16k context, 4 concurrent users?").splitlines()[0]
    assert said.startswith("qwen2.5-14b") and "16,384-token" in said and "4 concurrent" in said


def test_a_myth_in_hearsay_is_corrected_first(dialog: Dialog) -> None:
    said = _first(dialog, "聽說T4的int8算力是65T")
    assert "130 TOPS" in said.splitlines()[0]


def test_hearsay_inside_a_job_description_still_gets_a_plan(dialog: Dialog) -> None:
    reply, _ = dialog.handle(ConversationState(), "听说 T4 的 INT8 有 65 TOPS，我想部署 7B，7×24，并发 10")
    assert reply.plan is not None


@pytest.mark.parametrize(
    "unit", ["训练 推理 ", "模型 训练完 ", "train serve box ", "t4 3090 ", "7b full 40g "]
)
def test_a_long_run_of_trigger_words_is_read_in_linear_time(unit: str) -> None:
    """Bounded gaps keep every trigger linear: 4,800 characters of anchors take milliseconds, not minutes."""
    import time

    text = normalize(unit * (4800 // len(unit)) + "?")
    started = time.perf_counter()
    find(text), claims_in(text)
    assert time.perf_counter() - started < 2.0
