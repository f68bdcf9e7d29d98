"""Sizes: parameter counts (params_b, in billions) and training data (train_tokens).

A size followed by "token(s)" is data, not the model: "2B tokens" is 2e9 tokens,
"2亿 token" 2e8, "500M tokens" 5e8. A small count of tokens with no data word nearby
("8k tokens") is a length, not a dataset, and is handed to ``context_len`` instead: the
threshold is one million tokens, far below any real dataset and far above any window
people type without a unit word.

A parameter count is a number with b/billion (13B, 13 b, 1.5B, 十三B), with 亿 (70亿参数
= 7B, 七百亿 = 70B, 千亿 = 100B) or with m/million plus a parameter word (350M params).
When a known model was named, its size is already known and no ``params_b`` is set.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.lengths import BINARY_SCALES, PER_SAMPLE, token_length
from gpu_advisor.reading.requirements.lexicon import CLAUSE_BREAK
from gpu_advisor.reading.requirements.scan import Scan, plain
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import DECIMAL_SCALES, NUMBER, SIGN, parse_number, signed_value

_PARAM_WORD = (
    r"(?:\s*+(?:个)?\s*+(?:参数量?|参数规模|params?|parameters?|的?模型|models?|规模|级别|量级)(?![a-z]))?"
)

_PARAMS = (
    lazy(rf"{SIGN}(?P<num>{NUMBER})\s*+(?P<suf>b|bn|billion|t|trillion)(?![a-z0-9]){_PARAM_WORD}"),
    lazy(
        rf"{SIGN}(?P<num>{NUMBER})\s*+(?P<suf>m|million)\s*+(?:参数量?|params?|parameters?|的?模型|models?)"
    ),
)
# 70亿 (followed by a parameter word or nothing countable) is 7B; 2亿条数据 is not a size.
_YI = lazy(
    rf"{SIGN}(?P<num>{NUMBER})(?<=亿)"
    r"(?!\s*+(?:条|个(?!参数)|次|tokens?|样本|数据|元|块|美元|人|用户|字|词|请求|行|张))"
    rf"{_PARAM_WORD}"
)
_BILLION = 1e9

_TRAIN_TOKENS = lazy(
    rf"{SIGN}(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w|m|b|t|thousand|million|billion|trillion)(?![a-z]))?"
    r"\s*+(?:个)?\s*+tokens?(?![a-z])(?!\s*+(?:/\s*+s|每秒|per\s+sec))"
)
# "5 万条数据", "20k samples", "数据 3000 条": a fine-tuning set counted in examples.
_SAMPLE_WORD = (
    r"(?:条|个)?\s*+(?:数据|样本|语料|对话|问答对|指令)"
    r"|(?:(?:instruction|training|chat|sft|qa|q&a|labeled|labelled|fine-?tuning)\s++)?"
    r"(?:samples?|examples?|rows|conversations|pairs|dialogues)(?![a-z])"
)
_SAMPLES = lazy(
    rf"(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w|m)(?![a-z]))?\s*+(?:{_SAMPLE_WORD})"
    rf"|(?:数据|样本|语料)\s*+(?:量|集)?\s*+(?:大概|约|有|共)?\s*+(?P<num2>{NUMBER})(?:\s*+(?P<suf2>k|w)(?![a-z]))?\s*+条"
)
TOKENS_PER_SAMPLE = 512
"""Tokens in one fine-tuning example (instruction + answer) when the user counts examples:
Alpaca-style SFT rows run a few hundred tokens; the assumption is said back to be corrected."""
_DATA_WORD = lazy(r"数据|语料|训练|样本|资料|(?<![a-z])(?:data|dataset|corpus|train|training|pretrain)")
_SMALLEST_DATASET = 1e6
# "训 3 轮", "3 epochs", "epochs=2": passes over the data; the job trains on data × passes.
_EPOCHS = lazy(
    rf"(?:训|训练|跑|过)?\s*+(?P<num>{NUMBER})\s*+(?:个)?\s*+(?:轮|遍|epochs?(?![a-z])|passes(?![a-z]))"
    rf"|(?<![a-z])epochs?\s*+[:=]?\s*+(?P<num2>{NUMBER})"
)
_MOST_EPOCHS = 100
_WINDOW = 24


def read_train_tokens(scan: Scan) -> None:
    """Token counts: data for training (times the passes the message states), or a length when
    small and not called data."""
    for match in scan.matches(_TRAIN_TOKENS):
        value = signed_value(match, DECIMAL_SCALES)
        if value is not None and 0 < value < _SMALLEST_DATASET and not _says_data(scan, match.start()):
            scan.put_number("context_len", signed_value(match, BINARY_SCALES), match.span())
            continue
        epochs = read_epochs(scan) if value is not None and value > 0 else None
        scan.put_number("train_tokens", value * epochs if value and epochs else value, match.span())
        if epochs and epochs > 1 and value and scan.slots.get("train_tokens") == value * epochs:
            scan.report(
                "train_tokens_epochs",
                "train_tokens",
                data=plain(value),
                epochs=epochs,
                value=plain(value * epochs),
            )


def read_train_samples(scan: Scan) -> None:
    """A dataset counted in examples becomes ``train_tokens`` at ``TOKENS_PER_SAMPLE`` each, said back."""
    for match in scan.matches(_SAMPLES):
        if "train_tokens" in scan.slots:  # a token count said outright wins; the examples are heard
            scan.claim(*match.span())
            continue
        number, suffix = (
            (match.group("num"), match.group("suf"))
            if match.group("num")
            else (
                match.group("num2"),
                match.group("suf2"),
            )
        )
        samples = parse_number(number)
        if samples is None or samples <= 0:
            continue
        samples *= _SAMPLE_SCALES.get(suffix or "", 1.0)
        each = _stated_per_sample(scan) or TOKENS_PER_SAMPLE
        epochs = read_epochs(scan) or 1
        tokens = samples * each * epochs
        scan.put_number("train_tokens", tokens, match.span())
        if scan.slots.get("train_tokens") == tokens:
            said = {
                "samples": plain(samples),
                "per_sample": plain(each),
                "value": plain(tokens),
                "epochs": epochs,
            }
            scan.report("train_tokens_from_samples", "train_tokens", **said)


def read_epochs(scan: Scan) -> int | None:
    """Passes over the data the message states ("训 3 轮", "3 epochs"), claimed; None when unsaid."""
    for match in scan.matches(_EPOCHS):
        value = parse_number(match.group("num") or match.group("num2"))
        if value is not None and 1 <= value <= _MOST_EPOCHS and value == int(value):
            scan.claim(*match.span())
            return int(value)
    return None


_SAMPLE_SCALES = {"k": 1e3, "w": 1e4, "m": 1e6}


def _stated_per_sample(scan: Scan) -> float | None:
    """The tokens of one example when the message says it ("每条500 token", "300 tokens each")."""
    for pattern in PER_SAMPLE:
        match = pattern.search(scan.source)
        length = token_length(match) if match is not None else None
        if length is not None and length > 0:
            return length
    return None


def _says_data(scan: Scan, start: int) -> bool:
    clause = CLAUSE_BREAK.split(scan.source[max(0, start - _WINDOW) : start])[-1]
    return _DATA_WORD.search(clause) is not None


def read_params(scan: Scan) -> None:
    """Parameter counts in billions; a known model makes them redundant (claimed, unset)."""
    patterns = (*_PARAMS, _YI)
    readings = [(match, _billions(match)) for pattern in patterns for match in scan.matches(pattern)]
    for match, value in readings:
        if "model" in scan.slots:
            scan.claim(*match.span(), understood=False)
        elif scan.is_free(*match.span()):
            scan.put_number("params_b", value, match.span())


def _billions(match: re.Match[str]) -> float | None:
    """A parameter count in billions, computed from the full count so 350M is exactly 0.35."""
    value = signed_value(match, DECIMAL_SCALES)
    return None if value is None else value / _BILLION
