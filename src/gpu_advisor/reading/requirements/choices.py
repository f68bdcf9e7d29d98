"""Slots chosen from a closed list by keyword: task, method, precision, and "skip".

Their words hold no quantities, so they only *note* what they saw and claim nothing
(except "kv cache fp8" and "8bit adam", whose precision words must not reach the weight
dtype). Task depends on what else was said: a message with both a training word and a
serving word is "both" (先微调再部署), and a fine-tuning method with no task word at all
(用QLoRA跑) implies training.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.lexicon import (
    INFER,
    KV_CACHE,
    METHODS,
    OPTIMIZER_BITS,
    PRETRAIN,
    RUN_MODEL,
    SERVING_CONTEXT,
    SKIP,
    TRAIN,
    WEIGHT_DTYPES,
)
from gpu_advisor.reading.requirements.scan import Scan

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
    """The first method word in table order; QLoRA is listed before LoRA so it wins.

    Pretraining ("预训练", "pretrain from scratch") updates every weight, so with no
    method word it is full training, and the ``pretrain`` slot says so.
    """
    pretraining = next(scan.matches(PRETRAIN), None) is not None
    if pretraining:  # from scratch: never LoRA/QLoRA, never called fine-tuning (engine.plan_checks)
        scan.put("pretrain", True)
    for pattern, method in METHODS:
        if _noted(scan, pattern):
            scan.put("method", method)
            return
    if pretraining:
        scan.put("method", "full")


_LOAD_SLOTS = ("concurrency", "qps", "ttft_ms_max", "ttft_ms_p99")


def read_task_from_context(scan: Scan) -> None:
    """No task word, but an API, a 小程序, a support bot, "run it", or a load: serving.

    The task is marked ``implied`` so the dialog only fills an empty task with it.
    """
    if "task" in scan.slots:
        return
    named = any(name in scan.slots for name in ("model", "params_b", "hf_config"))
    if (
        any(name in scan.slots for name in _LOAD_SLOTS)
        or _noted(scan, SERVING_CONTEXT)
        or (named and _noted(scan, RUN_MODEL))
    ):
        scan.put("task", "infer")
        scan.implied.append("task")


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
