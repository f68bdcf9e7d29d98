"""Number spans, Arabic or Chinese, and the one function that turns a span into a float.

Numbers are never converted over a whole message (a whole-text converter turns 一下
into 1下 and 统一 into 统1). Slot patterns embed :data:`NUMBER` next to a unit or keyword
(…亿参数, …张卡, 每秒…个请求) and only the span that matched is converted, by
:func:`parse_number`; the sheet reader converts its counts (八卡, 十六路) with the same
:func:`chinese_value`. One reader, written here rather than imported (cn2an cost ~90 ms
at every start-up), for the numerals people type: 七百亿, 十三, 一千零五, 二〇二四,
壹佰贰拾, and the spoken shorthand where a last digit counts in the unit below the one
before it (一万五 = 15000, 三千五 = 3500, 两百五 = 250, 一亿五 = 1.5亿, 1万5 = 15000).

Scale words: 百 = 1e2, 千 = 1e3, 万 = 1e4, 亿 = 1e8 (in the span, read here);
the ASCII letters k / w / m / b / t are read by the slot pattern that knows what they
mean there (8k context is 8192 tokens, $8k is 8000 dollars, 13b is 13 billion).
"""

from __future__ import annotations

import re

from gpu_advisor.text.lazy import lazy

CHINESE_DIGITS = "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟"
# Thousands separators only from the start of a number (never after a comma), so a
# long "1,111,111,..." is scanned once, not once per group; and a match never ends
# just before another digit, so "20 token/s" cannot be re-read as "2".
_ASCII = r"(?:(?<![\d.,])\d{1,3}(?:,\d{3})+(?!\d|,\d)|(?<![\d.])\d+(?:\.\d+)?|(?<![\d.])\.\d+)(?!\.?\d)"

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

_ASCII_FULL = lazy(rf"[-+]?{_ASCII}")
_DIGIT_VALUES = (
    {c: float(i) for i, c in enumerate("零一二三四五六七八九")}
    | {c: float(i) for i, c in enumerate("〇壹贰叁肆伍陆柒捌玖")}
    | {"两": 2.0}
)
_SMALL_UNITS = {"十": 10.0, "拾": 10.0, "百": 100.0, "佰": 100.0, "千": 1000.0, "仟": 1000.0}
_BIG_UNITS = {"万": 1e4, "亿": 1e8}
_TOKEN = lazy(r"\d+(?:\.\d+)?|\.\d+|.", re.S)
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
    return chinese_value(text)


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


def chinese_value(text: str) -> float | None:
    """The value of a numeral span (七百亿, 一万五, 1.5万, 两万5, 二〇二四), or None.

    Arabic numbers may stand where a digit does (1.5万, 1万5); a leading unit counts one
    (千亿 = 一千亿); a run of bare digits reads digit by digit (二〇二四 = 2024).
    """
    tokens = _TOKEN.findall(text)
    if not tokens or not all(_known(t) for t in tokens):
        return None
    if all(t in _DIGIT_VALUES for t in tokens):
        return float("".join(str(int(_DIGIT_VALUES[t])) for t in tokens))
    if tokens[0] in _SMALL_UNITS or tokens[0] in _BIG_UNITS:
        tokens.insert(0, "一")
    return _with_units(tokens)


def _known(token: str) -> bool:
    return token[0] in "0123456789." or token in _DIGIT_VALUES or token in _SMALL_UNITS or token in _BIG_UNITS


def _with_units(tokens: list[str]) -> float | None:
    """Sum units left to right: 亿 closes everything before it, 万 the part below 亿."""
    above_wan, section, digit, last_unit, after_zero = 0.0, 0.0, None, 0.0, False
    for token in tokens:
        if token in _SMALL_UNITS or token in _BIG_UNITS:
            unit = _SMALL_UNITS.get(token) or _BIG_UNITS[token]
            if token in _SMALL_UNITS:
                section += (1.0 if digit is None else digit) * unit
            elif token == "万":
                above_wan += (section + (digit or 0.0)) * unit
                section = 0.0
            else:
                above_wan = (above_wan + section + (digit or 0.0)) * unit
                section = 0.0
            digit, last_unit, after_zero = None, unit, False
        elif token in ("零", "〇"):
            after_zero = True
        elif digit is not None:
            return None  # two numbers with no unit between them (五六万)
        else:
            digit = _DIGIT_VALUES.get(token) if token in _DIGIT_VALUES else float(token)
    return above_wan + section + _tail(digit, last_unit, after_zero)


def _tail(digit: float | None, last_unit: float, after_zero: bool) -> float:
    """A trailing digit: spoken shorthand counts it in the unit below (一万五 = 15000)."""
    if digit is None:
        return 0.0
    if after_zero or last_unit <= 10 or digit >= 10:  # 一千零五, 十五, 1万50
        return digit
    return digit * last_unit / 10
