"""From pasted text to lines and segments the field readers can match.

A sheet arrives as bullets ("• 内存：1TB DDR5"), ``key: value`` lists, markdown tables,
tab-separated spreadsheet rows or one comma-separated line ("8×A100 80G PCIe, 2×EPYC
7763, 1TB, 2×25GbE"). Each line keeps its original text (for ``unparsed_lines``), an
optional key and its value split into segments. Every segment carries two forms:

- ``raw``: NFKC-normalised as written (full-width letters, digits and punctuation folded
  to ASCII), for the ``*_raw`` fields;
- ``text``: what the readers match: ``raw`` with traditional characters of the key
  words mapped to simplified ones (``text.hanzi``, the table chat uses too),
  lower-cased, Chinese (``text.numbers``) and English number words turned into digits ("双路" → "2路",
  "八卡" → "8卡", "dual" → "2 x") and every count written
  as "N x " ("8×A100", "2x25GbE", "4 * 3.84TB" → "8 x a100", "2 x 25gbe", "4 x 3.84tb").

The readers' patterns must stay linear in the length of what anyone pastes, so before
they look, each line's runs of horizontal whitespace become one space (one tab if the
run held a tab: tabs separate spreadsheet cells), and a run of one repeated character is
cut to :data:`text.normalize.MAX_REPEAT`. Lines are kept as lines: they are what the readers key on.
Lone surrogates (half a UTF-16 pair) become U+FFFD in the whole text, so the lines we
echo back in ``unparsed_lines`` can always be encoded.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from gpu_advisor.text.hanzi import SURROGATE, simplified, without_control
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.normalize import cap_repeats
from gpu_advisor.text.numbers import chinese_value

MAX_CHARS = 20_000

_MEASURE = r"(?:卡|张|块|路|口|端口|颗|个|台|片|根|条|u\b)"
_CN_COUNT = lazy(rf"([一二两三四五六七八九十]{{1,3}})(?=\s*{_MEASURE})")
_PAIR = lazy(rf"(?:双|两)(?=\s*{_MEASURE})")
_ONE = lazy(rf"单(?=\s*{_MEASURE})")
_PAIR_BEFORE_WORD = lazy(r"(?:双|两)\s*(?=[a-z0-9])")
_EN_COUNTS = (
    (lazy(r"\b(?:dual|twin|two)[\s-]+"), "2 x "),
    (lazy(r"\bquad[\s-]+|\bfour\s+"), "4 x "),
    (lazy(r"\beight\s+"), "8 x "),
    (lazy(r"\bsingle[\s-]+|\bone\s+(?=socket|port|cpu|gpu|card|nic)"), "1 x "),
)
_TIMES = lazy(r"(?<![a-z0-9.])(\d+)\s*[x×✕*]\s*")
_TIMES_BEFORE = lazy(r"\s*[×✕*]\s*(?=\d)")
_LANES = lazy(r"pci-?e?\s*(?:express\s*)?(?:(?:gen\s*\d|\d\.0)\s*[x×]\s*\d+|[x×]\s*16\b)")
_SPACES = lazy(r"[ \u00a0\u3000]+")
_HORIZONTAL_RUN = lazy(r"[^\S\n]{2,}+")
_BULLET = lazy(r"^\s*(?:[-*+•·●○▪■◦‣⁃>]+|\d{1,2}[.)、](?!\d)|[a-z][.)](?=\s)|[①-⑳])\s*")
_SPLIT = lazy(r"[;|、\t]|,(?!(?<=\d,)\d{3}(?!\d))")
_TABLE_RULE = lazy(r"^\s*:?-{2,}:?\s*$")
_RULE_LINE = lazy(r"^[\s\-=*_#~.·•:|]*$")
_HEADING_WORDS = lazy(
    r"配置|规格|清单|参数|方案|示例|说明|spec|config|overview|summary|hardware|硬件|服务器|server|节点|node"
)
_MAX_KEY_CHARS = 24
_COUNTED = lazy(r"\d\s*[x×*]|[x×*]\s*\d")
_MAX_HEADING_CHARS = 40


@dataclass(frozen=True)
class Segment:
    raw: str
    text: str


@dataclass(frozen=True)
class Line:
    original: str
    key: str | None
    segments: tuple[Segment, ...]
    heading: bool


def display(s: str) -> str:
    """NFKC form with markdown emphasis, repeated spaces and long character runs removed."""
    s = _HORIZONTAL_RUN.sub(_one_space, unicodedata.normalize("NFKC", s))
    s = cap_repeats(s).replace("**", "").replace("__", "").replace("`", "")
    return _SPACES.sub(" ", s).strip()


def _one_space(run: re.Match[str]) -> str:
    return "\t" if "\t" in run.group() else " "


def _count(numeral: re.Match[str]) -> str:
    """八卡 → 8卡, 十六路 → 16路, by the chat's number reader; a non-number stays as written."""
    value = chinese_value(numeral.group(1))
    return numeral.group(1) if value is None else str(int(value))


def fold(s: str) -> str:
    """The matching form of an already ``display``-ed string."""
    s = simplified(s).lower()
    s = s.replace("万兆", "10gbe ").replace("千兆", "1gbe ")
    s = _CN_COUNT.sub(_count, s)
    s = _PAIR.sub("2", s)
    s = _ONE.sub("1", s)
    s = _PAIR_BEFORE_WORD.sub("2 x ", s)
    for pattern, digits in _EN_COUNTS:
        s = pattern.sub(digits, s)
    s = _LANES.sub("pcie", s)
    s = _TIMES_BEFORE.sub(" x ", s)
    s = _TIMES.sub(r"\1 x ", s)
    return _SPACES.sub(" ", s).strip()


def _segments(value: str) -> tuple[Segment, ...]:
    parts = (p.strip() for p in _SPLIT.split(value))
    return tuple(Segment(raw=p, text=fold(p)) for p in parts if p and not _RULE_LINE.match(p))


def _key_value(body: str) -> tuple[str | None, str]:
    for sep in (":", "="):
        key, found, value = body.partition(sep)
        key = key.strip()
        if found and key and len(key) <= _MAX_KEY_CHARS and not _COUNTED.search(key):
            return key, value.strip()
    return None, body


def _cells(body: str) -> list[str]:
    return [c.strip() for c in body.strip().strip("|").split("|")]


def _is_heading_text(folded: str) -> bool:
    if folded.startswith("#") or _RULE_LINE.match(folded):
        return True
    short = len(folded) <= _MAX_HEADING_CHARS and not re.search(r"\d", folded)
    return short and bool(_HEADING_WORDS.search(folded))


def _table_line(original: str, body: str, header: bool) -> Line:
    cells = [c for c in _cells(body) if c]
    if header or all(_TABLE_RULE.match(c) for c in cells) or not cells:
        return Line(original, None, (), heading=True)
    first = cells[0].rstrip(":").strip()
    if len(cells) >= 2 and len(first) <= _MAX_KEY_CHARS and not re.search(r"\d", first):
        return Line(original, fold(first), _segments("\t".join(cells[1:])), heading=False)
    return Line(original, None, _segments("\t".join(cells)), heading=False)


def _plain_line(original: str, body: str) -> Line:
    if "\t" in body:
        cells = [c for c in body.split("\t") if c.strip()]
        if len(cells) >= 2 and len(cells[0]) <= _MAX_KEY_CHARS:
            return Line(original, fold(cells[0].rstrip(":")), _segments("\t".join(cells[1:])), False)
    key, value = _key_value(body)
    if key is not None and not value:
        return Line(original, fold(key), (), heading=True)
    if key is None and _is_heading_text(fold(body)):
        return Line(original, None, (), heading=True)
    return Line(original, fold(key) if key else None, _segments(value), heading=False)


def _is_table(body: str) -> bool:
    return body.startswith("|") or body.count("|") >= 2


def _next_bodies(bodies: list[str]) -> list[str]:
    """For each line, the next non-blank body after it ("" at the end), in one backward pass."""
    following, after = "", [""] * len(bodies)
    for i in range(len(bodies) - 1, -1, -1):
        after[i] = following
        following = bodies[i] or following
    return after


def split_lines(text: str) -> list[Line]:
    """Non-blank lines of ``text`` (already capped at MAX_CHARS), each with key and segments."""
    raw_lines = [ln.strip() for ln in SURROGATE.sub("\ufffd", without_control(text)).splitlines()]
    bodies = [_BULLET.sub("", display(ln)) for ln in raw_lines]
    after = _next_bodies(bodies)
    out: list[Line] = []
    for original, body, following in zip(raw_lines, bodies, after, strict=True):
        if not body:
            if original:
                out.append(Line(original, None, (), heading=True))
            continue
        if _is_table(body):
            header = _is_table(following) and all(_TABLE_RULE.match(c) for c in _cells(following) if c)
            out.append(_table_line(original, body, header))
        else:
            out.append(_plain_line(original, body))
    return out
