"""Every parser entry point reads hostile text in time linear in its length.

A chat bot's parser reads whatever anyone types, so its worst case is its real case.
Issue 14: "1" + 450 spaces + "x" made the concurrency pattern backtrack for 43.8 s
(300 spaces: 6.9 s, so roughly the fourth power of the run). The generators below build
the shapes that make regular expressions backtrack (long runs of each whitespace kind,
digits, CJK numerals, repeated units and keywords, decimal points, alternations), each
ending in a character that makes the match fail, and feed them to every entry point.

Timing is relative, never absolute: each input must parse within ``_FACTOR`` times a
short ordinary message of the same length measured in the same run, plus a small floor,
so a loaded CI machine passes and a quadratic or quartic blowup fails. Sizes grow by
doubling and the test stops at the first size over budget, so a regression costs at
most one step (16× the previous one for a quartic pattern) instead of hanging CI.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable, Iterator

import pytest

from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.limits import clean, has_words
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.bot.dialog.vocab import vocabulary
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.claims import claims_in, mentions_free_platform
from gpu_advisor.reading.requirements import MAX_INPUT_CHARS, extract
from gpu_advisor.reading.sheet import MAX_CHARS, analyze
from gpu_advisor.text.normalize import normalize

Parse = Callable[[str], object]

_FACTOR = 50.0
_FLOOR_S = 0.25
_FIRST_SIZE = 64
_ORDINARY_CHAT = (
    "我想部署一个13B的聊天机器人，并发 8 个用户，预算每月一万元，上下文 8k。 serve llama 3 8b at 20 qps. "
)
_ORDINARY_SHEET = "GPU：8 × A100 80G SXM\nCPU：2 × EPYC 7763\n内存：1TB DDR4\n网络：2 × 200Gb IB\n"

_WHITESPACE = {
    "spaces": " ",
    "tabs": "\t",
    "newlines": "\n",
    "crlf": "\r\n",
    "ideographic_spaces": "\u3000",
    "no_break_spaces": "\u00a0",
    "zero_width": "\u200b",
    "line_separators": "\u2028",
    "mixed_whitespace": " \t\u3000\u200b\n",
}
# Words a slot pattern starts from, so the run sits where its quantifiers are.
_ANCHORS = ("1", "并发", "上下文", "预算", "batch", "a100", "每秒", "首token")
_RUNS = {
    "digits": "1",
    "cjk_numerals": "一二三四五六七八九十百千万亿",
    "one_cjk_numeral": "一",
    "units": "gb ",
    "k_suffixes": "k",
    "speed_units": "1g",
    "keywords": "并发",
    "concurrency_words": "并发用户 ",
    "decimal_points": "1.",
    "thousands_commas": "1,",
    "minus_signs": "-",
    "counts": "1 x ",
    "cards": "8卡",
    "alternation": "a1 ",
    "tokens": "1 tokens ",
    "context_words": "1 context ",
    "money": "¥1 ",
    "lines_of_digits": "1\n",
    "table_cells": "|1",
    "expanding": "\ufdfa",  # NFKC turns one character into eighteen
}


def _run(prefix: str, unit: str, tail: str = "x") -> Callable[[int], str]:
    return lambda size: prefix + unit * max(1, (size - len(prefix) - 1) // len(unit)) + tail


def _families() -> dict[str, Callable[[int], str]]:
    families = {f"1_{name}": _run("1", unit) for name, unit in _WHITESPACE.items()}
    for anchor in _ANCHORS:
        families[f"{anchor}_spaces"] = _run(anchor, " ")
        families[f"{anchor}_mixed_whitespace"] = _run(anchor, _WHITESPACE["mixed_whitespace"])
    families |= {name: _run("", unit) for name, unit in _RUNS.items()}
    families["nic_speeds"] = _run("网卡 ", "1g")
    families["infiniband_speeds"] = _run("ib ", "1gb")
    families["table_rows"] = _run("", "|1\n")
    families["mixed_everything"] = _run("1", "一 \t并发1.gb k\u3000")
    families["moe_shapes"] = _run("", "30b-a3b 8x7b ")
    families["gpu_like_names"] = _run("", "h300 rtx 5080 ")
    families["near_miss_model_name"] = _run("llama9", "ab")
    families["config_json_nesting"] = _run('{"num_hidden_layers": ', "[", "}")
    families["config_json_braces"] = _run('"architectures" ', "{", "}")
    families["numeral_ranges"] = _run("", "三四十 ")
    families["vague_words"] = _run("", "a couple of hundred about ")
    families["approximately"] = _run("大概", "约 ")
    families["refusals"] = _run("", "不要 no ")
    families["edit_words"] = _run("预算", "再少一半 翻倍 ")
    families["arabic_ranges"] = _run("", "30-40~")
    return families


FAMILIES = _families()


def _best_time(parse: Parse, text: str, tries: int) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        parse(text)
        best = min(best, time.perf_counter() - start)
    return best


def _sizes(limit: int) -> list[int]:
    sizes = [_FIRST_SIZE]
    while sizes[-1] * 2 < limit:
        sizes.append(sizes[-1] * 2)
    return [*sizes, limit]


def _ordinary(sample: str, size: int) -> str:
    return (sample * (size // len(sample) + 1))[:size]


def assert_linear(parse: Parse, make: Callable[[int], str], sample: str, limit: int) -> None:
    """Each doubling of a hostile input stays within budget of an ordinary one that long."""
    for size in _sizes(limit):
        baseline = _best_time(parse, _ordinary(sample, size), tries=3)
        budget = _FACTOR * baseline + _FLOOR_S
        took = _best_time(parse, make(size), tries=1)
        if took > budget:  # one retry absorbs a scheduling hiccup, not a blowup
            took = min(took, _best_time(parse, make(size), tries=1))
        assert took <= budget, f"{size} chars took {took:.3f}s, budget {budget:.3f}s"


@pytest.fixture(scope="module")
def entry_points(kb: Knowledge, dialog: Dialog) -> dict[str, tuple[Parse, str, int]]:
    """Every function that runs patterns over user text: (parse, ordinary sample, max size)."""
    vocab = vocabulary(kb)

    def raw_text_checks(text: str) -> object:
        cleaned, _ = clean(text)
        return has_words(cleaned)

    return {
        "extract": (lambda text: extract(text, vocab), _ORDINARY_CHAT, MAX_INPUT_CHARS),
        "claims": (lambda text: claims_in(normalize(text)), _ORDINARY_CHAT, MAX_INPUT_CHARS),
        "free_platform": (
            lambda text: mentions_free_platform(normalize(text)),
            _ORDINARY_CHAT,
            MAX_INPUT_CHARS,
        ),
        "dialog_clean": (raw_text_checks, _ORDINARY_CHAT, MAX_INPUT_CHARS),
        "dialog_clean_sheet": (lambda text: raw_text_checks("/analyze " + text), _ORDINARY_SHEET, MAX_CHARS),
        "dialog_turn": (
            lambda text: dialog.handle(ConversationState(), text),
            _ORDINARY_CHAT,
            MAX_INPUT_CHARS,
        ),
        "sheet": (lambda text: analyze(text, kb), _ORDINARY_SHEET, MAX_CHARS),
    }


ENTRY_POINTS = (
    "extract",
    "claims",
    "free_platform",
    "dialog_clean",
    "dialog_clean_sheet",
    "dialog_turn",
    "sheet",
)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_hostile_input_parses_in_linear_time(
    entry_points: dict[str, tuple[Parse, str, int]], entry: str, family: str
) -> None:
    parse, sample, limit = entry_points[entry]
    assert_linear(parse, FAMILIES[family], sample, limit)


def test_digit_then_450_spaces_reads_as_fast_as_an_ordinary_message(kb: Knowledge) -> None:
    """The reported case, reached by doubling: 43.8 s at 450 spaces before the fix (issue 14)."""
    vocab = vocabulary(kb)
    assert_linear(lambda text: extract(text, vocab), _run("1", " "), _ORDINARY_CHAT, limit=1 + 450 + 1)


def test_a_turn_with_lone_surrogates_replies_in_encodable_text(dialog: Dialog) -> None:
    for text in ("预算\ud800一万", "qwen3\ud800-32b 并发16", "\udfff", "llama\udc00-9-13b"):
        reply, _ = dialog.handle(ConversationState(), text)
        assert reply.model_dump_json().encode("utf-8")


# -- the slot patterns themselves, without the normaliser -----------------------------
#
# The normaliser keeps whitespace runs to one character, but the patterns must not rely
# on it alone: their adjacent ``\s*`` are possessive (``\s*+``), so a run is consumed
# once. Every compiled pattern of these modules is checked on raw runs. Patterns that
# begin with ``\s`` are left out: they are matched at one position (``.match``), where a
# leading run is scanned once; under ``finditer`` they would restart inside the run.

_SLOT_MODULES = (
    "traffic",
    "lengths",
    "size",
    "training",
    "schedule",
    "money",
    "hardware",
    "lexicon",
    "shapes",
    "vocabulary",
    "loose",
    "edits",
    "exclusions",
    "choices",
)
_RAW_ANCHORS = (
    "1",
    "16 个",
    "并发",
    "上下文",
    "预算",
    "每月",
    "batch",
    "8k",
    "首token",
    "qps",
    "1 tokens",
    "三四",
    "大概",
    "about",
    "不要",
    "30-",
    "日活",
)
_RAW_RUNS = (" ", " \t", "\n", "\u3000")
_RAW_LIMIT = 1024


def _patterns(name: str, value: object) -> Iterator[tuple[str, re.Pattern[str]]]:
    if isinstance(value, re.Pattern):
        yield name, value
    elif isinstance(value, tuple):
        for index, item in enumerate(value):
            yield from _patterns(f"{name}[{index}]", item)


def _slot_patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    for module_name in _SLOT_MODULES:
        module = importlib.import_module(f"gpu_advisor.reading.requirements.{module_name}")
        for name, value in vars(module).items():
            found |= dict(_patterns(f"{module_name}.{name}", value))
    return {name: p for name, p in found.items() if not p.pattern.startswith(r"\s")}


SLOT_PATTERNS = _slot_patterns()


@pytest.mark.parametrize("name", sorted(SLOT_PATTERNS))
def test_slot_pattern_is_linear_on_raw_whitespace_runs(name: str) -> None:
    pattern = SLOT_PATTERNS[name]

    def scan(text: str) -> object:
        return list(pattern.finditer(text))

    for anchor in _RAW_ANCHORS:
        for unit in _RAW_RUNS:
            assert_linear(scan, _run(anchor, unit), _ORDINARY_CHAT, _RAW_LIMIT)


# -- ideographic spaces (issue 40: 6.5x the time for 4x the length was reported) --------
#
# U+3000 is what a Chinese IME types for a space; NFKC folds it to " ", after which the
# text reads as space-separated words. Four times the text must cost about four times
# the time: the bound of 8 leaves room for a loaded machine and fails a quadratic step
# (16x). Each size's time is the best of several runs, so a scheduling hiccup is not read
# as growth.
_IDEOGRAPHIC_SPACED = {
    "letters": "a\u3000",
    "digits": "1\u3000",
    "han": "请\u3000",
    "keywords": "并发\u300016\u3000预算\u3000",
    "prices": "4090\u3000¥1.6/卡时\u3000",
}
_LINEAR_RATIO_BOUND = 8.0


def _growth(parse: Parse, unit: str, size: int) -> float:
    text = (unit * (4 * size // len(unit) + 1))[: 4 * size]
    return _best_time(parse, text, tries=5) / _best_time(parse, text[:size], tries=5)


@pytest.mark.parametrize("shape", sorted(_IDEOGRAPHIC_SPACED))
def test_ideographic_space_spaced_text_normalises_in_linear_time(shape: str) -> None:
    growth = _growth(normalize, _IDEOGRAPHIC_SPACED[shape], 16_000)
    assert growth < _LINEAR_RATIO_BOUND, f"4x the text took {growth:.1f}x the time"


@pytest.mark.parametrize("shape", sorted(_IDEOGRAPHIC_SPACED))
def test_an_ideographic_space_spaced_turn_takes_linear_time(dialog: Dialog, shape: str) -> None:
    def turn(text: str) -> object:
        return dialog.handle(ConversationState(), text)

    growth = _growth(turn, _IDEOGRAPHIC_SPACED[shape], MAX_INPUT_CHARS // 4)
    assert growth < _LINEAR_RATIO_BOUND, f"4x the text took {growth:.1f}x the time"
