"""Number spans, Arabic or Chinese, and the one function that turns a span into a float.

Numbers are never converted over a whole message (``cn2an.transform`` turns 一下 into
1下 and 统一 into 统1). Slot patterns embed :data:`NUMBER` next to a unit or keyword
(…亿参数, …张卡, 每秒…个请求) and only the span that matched is converted here, by
``cn2an.cn2an(span, "smart")``, which reads 七百亿, 十三, 一万五, 70亿 and 1.5万 alike.

Scale words: 百 = 1e2, 千 = 1e3, 万 = 1e4, 亿 = 1e8 (in the span, read by cn2an);
the ASCII letters k / w / m / b / t are read by the slot pattern that knows what they
mean there (8k context is 8192 tokens, $8k is 8000 dollars, 13b is 13 billion).
"""

from __future__ import annotations

import re

import cn2an

CHINESE_DIGITS = "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟"
# Thousands separators only from the start of a number (never after a comma), so a
# long "1,111,111,..." is scanned once, not once per group; and a match never ends
# just before another digit, so "20 token/s" cannot be re-read as "2".
_ASCII = r"(?:(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\d.])\d+(?:\.\d+)?|(?<![\d.])\.\d+)(?!\.?\d)"

# A number: Arabic digits (1,024 / 1.5 / .5) optionally followed by Chinese scale words
# (5千, 1.5万, 70亿, 1万5), or a run of Chinese numerals (七百亿, 两, 两万5). The
# lookbehinds keep a match from starting in the middle of a longer number.
_SCALE_TAIL = r"(?:(?<=[千万亿])\d{1,4}(?![\d.])[千百]?)?"  # 1万5 = 15000, 两万5 = 25000
NUMBER = (
    rf"(?:{_ASCII}(?:\s?[百千万亿]+{_SCALE_TAIL})?"
    rf"|(?<![{CHINESE_DIGITS}])[{CHINESE_DIGITS}]+{_SCALE_TAIL})"
)

# An optional minus sign, only when it cannot be a hyphen inside a name (a100-40g).
SIGN = r"(?P<neg>(?<![a-z0-9.])-\s?|负)?"

_ASCII_FULL = re.compile(rf"[-+]?{_ASCII}")
_LEADING_SCALE = "百千万亿"
_LONGEST_CHINESE = 24  # longer runs of numerals are noise, not a quantity anyone typed

# ASCII magnitude suffixes, decimal. Context lengths use binary k (see context.py).
DECIMAL_SCALES: dict[str, float] = {
    "k": 1e3,
    "thousand": 1e3,
    "w": 1e4,
    "m": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "trillion": 1e12,
}

# Counting words that stand for a number in front of a GPU or a duration.
COUNT_WORDS: dict[str, float] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "single": 1,
    "单": 1,
    "two": 2,
    "dual": 2,
    "双": 2,
    "three": 3,
    "four": 4,
    "quad": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "sixteen": 16,
    "半": 0.5,
}


def parse_number(span: str) -> float | None:
    """The value of one matched number span, or None when it is not a number after all."""
    text = span.replace(",", "").replace(" ", "")
    if not text:
        return None
    if _ASCII_FULL.fullmatch(text):
        return float(text)
    if len(text) > _LONGEST_CHINESE:
        return None
    if text[0] in _LEADING_SCALE:
        text = "一" + text  # cn2an rejects a leading scale word: 千亿 means 一千亿
    try:
        value = cn2an.cn2an(text, "smart")
    except (ValueError, KeyError):  # cn2an's two ways of saying "not a numeral"
        return None
    return float(value)


def signed_value(match: re.Match[str], scales: dict[str, float] | None = None) -> float | None:
    """Read the ``num`` group of a slot match, applying its ``neg`` sign and ``suf`` scale.

    Groups that a pattern does not define are simply absent, so every slot pattern can use
    this one reader.
    """
    groups = match.groupdict()
    value = parse_number(groups["num"])
    if value is None:
        return None
    suffix = groups.get("suf")
    if suffix:
        value *= (scales or DECIMAL_SCALES).get(suffix.strip(), 1.0)
    return -value if groups.get("neg") else value
