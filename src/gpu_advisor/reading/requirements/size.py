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

from gpu_advisor.reading.requirements.lengths import BINARY_SCALES
from gpu_advisor.reading.requirements.lexicon import CLAUSE_BREAK
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.numbers import DECIMAL_SCALES, NUMBER, SIGN, signed_value

_PARAM_WORD = (
    r"(?:\s*+(?:个)?\s*+(?:参数量?|参数规模|params?|parameters?|的?模型|models?|规模|级别|量级)(?![a-z]))?"
)

_PARAMS = (
    re.compile(rf"{SIGN}(?P<num>{NUMBER})\s*+(?P<suf>b|bn|billion|t|trillion)(?![a-z0-9]){_PARAM_WORD}"),
    re.compile(
        rf"{SIGN}(?P<num>{NUMBER})\s*+(?P<suf>m|million)\s*+(?:参数量?|params?|parameters?|的?模型|models?)"
    ),
)
# 70亿 (followed by a parameter word or nothing countable) is 7B; 2亿条数据 is not a size.
_YI = re.compile(
    rf"{SIGN}(?P<num>{NUMBER})(?<=亿)"
    r"(?!\s*+(?:条|个(?!参数)|次|tokens?|样本|数据|元|块|美元|人|用户|字|词|请求|行|张))"
    rf"{_PARAM_WORD}"
)
_BILLION = 1e9

_TRAIN_TOKENS = re.compile(
    rf"{SIGN}(?P<num>{NUMBER})(?:\s*+(?P<suf>k|w|m|b|t|thousand|million|billion|trillion)(?![a-z]))?"
    r"\s*+(?:个)?\s*+tokens?(?![a-z])(?!\s*+(?:/\s*+s|每秒|per\s+sec))"
)
_DATA_WORD = re.compile(r"数据|语料|训练|样本|资料|(?<![a-z])(?:data|dataset|corpus|train|training|pretrain)")
_SMALLEST_DATASET = 1e6
_WINDOW = 24


def read_train_tokens(scan: Scan) -> None:
    """Token counts: data for training, or a length when small and not called data."""
    for match in scan.matches(_TRAIN_TOKENS):
        value = signed_value(match, DECIMAL_SCALES)
        if value is not None and 0 < value < _SMALLEST_DATASET and not _says_data(scan, match.start()):
            scan.put_number("context_len", signed_value(match, BINARY_SCALES), match.span())
        else:
            scan.put_number("train_tokens", value, match.span())


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
