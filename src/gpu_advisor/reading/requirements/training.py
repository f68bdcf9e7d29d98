"""Training knobs people state as "name number": batch size and LoRA rank.

"batch size 8", "bs=4", "批大小16"; "rank 16", "r=64", "秩8", "lora r 16". A bare "r"
is a rank only with "=" or right after "lora", since a lone r is too common otherwise.
"""

from __future__ import annotations

from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.numbers import NUMBER, SIGN, signed_value

_VALUE = (
    rf"\s*+(?:of|is|:|=|为|是|设为|设成|取|用)?\s*+{SIGN}(?P<num>{NUMBER})(?![\d.]|\s*+(?:b|k|m|x)(?![a-z]))"
)
_KNOBS = (
    (
        "batch_size",
        lazy(
            rf"(?:(?<![a-z])(?:micro[\s_-]*)?(?:batch[\s_-]*size|batch|bs|mbs)(?![a-z])|批大小|批次大小|批量大小|批量){_VALUE}"
        ),
    ),
    (
        "lora_rank",
        lazy(rf"(?:(?<![a-z])(?:lora[\s_-]*)?rank(?![a-z])|秩|(?<![a-z])lora[\s_-]*r(?![a-z])){_VALUE}"),
    ),
    ("lora_rank", lazy(rf"(?<![a-z])r\s*+=\s*+{SIGN}(?P<num>{NUMBER})")),
)


def read_training_knobs(scan: Scan) -> None:
    for name, pattern in _KNOBS:
        for match in scan.matches(pattern):
            scan.put_number(name, signed_value(match), match.span())
