"""Claims a user repeats from the seed articles' known errors, and free-GPU platforms.

When a request rests on one of those claims ("Adam only doubles memory", "405B Q4 runs
on one H100"), the engine corrects it with the true numbers (``engine.rules.myths``);
here we only recognise the claim in the user's words. The patterns are
``reading.claim_words`` (moved out of the engine, issue 42), anchored on the numbers that
make each claim specific, so ordinary questions do not trigger them. Both readers take the message's
normalised text (``text.normalize``), never the raw text.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.claim_words import CLAIM_WORDS
from gpu_advisor.reading.concepts import fold
from gpu_advisor.text.lazy import lazy

CLAIM_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    claim: tuple(lazy(p) for p in patterns) for claim, patterns in CLAIM_WORDS.items()
}
FREE_PLATFORM = lazy(r"colab|kaggle|(免费|free)\s*(的)?\s*(gpu|算力|平台|显卡|tier)")


def claims_in(low: str) -> list[str]:
    """The myth claims the normalised message repeats (a few more Traditional characters folded)."""
    low = fold(low)
    return [name for name, patterns in CLAIM_PATTERNS.items() if any(p.search(low) for p in patterns)]


def mentions_free_platform(low: str) -> bool:
    return FREE_PLATFORM.search(low) is not None
