"""One canonical spelling of a message before any pattern looks at it.

Chinese IMEs type full-width forms (ＱＰＳ, １３Ｂ, ，), Taiwanese and Hong Kong users
type Traditional characters (萬, 億, 張, 訓練), counts come with a multiplication sign
(8×H100) and case is arbitrary. NFKC folds the width forms; a small hand table maps the
Traditional characters the lexicon actually uses (a full OpenCC table is megabytes and
buys nothing here); then everything is lower-cased so patterns can be written once, and
common misspellings of the keywords are put right (``text.typos``).

Language is decided on the raw text, deterministically: any Han character (or CJK
punctuation / full-width form, which only a Chinese IME produces) means Chinese.
Statistical detectors misjudge short mixed text such as "需要 2x A100 for training".

Normalising is also what keeps every slot pattern linear in the message length. Slot
patterns put ``\\s*`` between a number, a unit and a keyword (``16 个 用户 的 并发``);
over a long run of whitespace several such quantifiers can split the run between them
in quartic many ways ("1" + 450 spaces + "x" took 44 s). So every run of whitespace
(any Unicode space, tab, U+3000, zero-width characters) becomes one character: a
newline if the run held a line break (a newline ends a clause for the readers), else
one space. A run of one repeated character is cut to :data:`MAX_REPEAT`, and lone
surrogates (half a UTF-16 pair, which cannot be encoded) become spaces, so nothing the
readers quote back can fail to print.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from gpu_advisor.text.hanzi import SURROGATE, TO_SIMPLIFIED, without_control
from gpu_advisor.text.typos import fix_typos

Lang = Literal["zh", "en"]


def client_lang(language_code: str | None, default: Lang = "en") -> Lang:
    """The one mapping of a client's language setting (Telegram's ``language_code``, Discord's
    locale, a browser's ``navigator.language`` or ``Accept-Language``) to ours: any ``zh``
    variant is Chinese, any ``en`` variant English, and a missing or other language
    ``default`` — the caller says what it means: a chat app's user with a German setting
    reads English, a browser that sends nothing meets the site's Chinese."""
    code = (language_code or "").strip().lower()
    if code.startswith("zh"):
        return "zh"
    return "en" if code.startswith("en") else default


# Width-independent symbols NFKC leaves alone: multiplication signs become "x" (8×H100,
# 7×24), the various minus signs and dashes become "-".
_SYMBOLS = {"×": "x", "✕": "x", "✖": "x", "⨯": "x", "−": "-", "‐": "-", "‑": "-", "‒": "-", "–": "-"}
_TABLE = TO_SIMPLIFIED | str.maketrans(_SYMBOLS)  # one Traditional table (text.hanzi)

# Control characters (text.hanzi.CONTROL) and lone surrogates become spaces so they
# separate words instead of gluing them; zero-width characters vanish.
_ZERO_WIDTH = re.compile(r"[\u200b-\u200d\u2060\ufeff]")
MAX_REPEAT = 32
"""Longest run of one repeated character kept; no quantity or keyword needs more."""

_WHITESPACE_RUN = re.compile(r"\s{2,}+")
_REPEAT_RUN = re.compile(rf"(\S)\1{{{MAX_REPEAT},}}+")

_CHINESE = re.compile(
    r"[\u3000-\u303f\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]"
)


def normalize(text: str) -> str:
    """Fold width, Traditional characters, symbols and case so patterns match one spelling."""
    text = _ZERO_WIDTH.sub("", SURROGATE.sub(" ", without_control(text)))
    text = unicodedata.normalize("NFKC", text)
    text = _WHITESPACE_RUN.sub(_one_space, text.translate(_TABLE).lower())
    return fix_typos(cap_repeats(text))


def _one_space(run: re.Match[str]) -> str:
    """A newline if the run ends a line (a clause break for the readers), else a space."""
    return "\n" if "\n" in run.group() else " "


def cap_repeats(text: str) -> str:
    """Each run of one repeated visible character cut to :data:`MAX_REPEAT` (chat and sheets).

    Whitespace runs are each reader's own business (chat folds them to one character,
    sheets keep tabs as cell breaks), so only visible characters are capped here.
    """
    return _REPEAT_RUN.sub(_capped, text)


def _capped(run: re.Match[str]) -> str:
    return run.group()[:MAX_REPEAT]


def language_of(text: str, current: Lang | None = None) -> Lang:
    """The language to answer in; with ``current``, it sticks unless the text is clearly the other.

    Without a conversation language: Chinese if the raw text holds any Han character or
    Chinese-IME punctuation, else English. Inside a conversation a Chinese user types
    "7x24", "13B", "LoRA" or "20 QPS" without leaving Chinese, so the language changes
    only on a clearly English sentence (:func:`clearly_english`) or, in an English
    conversation, on text with at least :data:`HAN_TO_SWITCH` Han characters.
    """
    if current is None:
        return "zh" if _CHINESE.search(text) else "en"
    if current == "zh":
        return "en" if clearly_english(text) else "zh"
    return "zh" if len(_HAN.findall(text)) >= HAN_TO_SWITCH else "en"


HAN_TO_SWITCH = 2
"""Han characters that switch an English conversation to Chinese (one may be a name)."""
ENGLISH_WORDS_TO_SWITCH = 3
"""Ordinary English words (2+ letters, not units, models or acronyms) that make a sentence English."""
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_LATIN_WORD = re.compile(r"(?<![a-z0-9])[a-z]{2,}+(?![a-z0-9])")
# Words a Chinese user types inside a Chinese sentence: units, acronyms, model and card
# families, runtimes. Lower-case; anything with a digit is never a word here.
_TECH_WORDS = frozenset(
    str.split(
        "qps rps tps ttft api gpu gpus cpu vram ram ssd nvme gb tb mb kb ms token tokens lora qlora "
        "sft dpo rlhf fp bf int awq gptq gguf nf vllm sglang tgi llama qwen deepseek glm chatglm "
        "mistral mixtral yi baichuan gemma phi rtx nvidia amd ascend huawei tesla sxm pcie nvlink "
        "ib cuda rocm kv cache moe dau mau ok hi hello bot app ai llm rag ft full batch context "
        "k8s docker aws gcp azure hf json yaml id ui"
    )
)


def has_hanzi(text: str) -> bool:
    """Whether the text holds any Han character (the script it is written in can be told)."""
    return _HAN.search(text) is not None


def clearly_english(text: str) -> bool:
    """No Han characters and at least three ordinary English words ("make it cheaper please")."""
    if _HAN.search(text):
        return False
    words = _LATIN_WORD.findall(text.lower())
    return sum(word not in _TECH_WORDS for word in words) >= ENGLISH_WORDS_TO_SWITCH
