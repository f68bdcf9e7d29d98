"""The orchestrator: normalize one message, run the slot readers in order, collect.

Order is the design. Each reader claims the characters it understood, so a reader that
runs earlier protects its numbers from the readers after it:

1. model names, then always-on phrases, then GPU names with their counts: names and
   "7×24" hold numbers that are not quantities (Mixtral 8x7B, A100 80G, 24/7);
2. keyword choices (method, precision, task, skip), which only note what they saw;
3. latency, request lengths and context windows with their keywords;
4. money, which takes 每月/一个月/per hour with it so durations cannot;
5. loads (concurrency, QPS), token counts, durations, parameter sizes, training knobs;
6. last, a bare "8k" that nothing else wanted, which is a context length.

Input longer than :data:`MAX_INPUT_CHARS` is cut before parsing; no requirement message
is that long, and the cap bounds the work a hostile message can cause.
"""

from __future__ import annotations

from bot.understand.choices import read_method, read_precision, read_skip, read_task
from bot.understand.hardware import read_gpus, read_models
from bot.understand.lengths import read_bare_k, read_context, read_request_lengths
from bot.understand.money import read_budget
from bot.understand.normalize import language_of, normalize
from bot.understand.result import Extraction
from bot.understand.scan import Scan
from bot.understand.schedule import read_always_on, read_duration
from bot.understand.size import read_params, read_train_tokens
from bot.understand.traffic import read_load, read_ttft
from bot.understand.training import read_training_knobs
from bot.understand.vocabulary import Vocabulary

MAX_INPUT_CHARS = 4000
"""Characters of a message that are parsed; the rest is ignored."""


def extract(text: str, vocab: Vocabulary) -> Extraction:
    """Everything a free-text message says about the workload, deterministically."""
    clipped = text[:MAX_INPUT_CHARS]
    scan = Scan(source=normalize(clipped), lang=language_of(clipped))
    read_models(scan, vocab)
    read_always_on(scan)
    read_gpus(scan, vocab)
    read_precision(scan)
    read_method(scan)
    read_task(scan)
    read_skip(scan)
    read_ttft(scan)
    read_request_lengths(scan)
    read_context(scan)
    read_budget(scan)
    read_load(scan)
    read_train_tokens(scan)
    read_duration(scan)
    read_params(scan)
    read_training_knobs(scan)
    read_bare_k(scan)
    return scan.result()
