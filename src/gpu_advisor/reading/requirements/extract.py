"""The orchestrator: normalize one message, run the slot readers in order, collect.

Order is the design. Each reader claims the characters it understood, so a reader that
runs earlier protects its numbers from the readers after it:

0. a pasted config.json, blanked out so its numbers are not read as anything else; then,
   when the dialog says which slot it just asked about, a bare answer to it ("1亿", "5");
1. model names, then mixture-of-experts shapes (30B-A3B, 8x7B), then always-on phrases,
   then refused cards ("不要 3090", "no consumer cards", "只用国产卡"), then GPU names
   with their counts: names and "7×24" hold numbers that are not
   quantities (Mixtral 8x7B, A100 80G, 24/7);
2. keyword choices (method, precision, task, skip), which only note what they saw;
3. latency, request lengths and context windows with their keywords;
4. money, which takes 每月/一个月/per hour with it so durations cannot;
5. loose amounts first (daily actives, "三四十个人", "两三天"), then exact loads
   (concurrency, QPS), token counts, durations, parameter sizes, training knobs;
6. last, a bare "8k" that nothing else wanted, which is a context length.

Input longer than :data:`MAX_INPUT_CHARS` is cut before parsing; no requirement message
is that long, and the cap bounds the work a hostile message can cause.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from gpu_advisor.reading.jobs import job_of
from gpu_advisor.reading.requirements.answer import read_answer
from gpu_advisor.reading.requirements.choices import (
    read_method,
    read_precision,
    read_skip,
    read_task,
    read_task_from_context,
)
from gpu_advisor.reading.requirements.config_paste import MAX_CONFIG_CHARS, find_config, parse_config
from gpu_advisor.reading.requirements.deadline import read_deadline
from gpu_advisor.reading.requirements.edits import (
    drop_unused_replace,
    read_corrections,
    read_edits,
    read_negated_values,
)
from gpu_advisor.reading.requirements.exclusions import read_exclusions
from gpu_advisor.reading.requirements.hardware import read_card_classes, read_gpus, read_models
from gpu_advisor.reading.requirements.job_units import read_job_units
from gpu_advisor.reading.requirements.lengths import read_bare_k, read_context, read_request_lengths
from gpu_advisor.reading.requirements.loose import (
    read_daily_requests,
    read_daily_users,
    read_loose_duration,
    read_loose_load,
)
from gpu_advisor.reading.requirements.money import read_budget, read_current_cost, read_loose_budget
from gpu_advisor.reading.requirements.people import read_at_once, read_people
from gpu_advisor.reading.requirements.result import Extraction
from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.reading.requirements.schedule import read_always_on, read_duration
from gpu_advisor.reading.requirements.shapes import read_shapes
from gpu_advisor.reading.requirements.size import read_params, read_train_samples, read_train_tokens
from gpu_advisor.reading.requirements.traffic import read_load, read_tpot, read_ttft
from gpu_advisor.reading.requirements.training import read_training_knobs
from gpu_advisor.reading.requirements.vocabulary import Vocabulary
from gpu_advisor.text.normalize import Lang, language_of, normalize

MAX_INPUT_CHARS = 4000
"""Characters of a message that are parsed; the rest is ignored."""


def extract(
    text: str,
    vocab: Vocabulary,
    expecting: str | None = None,
    current_lang: Lang | None = None,
    today: date | None = None,
) -> Extraction:
    """Everything a free-text message says about the workload, deterministically.

    ``expecting`` is the slot the dialog just asked about (a Workload field name such as
    ``train_tokens``, ``concurrency``, ``method``): a bare answer ("1亿", "5", "几十人",
    "full") then reads as that slot, and wins over what the same words would mean in a
    first message. ``current_lang`` is the conversation's language, which sticks unless
    the message is clearly in the other one (``text.normalize.language_of``).
    ``today`` dates the message so a weekday deadline ("周五前", "by Friday") counts its
    hours; without it such a phrase is left unread, and the result depends on the text alone.
    """
    config_span = find_config(text[: MAX_INPUT_CHARS + MAX_CONFIG_CHARS])
    config = parse_config(text[slice(*config_span)]) if config_span else None
    if config_span is not None:
        text = text[: config_span[0]] + " " + text[config_span[1] :]
    clipped = text[:MAX_INPUT_CHARS]
    scan = Scan(source=normalize(clipped), lang=language_of(clipped, current_lang))
    if config_span is not None:
        _read_config(scan, config)
    if expecting is not None:
        read_answer(scan, expecting)
    read_negated_values(scan)  # before every value reader: "不是32b，是14b" keeps 14b
    read_job_units(scan, job_of(scan.source))  # frames, steps, audio hours, codecs: never LLM slots
    read_models(scan, vocab)
    read_shapes(scan, vocab)
    read_always_on(scan)
    read_exclusions(scan, vocab)
    read_gpus(scan, vocab)
    read_card_classes(scan)
    read_precision(scan)
    read_method(scan)
    read_corrections(scan)
    read_task(scan)
    read_skip(scan)
    read_edits(scan)
    read_deadline(scan, today)  # before durations: "一周内" is a deadline, not a rental period
    read_ttft(scan)
    read_tpot(scan)  # before lengths and token counts: "每秒至少 30 个 token" is a speed
    read_request_lengths(scan)
    read_context(scan)
    read_current_cost(scan)  # before budgets and durations: what is paid now is neither
    read_loose_budget(scan)
    read_budget(scan)
    read_at_once(scan)  # before daily users and loose loads: "500 人，同时在线 50" is 50
    read_daily_users(scan)
    read_daily_requests(scan)
    read_loose_load(scan)
    read_people(scan)  # after ranges of people ("三四十 个人用"), which hold its words
    read_loose_duration(scan)
    read_load(scan)
    read_train_tokens(scan)
    read_train_samples(scan)  # after token counts: "2B tokens, 5 万条" keeps the tokens
    read_duration(scan)
    read_params(scan)
    read_training_knobs(scan)
    read_bare_k(scan)
    if expecting is None:  # an answer to a question is about that question only
        read_task_from_context(scan)
    drop_unused_replace(scan)
    return scan.result()


def _read_config(scan: Scan, config: dict[str, Any] | None) -> None:
    """A pasted config.json is the model: the ``hf_config`` slot, or an issue saying why not."""
    if config is None:
        scan.report("model_config_unreadable", "hf_config", limit=MAX_CONFIG_CHARS)
        return
    scan.put("hf_config", config)
    scan.report("model_config_read", "hf_config")
