"""Slots chosen from a closed list by keyword: task, method, precision, and "skip".

Their words hold no quantities, so they only *note* what they saw and claim nothing
(except "kv cache fp8" and "8bit adam", whose precision words must not reach the weight
dtype). Task depends on what else was said: a message with both a training word and a
serving word is "both" (先微调再部署), and a fine-tuning method with no task word at all
(用QLoRA跑) implies training.
"""

from __future__ import annotations

import re

from reading.requirements.lexicon import INFER, KV_CACHE, METHODS, OPTIMIZER_BITS, SKIP, TRAIN, WEIGHT_DTYPES
from reading.requirements.scan import Scan

# Quantization formats name their bit width already: int4 beside AWQ adds nothing.
_FORMATS = frozenset({"awq", "gptq", "q4_k_m", "q8_0", "nf4"})
_BIT_WIDTHS = frozenset({"int4", "int8"})


def read_task(scan: Scan) -> None:
    train = _noted(scan, TRAIN)
    infer = _noted(scan, INFER)
    if train and infer:
        scan.put("task", "both")
    elif train or (not infer and "method" in scan.slots):
        scan.put("task", "train")
    elif infer:
        scan.put("task", "infer")


def read_method(scan: Scan) -> None:
    """The first method word in table order; QLoRA is listed before LoRA so it wins."""
    for pattern, method in METHODS:
        if _noted(scan, pattern):
            scan.put("method", method)
            return


def read_precision(scan: Scan) -> None:
    """KV-cache precision and 8-bit optimizers first, so their words are not weight dtypes."""
    for match in scan.matches(KV_CACHE):
        scan.put("kv_dtype", match.group("a") or match.group("b"))
        scan.claim(*match.span())
    for match in scan.matches(OPTIMIZER_BITS):
        scan.claim(*match.span(), understood=False)
    hits = [
        (match.start(), dtype, match) for pattern, dtype in WEIGHT_DTYPES for match in scan.matches(pattern)
    ]
    if any(dtype in _FORMATS for _, dtype, _ in hits):  # "int4 AWQ" is AWQ, not a conflict
        hits = [hit for hit in hits if hit[1] not in _BIT_WIDTHS]
    for _, dtype, match in sorted(hits, key=lambda hit: hit[0]):
        scan.put("weight_dtype", dtype)
        scan.note(*match.span())


def read_skip(scan: Scan) -> None:
    scan.skip = _noted(scan, SKIP)


def _noted(scan: Scan, pattern: re.Pattern[str]) -> bool:
    """Whether the pattern occurs in unclaimed text; each occurrence is noted as understood."""
    found = False
    for match in scan.matches(pattern):
        scan.note(*match.span())
        found = True
    return found
