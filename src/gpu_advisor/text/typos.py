"""Common misspellings of the words the readers look for, put right before any pattern runs.

"depoly lama 3 8b for 10 usres" is a serving request for Llama 3 8B and ten users; typed
fast on a phone, a keyword loses a letter or swaps two. Swapping two neighbouring letters
is the commonest slip and, for words of five letters or more, almost never makes another
English word, so every such swap of a keyword is mapped back to it; a short hand list
adds the other slips people make with these words ("lama", "ppl"). Only whole words are
replaced, and a keyword is never rewritten.
"""

from __future__ import annotations

from gpu_advisor.text.lazy import lazy

KEYWORDS = (
    "deploy",
    "deployment",
    "deploying",
    "inference",
    "serving",
    "chatbot",
    "training",
    "train",
    "finetune",
    "fine-tune",
    "finetuning",
    "users",
    "people",
    "concurrent",
    "concurrency",
    "budget",
    "month",
    "monthly",
    "hourly",
    "tokens",
    "latency",
    "context",
    "throughput",
    "llama",
    "mistral",
    "mixtral",
    "qwen",
    "gemma",
    "deepseek",
    "model",
    "models",
)
_EXTRA = {
    "lama": "llama",
    "llamma": "llama",
    "lamma": "llama",
    "llma": "llama",
    "ppl": "people",
    "ppls": "people",
    "usrs": "users",
    "uers": "users",
    "userss": "users",
    "depoy": "deploy",
    "dploy": "deploy",
    "deply": "deploy",
    "deplpy": "deploy",
    "deplot": "deploy",
    "inferece": "inference",
    "infernce": "inference",
    "inferance": "inference",
    "inferrence": "inference",
    "trainig": "training",
    "traning": "training",
    "trainning": "training",
    "concurent": "concurrent",
    "concurrant": "concurrent",
    "budjet": "budget",
    "buget": "budget",
    "finetuen": "finetune",
    "fintune": "finetune",
    "mistal": "mistral",
    "deepseak": "deepseek",
}
_WORD = lazy(r"[a-z][a-z-]*+")


def _swaps(word: str) -> set[str]:
    return {
        word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        for i in range(len(word) - 1)
        if word[i] != word[i + 1]
    }


def _table() -> dict[str, str]:
    table = {swap: word for word in KEYWORDS if len(word) >= 5 for swap in _swaps(word)}
    table.update(_EXTRA)
    for word in KEYWORDS:
        table.pop(word, None)
    return table


FIXES = _table()


def fix_typos(text: str) -> str:
    """``text`` (lower-case) with every whole-word misspelling in :data:`FIXES` put right."""
    return _WORD.sub(lambda m: FIXES.get(m.group(), m.group()), text)
