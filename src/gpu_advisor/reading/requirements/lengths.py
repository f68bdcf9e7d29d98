"""Token lengths: the context window, and prompt and output lengths of a request.

Lengths are powers of two in practice, so k and m are binary here: 8k = 8192,
32K = 32768, 128k = 131072. A negative length is reported as typed (-5k → -5000).
The context is always stored as ``context_len``; for a training job the dialog maps it
to ``seq_len``. A bare "8k" with no context word is still a context length, but only
after money ("预算8k", "$8k"), counts and loads have had their chance at it, and never
when a noun says it counts something else (8k 条数据, 8k users).
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.lexicon import GAP
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import DECIMAL_SCALES, NUMBER, SIGN, parse_number, signed_value

BINARY_SCALES = {"k": 1024.0, "m": 1024.0**2}

_LEN = rf"{SIGN}(?P<num>{NUMBER})(?:\s*+(?P<suf>k|m)(?![a-z])|(?!\s*+[km](?![a-z])))"
_NEAR = rf"{GAP}{{0,10}}?"
_TOKENS = r"\s*+(?:个)?\s*+(?:tokens?(?![a-z]))?"
_NOT_RATE = r"(?!\s*+(?:个)?\s*+tokens?\s*+(?:/\s*+s|每秒|per\s+sec))"
# A number after the context word that counts people or requests is the next item's ("32k 上下文
# 20 个并发"), never the context.
_NOT_LOAD = (
    r"(?!\s*+(?:个|路|位|名)?\s*+(?:并发|人|用户|(?:users?|people|concurrent|qps|requests?)(?![a-z])))"
)
_CONTEXT_WORD = (
    r"(?:上下文|序列长度|最大长度|(?<![a-z])(?:context|ctx|seq(?:uence)?[\s_-]*len(?:gth)?"
    r"|max[\s_-]*(?:model[\s_-]*)?(?:len|length|seq[\s_-]*len)))"
)
_CONTEXT = (
    lazy(rf"{_CONTEXT_WORD}(?:长度|窗口|length|window|len|size)?{_NEAR}{_LEN}{_NOT_LOAD}{_TOKENS}"),
    lazy(rf"{_LEN}\s*+(?:个)?\s*+(?:tokens?\s*+)?(?:的|of)?\s*+(?:{_CONTEXT_WORD}|序列)"),
)
_BARE_K = lazy(
    r"(?:(?P<neg>(?<![a-z0-9.$¥])-)|(?<![a-z0-9.$¥-]))(?P<num>\d+(?:\.\d+)?)\s?(?P<suf>k)(?![a-z0-9])"
    r"(?!\s*+(?:条|个|人|用户|张|次|请求|元|块|美元|刀|(?:users?|samples?|steps?|images?|requests?|dollars?"
    r"|usd|rmb|rows?|examples?)(?![a-z])))"
)
# "用户8k", "users: 8k": the noun before says what is counted.
_COUNTED_BEFORE = lazy(
    r"(?:用户|人数|样本|数据|条数|(?<![a-z])(?:users?|samples?|rows?|examples?))\s*+(?:数|量)?\s*+(?:有|是|为|:|=)?\s*+$"
)
_OUTPUT_WORD = (
    r"(?:输出|生成|回复长度|回答长度|(?<![a-z])(?:outputs?|completions?|generat(?:e|es|ed|ion)"
    r"|max[\s_-]*new[\s_-]*tokens|(?:response|answer|reply)\s+length))"
)
_PROMPT_WORD = r"(?:输入|提示词?|(?<![a-z])(?:prompts?|inputs?))"
# "回答 2000 token", "answers of 2000 tokens": an answer's length only with the word token after
# the number, since "回答" alone is often the verb ("每个回答要在 2 秒内").
_ANSWER_WORD = r"(?:回答|回复|答案|(?<![a-z])(?:answers?|responses?|replies|reply)(?![a-z]))"
_ANSWER = lazy(
    rf"{_ANSWER_WORD}(?:长度|length)?\s*+(?:of|约|大约|是|为|有|:|：)?\s*+(?:约|大约|about|~)?\s*+"
    rf"{_LEN}\s*+(?:个)?\s*+tokens?(?![a-z])"
)
_REQUEST_LENGTHS = (
    ("output_tokens", _ANSWER),
    (
        "output_tokens",
        lazy(rf"{_OUTPUT_WORD}(?:长度|length|tokens?)?{_NEAR}{_LEN}{_NOT_RATE}{_TOKENS}"),
    ),
    (
        "output_tokens",
        lazy(rf"{_LEN}\s*+(?:个)?\s*+(?:output|输出|generated|completion|new|生成)\s*+tokens?"),
    ),
    ("prompt_tokens", lazy(rf"{_PROMPT_WORD}(?:长度|length|tokens?)?{_NEAR}{_LEN}{_TOKENS}")),
    ("prompt_tokens", lazy(rf"{_LEN}\s*+(?:个)?\s*+(?:input|prompt|输入)\s*+tokens?")),
    ("output_tokens", lazy(rf"{_LEN}\s*+(?:个)?\s*+tokens?\s*+(?:of\s+|的)?(?:output|输出)")),
    ("prompt_tokens", lazy(rf"{_LEN}\s*+(?:个)?\s*+tokens?\s*+(?:of\s+|的)?(?:input|prompt|输入)")),
)
# "2000 token 输入 300 输出", "2k in / 300 out": both numbers before their words. Read as a pair
# first, or "输入 300" (the word before the next number) would take the output's number.
_ONE = r"(?P<{n}>{num})(?:\s*+(?P<{n}suf>k)(?![a-z\d]))?\s*+(?:个)?\s*+(?:tokens?(?![a-z]))?\s*+(?:的)?\s*+"
_IN_WORD = r"(?:输入|提示词?|(?<![a-z])(?:in|inputs?|prompts?)(?![a-z]))"
_OUT_WORD = r"(?:输出|生成|(?<![a-z])(?:out|outputs?)(?![a-z]))"
_PAIR_SEP = r"\s*+[,，、/;；]?\s*+(?:和|与|and)?\s*+"
_PAIRS = (
    (
        "in_out",
        lazy(
            _ONE.format(n="a", num=NUMBER) + _IN_WORD + _PAIR_SEP + _ONE.format(n="b", num=NUMBER) + _OUT_WORD
        ),
    ),
    (
        "out_in",
        lazy(
            _ONE.format(n="a", num=NUMBER) + _OUT_WORD + _PAIR_SEP + _ONE.format(n="b", num=NUMBER) + _IN_WORD
        ),
    ),
)
# "每条500 token" describes the data, not a request or the window: claimed here, and the
# length of one example when the data is counted in examples (``size.read_train_samples``).
PER_SAMPLE = (
    lazy(
        rf"每(?:条|个样本|条样本|个例子|篇)\s*+(?:样本|数据)?{_NEAR}(?P<num>{NUMBER})\s*+(?P<suf>k)?{_TOKENS}"
    ),
    lazy(
        rf"(?P<num>{NUMBER})\s*+(?P<suf>k)?\s*+tokens?\s*+"
        r"(?:each|per\s+(?:sample|example|item|row|document|conversation))"
    ),
)


def token_length(match: re.Match[str]) -> float | None:
    """A length in tokens, binary k; negatives as typed so the issue quotes the user."""
    value = signed_value(match, BINARY_SCALES)
    if value is not None and value < 0:
        return signed_value(match, DECIMAL_SCALES)
    return value


def read_request_lengths(scan: Scan) -> None:
    for pattern in PER_SAMPLE:
        for match in scan.matches(pattern):
            scan.claim(*match.span(), understood=False)
    for order, pattern in _PAIRS:
        for match in scan.matches(pattern):
            first, second = (_paired(match, "a"), _paired(match, "b"))
            prompt, output = (first, second) if order == "in_out" else (second, first)
            scan.put_number("prompt_tokens", prompt, match.span("a"))
            scan.put_number("output_tokens", output, match.span("b"))
            scan.claim(*match.span())
    for name, pattern in _REQUEST_LENGTHS:
        for match in scan.matches(pattern):
            scan.put_number(name, token_length(match), match.span())


def _paired(match: re.Match[str], name: str) -> float | None:
    value = parse_number(match.group(name))
    if value is None:
        return None
    return value * (BINARY_SCALES["k"] if match.group(f"{name}suf") else 1.0)


def read_context(scan: Scan) -> None:
    for pattern in _CONTEXT:
        for match in scan.matches(pattern):
            scan.put_number("context_len", token_length(match), match.span())


def read_bare_k(scan: Scan) -> None:
    """Whatever "8k" is left after money, loads and token counts took theirs: a context."""
    for match in scan.matches(_BARE_K):
        if _COUNTED_BEFORE.search(scan.text, max(0, match.start() - 12), match.start()):
            continue
        scan.put_number("context_len", token_length(match), match.span())
