"""Patterns are compiled once, lazily, in one place (``text.lazy``), and the kept code is exact.

``ask`` spent most of its start-up compiling the readers' patterns (issue 41). A pattern
is now compiled on first use, and its generated code is kept beside the bytecode so the
next process builds it without parsing. A kept pattern must match exactly what
``re.compile`` would, and every pattern a reader builds must be the same text from one
process to the next (else the cache misses every time and grows).
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from gpu_advisor.text.lazy import LazyPattern, compiled, lazy

SAMPLES = [
    (r"(?P<w>\d{3,4})\s*[x×*]\s*(?P<h>\d{3,4})", 0, "SDXL 1024x1024，30 步"),
    (r"(?<![a-z])(?:h\.?26[45]|hevc|av1)(?![a-z\d])", 0, "ffmpeg h.265 / AV1 / hevc"),
    (r"/analyze(?:@\w{1,64})?(?:\s|$)", re.IGNORECASE, "/ANALYZE@bot 8x H100"),
    (r"(?:每|按)\s*+分钟|per\s+minute", 0, "按分钟计费 per minute"),
]


@pytest.mark.parametrize(("source", "flags", "text"), SAMPLES)
def test_a_kept_pattern_matches_exactly_what_re_compile_does(source: str, flags: int, text: str) -> None:
    ours, theirs = compiled(source, flags), re.compile(source, flags)
    assert (ours.pattern, ours.flags, ours.groups, ours.groupindex) == (
        theirs.pattern,
        theirs.flags,
        theirs.groups,
        theirs.groupindex,
    )
    assert [m.groupdict() or m.span() for m in ours.finditer(text)] == [
        m.groupdict() or m.span() for m in theirs.finditer(text)
    ]


def test_a_lazy_pattern_is_compiled_on_first_use_only() -> None:
    pattern = lazy(r"\d+帧")
    assert isinstance(pattern, LazyPattern) and pattern._compiled is None
    assert pattern.search("81帧") is not None
    assert pattern._compiled is not None


def test_the_vocabularys_patterns_are_the_same_text_in_every_process() -> None:
    """Built from sets, they once followed the hash seed: a new cache entry on every start."""
    script = (
        "from gpu_advisor import knowledge; from gpu_advisor.bot.dialog.vocab import vocabulary;"
        "import hashlib; v = vocabulary(knowledge.load());"
        "print(hashlib.sha256((v.near_miss.pattern + v.gpus._pattern.pattern).encode()).hexdigest())"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(seen) == 1
