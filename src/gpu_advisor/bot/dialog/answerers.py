"""Who answers a message, in order: the first answerer that returns a reply wins.

The message is read once (``reading.message.read_message``); each answerer looks at that
reading and either answers or passes (returns ``None``), like python-telegram-bot's
handlers (``check_update`` → ``handle_update``) in one handler group. The order is the
design — a question gets its own answer before the requirement flow may ask "train or
serve?":

1. ``typed_button`` — the label of a button on screen, typed by hand ("几十人（≈16）");
2. ``vendor_quote`` — a pasted quote judged for the workload ("8×A800 ¥58,000/月 年付85折");
3. ``server_sheet`` — a server configuration typed without ``/analyze`` ("8x H100, 2x Xeon 8480, 2TB 内存");
4. ``buy_or_rent`` — buy vs rent vs a hosted API, or a power or purchase price for it;
5. ``gpu_job`` — a job that is not a language model's (image, video, speech, embeddings,
   vision, encoding) sized with its own numbers ("每天 5000 张 SDXL 图"), or a turn that
   changes the job already answered ("换成 Flux 呢", "cheaper?");
6. ``price_lookup`` — card × count × period from the catalog ("一张 4090 包月多少");
7. ``fit_verdict`` — can this hardware run / train that model ("一张 L40S 能跑 32B 吗");
8. ``myth`` — a known wrong claim, corrected with the true figure;
9. ``concept`` — a concept question, answered with numbers ("T4 还是 3090 做推理" asks why);
10. ``comparison`` — two or more cards side by side ("L40S 和 A6000 哪个好"), or the plans
    for two or more models ("Qwen2.5 7B 和 Llama 3.1 8B 哪个部署便宜");
11. ``plan_follow_up`` — a question about the plan already given ("有没有更便宜的");
12. ``launch`` — how to start a named model on a card, with a runtime ("租好了 A100，怎么用
    vllm 把 Qwen2.5-7B 起起来"): the plan's launch command for it;
13. ``requirements`` — everything else describes the job: merge, then ask or answer.

The README's "How a message is answered" lists this order; ``tests/test_docs.py`` holds
the two together.
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_advisor.bot.dialog import commands, faq, followups, money, prices, verdicts
from gpu_advisor.bot.dialog.compare_view import comparison_answer
from gpu_advisor.bot.dialog.job_answer import job_answerer
from gpu_advisor.bot.dialog.launch_answer import launch_answer
from gpu_advisor.bot.dialog.model_compare import model_comparison_answer
from gpu_advisor.bot.dialog.requirements import requirements_answer
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.typed import typed_choice
from gpu_advisor.reading.message import Message

Answerer = Callable[[Tools, ConversationState, Message], Answer | None]


def typed_button(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    payload = typed_choice(state, msg.text)
    return flow.press(state, payload) if payload is not None else None


def vendor_quote(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A price someone was offered or pays, judged (``msg.intent`` is ``quote``)."""
    if msg.intent != "quote":
        return None
    return money.quote_answerer(flow, state, msg)


def server_sheet(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """A whole server described (GPUs plus CPU, memory, disks or network) and no job to size."""
    if msg.intent != "sheet" or any(k in msg.slots for k in ("model", "task")):  # "1T 内存" may be a size
        return None
    return commands.analyze(flow, state, msg.text)


def buy_or_rent(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return money.ownership_answerer(flow, state, msg)


def gpu_job(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return job_answerer(flow, state, msg)


def price_lookup(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    if _verdict_priced(msg):
        return None  # the verdict answers first and prices the hardware beside it
    return prices.answer(flow, state, msg)


def fit_verdict(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """Whether named hardware runs a job, how fast or for how many: a fit, speed or capacity
    question, or a claim about one ("听说 405B Q4 单卡 H100 能跑 50 token/s") checked the same way."""
    if msg.intent not in VERDICT_INTENTS and not _verdict_priced(msg):
        return None
    return verdicts.answer(flow, state, msg)


def _verdict_priced(msg: Message) -> bool:
    """ "一张 L40S 能跑 Qwen2.5-32B 吗，包月多少": a price asked beside whether a named model runs
    on named hardware; the price alone would leave the first question unanswered."""
    return msg.intent == "price" and "fit" in msg.asked and "model" in msg.slots and bool(msg.ext.gpus)


VERDICT_INTENTS = frozenset({"fit", "speed", "capacity", "myth"})


def comparison(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return comparison_answer(flow, state, msg) or model_comparison_answer(flow, state, msg)


def myth(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return faq.myth_answer(flow, state, msg)


def concept(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return faq.concept_answer(flow, state, msg)


def plan_follow_up(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return followups.follow_up(flow, state, msg)


def launch(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return launch_answer(flow, state, msg)


def requirements(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    return requirements_answer(flow, state, msg)


ANSWERERS: tuple[Answerer, ...] = (
    typed_button,
    vendor_quote,
    server_sheet,
    buy_or_rent,
    gpu_job,
    price_lookup,
    fit_verdict,
    myth,
    concept,
    comparison,
    plan_follow_up,
    launch,
    requirements,
)
