"""A short answer to the question the dialog just asked: "1亿", "5", "几十人", "full".

Out of context "1亿" could be a model size or a token count and "5" is nothing at all;
after "how many training tokens?" it is the token count, after "how many people at
once?" it is the concurrency. So when ``extract`` is told which slot it is
``expecting`` and the whole message is one bare amount (a number, a loose amount from
``vague``, with at most a unit word for that slot), the amount goes to that slot before
any other reader runs. Choice slots get their bare words ("full", "全部" for the method),
which are too short to mean anything in a first message.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.scan import Scan, plain
from gpu_advisor.reading.requirements.vague import VAGUE, vague_value
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, signed_value

# A unit word that may follow the bare amount, per slot it would be read as.
_UNIT_WORDS: dict[str, str] = {
    "concurrency": r"(?:个|位|名|路)?\s*+(?:人|用户|并发|people|users?|concurrent)?",
    "qps": r"(?:次|个)?\s*+(?:请求|调用)?\s*+(?:/\s*+s|每秒|qps|rps)?",
    "train_tokens": r"(?:个)?\s*+(?:tokens?|token|词元)?",
    "params_b": r"(?:参数|b|bn|billion)?",
    "duration_hours": r"(?:个)?\s*+(?:小时|hours?|h)?",
    "gpu_count": r"(?:张|块|个|台|卡|cards?|gpus?)?",
    "context_len": r"(?:tokens?)?",
    "prompt_tokens": r"(?:tokens?)?",
    "output_tokens": r"(?:tokens?)?",
    "batch_size": "",
    "lora_rank": "",
    "ttft_ms_max": r"(?:ms|毫秒)?",
}
_SUFFIX = {"k": 1e3, "w": 1e4, "m": 1e6, "b": 1e9}
_FILLER_WORDS = r"(?:大概|大约|约|就|差不多|about|around|roughly)?"
_TAIL = r"\s*+(?:吧|左右|上下|的样子|ish)?\s*+[。.!！~]?\s*+"
_BARE_CHOICES: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    "task": ((lazy(r"(?:两个|两样|两者)?都(?:要|有|需要|做)?|both(?: of them)?|all of it"), "both"),),
    "method": (
        (lazy(r"(?:full|all|全部|全量|全参数?|全)"), "full"),
        (lazy(r"q-?lora"), "qlora"),
        (lazy(r"lora"), "lora"),
    ),
}


def read_answer(scan: Scan, expecting: str) -> None:
    """The whole message as the answer to ``expecting``, when it is just that."""
    for pattern, choice in _BARE_CHOICES.get(expecting, ()):
        if re.fullmatch(rf"\s*+{pattern.pattern}{_TAIL}", scan.text):
            scan.put(expecting, choice)
            scan.claim(0, len(scan.text))
            return
    unit = _UNIT_WORDS.get(expecting)
    if unit is None:
        return
    # A range ("三五个人", "四五十", "5、6个") is tried before an exact number: read as one
    # number its digits would glue together (三五 → 35, a 7x overestimate).
    loose = re.fullmatch(rf"\s*+(?:就|就我们组|我们组|我们)?\s*+{VAGUE}\s*+{unit}{_TAIL}", scan.text)
    if loose is not None and (value := vague_value(loose)) is not None:
        scan.put_number(expecting, value, (0, len(scan.text)))
        scan.report("approximated", expecting, said=loose.group().strip(), value=plain(value))
        return
    exact = re.fullmatch(
        rf"\s*+{_FILLER_WORDS}\s*+(?P<num>{NUMBER})(?:\s*+(?P<suf>[kwmb])(?![a-z]))?\s*+{unit}{_TAIL}",
        scan.text,
    )
    if exact is not None and not (expecting == "params_b" and exact.group("suf") == "b"):
        value = signed_value(exact, _SUFFIX)
        if value is not None:
            scan.put_number(expecting, value, (0, len(scan.text)))
