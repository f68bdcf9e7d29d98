""" "租好了 A100，怎么用 vllm 把 Qwen2.5-7B 起起来": the command, not "train or serve?".

A launch request (``reading.launch_words``) that names a model is answered with the
launch commands of the plan for that model — on the card the user named, which is
theirs now (they ask how to start on it), else on the plan's pick — through the same
launch path /cmd uses (``engine.launch`` builds the specs, ``launch_view`` renders them):
only the runtime asked for, with the steps that prepare its weights, when one is named.
Ollama and llama.cpp load GGUF files, so asking for them plans the 4-bit GGUF format
unless the message names another. A training launch ("怎么用 LLaMA-Factory 把 LoRA 跑
起来") gets the training plan's commands the same way.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog import launch_view
from gpu_advisor.bot.dialog.remember import remember
from gpu_advisor.bot.dialog.reply import Button
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.tools import Answer, Tools
from gpu_advisor.bot.dialog.words import pick_words
from gpu_advisor.reading.launch_words import launch_asked
from gpu_advisor.reading.message import Message

GGUF_RUNTIMES = frozenset({"ollama", "llama_cpp"})
GGUF_DEFAULT = "q4_k_m"  # the GGUF quantization Ollama's library tags default to
PLANNED_RUNTIMES = frozenset({"vllm", "sglang", "llama_cpp", "tensorrt_llm"})  # Workload.runtime values
MODEL_SLOTS = ("model", "params_b", "hf_config")


def launch_answer(flow: Tools, state: ConversationState, msg: Message) -> Answer | None:
    """The launch commands for the model a launch request names, or None when it is none."""
    runtime = launch_asked(msg.low)
    if runtime is None or not any(k in msg.slots for k in MODEL_SLOTS):
        return None
    new = remember(state, msg)
    slots = new.slots
    slots.setdefault("task", "infer")
    if runtime in PLANNED_RUNTIMES and slots.get("task") == "infer":
        slots["runtime"] = runtime
    if runtime in GGUF_RUNTIMES and "weight_dtype" not in msg.slots:
        slots["weight_dtype"] = GGUF_DEFAULT
    if "gpu" in msg.slots:
        new.gpu_owned = True  # "租好了 A100": the card is theirs; the command is for it
    plan, _ = flow.plan_for(new)
    if plan is None or plan.recommendation is None or not plan.launch:
        return None  # nothing runs: the requirement flow says why
    new.answered = True
    lang = new.lang
    content = launch_view.commands(lang, plan, only=runtime or None)
    title = locales.t(lang, "launch.asked_title", gpus=pick_words(lang, plan.recommendation))
    content = content.model_copy(update={"title": title})
    button = Button(label=locales.t(lang, "verdict.button"), payload="/plan")
    return flow.reply(new, "answer", content, [button], plan=plan), new
