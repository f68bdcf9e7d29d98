"""A request for the command that starts a model: "怎么用 vllm 把 Qwen2.5-7B 起起来".

Someone who has rented a card (or is about to) and asks how to bring a model up with a
serving runtime wants the launch command for that model on that card, not "train or
serve?". Heard here, on the normalised text, as a how-word and a start-word, or a named
runtime with either; the dialog answers it with the plan's launch specs
(``bot.dialog.launch_answer``). A question about a plan already given ("给我启动命令")
stays the follow-up's (``reading.followup``). Patterns are linear: bounded gaps only.
"""

from __future__ import annotations

from gpu_advisor.text.lazy import lazy

# The serving runtimes the launch package writes commands for, as people name them.
RUNTIMES: dict[str, str] = {
    "vllm": "vllm",
    "sglang": "sglang",
    "ollama": "ollama",
    "llama.cpp": "llama_cpp",
    "llamacpp": "llama_cpp",
    "llama-server": "llama_cpp",
    "llama server": "llama_cpp",
    "tensorrt-llm": "tensorrt_llm",
    "tensorrt llm": "tensorrt_llm",
    "trt-llm": "tensorrt_llm",
    "trtllm": "tensorrt_llm",
}
_RUNTIME = lazy(
    r"(?<![a-z0-9])(vllm|sglang|ollama|llama\.?cpp|llama[- ]server|tensorrt[- ]llm|trt-?llm)(?![a-z0-9])"
)
_GAP = r".{0,40}?"
_HOW_ZH = r"(怎么|怎样|如何|咋)"
_HOW_EN = r"(how (do|can|should|would|to)( (i|we|you))?|what('s| is) the (command|way) to)\b"
# Starting a model, said so: enough with a how-word
_STARTS = lazy(
    rf"{_HOW_ZH}{_GAP}(起起来|跑起来|启起来|起来|启动|拉起|起服务|跑通|搭起来|开起来)"
    rf"|{_HOW_EN}{_GAP}\b(start|launch|spin up|boot|bring up|stand up|fire up)\b"
    rf"|(起起来|跑起来|启起来|启动|拉起|起服务|跑通){_GAP}{_HOW_ZH}"
    rf"|(启动|部署|运行|跑|起){_GAP}(命令|指令)|(命令|指令)(是什么|是啥|怎么写|怎么下)"
    r"|\b(launch|start|serve) (command|script)|\bcommand (to|for) (start|launch|run|serve|deploy)"
)
# Running or deploying: a launch request only with a runtime named or the card in hand
# ("怎么部署 7B 给 50 人用" asks for a plan)
_RUNS = lazy(
    rf"{_HOW_ZH}{_GAP}(部署|运行|跑|加载|用起来)"
    rf"|{_HOW_EN}{_GAP}\b(run|serve|deploy|set up|load|get .{{0,30}}?running)\b"
)
_OWNED = lazy(
    r"租好|已经租|租了|租到|手上有|手里有|我有|买了|刚开了|开好了"
    r"|\b(on my|my rented|i rented|i've rented|i have rented|already (rented|have|got)|i've got|i got)\b"
)


def launch_asked(low: str) -> str | None:
    """The runtime a launch request names ("vllm", "ollama", "llama_cpp" …), "" for a launch
    request that names none ("租好了 4090，怎么把 Qwen2.5-7B 跑起来"), None when it is none.

    Starting said so ("怎么 … 起起来", "how do I start …") is a launch request; running or
    deploying ("怎么用 ollama 跑 …", "how do I serve … on my 4090") is one when a runtime
    is named or the card is already the user's.
    """
    runtime = _RUNTIME.search(low)
    named = RUNTIMES.get(runtime.group(1), "") if runtime is not None else ""
    if _STARTS.search(low) is not None:
        return named
    if _RUNS.search(low) is not None and (runtime is not None or _OWNED.search(low) is not None):
        return named
    return None
