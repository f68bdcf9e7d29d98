"""The reading corpus decides the reader: every labelled phrasing is read, intent and job scored.

``tests/corpus/phrasings.jsonl`` holds phrasings people actually type (Simplified,
Traditional, English; each with its source) labelled by ``tests/corpus/LABELS.md``. About
a third of the lines we collected (``"split": "holdout"``, chosen by a hash of the text
before the reader saw them) is scored, never read, while the reader changes. The
``tune`` lines are the released half of an independent set (see ``TUNE_FLOOR``).

First figures on the holdout (163 lines), measured once when ``reading.intent`` was first
complete, before any change looked at those lines (issue 42):

- intent: 158/163 = 96.9 % (the code before it, whose notions can be measured — price,
  compare, capacity, speed, yes/no, cheaper, faster, why, restart, order, myth, concept —
  scored 94/163 = 57.7 % on the same lines);
- job: 162/163 = 99.4 % (the code before it had no job but "train or serve").

Per intent on that first run (precision / recall): buy_vs_rent 1.00/0.75, capacity
1.00/1.00, cheaper 1.00/1.00, compare 1.00/1.00, concept 1.00/1.00, correction 1.00/1.00,
faster 1.00/1.00, fit 0.92/1.00, myth 1.00/0.71, order 1.00/1.00, price 0.95/1.00, quote
0.83/0.83, rent_vs_api 1.00/1.00, sheet 1.00/0.67, sizing 0.96/1.00, small_talk 1.00/1.00,
speed 1.00/1.00, start_over 1.00/1.00, why 1.00/1.00. Per job: embedding 0.89/1.00, every
other job 1.00/1.00 (none 1.00/0.99).

Lines added later were split by the same kind of rule before the reader was run on them,
and their holdout part scored once as it stood:

- 102 phrasings for the weakest intents (quote, concept, speed, capacity, compare, myth,
  sheet, start_over, order, why), collected with their sources after the independent set
  showed how widely people phrase these: 38 held out by ``sha256(text) % 100 < 35``;
  first figure intent 31/38 = 81.6 %, job 35/38 = 92.1 %; after the reader was widened on
  their 64 ``fit`` lines and the ``tune`` lines, 33/38 and 37/38 (two job labels of held
  out lines were set to ``none`` by LABELS.md's rule that a bare "train"/"inference"
  names no job, read from the text alone).
  (The held-out lines were written by the same hand that widened the reader, so the
  figures after the first carry that hand's memory of their wording: the first is the
  clean one.)
- 46 money phrasings of issue 44 (17 held out): first figure intent 11/17, job 17/17;
  15/17 now.

So on the whole holdout (218 lines) the reader scores 206/218 = 94.5 % intent and
216/218 = 99.1 % job: issue 42's 95 % holds on the first 163 lines (158/163, unchanged by
the widening) but not yet on the 55 added later (48/55). The floor guards what is reached.

Third and fourth passes (issue 42 again: 73.8 % on the independent set's kept half showed the
reader heard sentences, not classes):

- 183 phrasings adapted from issue trackers (vLLM, Ollama, ComfyUI, kohya_ss, faster-whisper,
  WhisperLive, ultralytics, Wan2.1, TEI), rental price pages and forum posts, fit verdicts
  above all (撑得住, 带得动, 吃得消, 扛得住, "can X handle"); 60 held out by the hash rule.
  First figure, on the reader as it stood: intent 52/60 = 86.7 % (fit recall 0.77: four
  verdicts read as sizing), job 58/60 = 96.7 %.
- The reader was then widened by word class on the 123 ``fit`` lines and on probes written
  for the purpose (a bearing verb with its potential complement, a trouble asked with 会不会,
  English modals with verdict verbs, any period word with 多少, an output over any span of
  time, agreement tags closing a claim …), never on a held-out line: 56/60 = 93.3 % (fit
  recall 0.95), job unchanged. One change was made after the bulk figures showed myth recall
  fall (an explicit "是真的吗/is it true" is a claim even when the claim is a verdict; it
  holds for all 9 such ``fit``/``tune`` lines): before it the 60 lines stood at 55/60.
- 65 more phrasings after that widening (30 held out): first figure 27/30 = 90.0 % intent,
  28/30 = 93.3 % job; 28/30 intent after the fourth pass's class fixes (job unchanged).

The whole holdout (308 lines) stands at 292/308 = 94.8 % intent and 302/308 = 98.1 % job
(the reader as this pass found it: 283/308 = 91.9 %, fit recall 0.81 -> 0.96, sizing
precision 0.73 -> 0.91); its first 218 lines at 208/218 = 95.4 %.

Leftovers of issue 42 (a verdict asked as a tag, "what's X", a year's or a quarter's price,
money nouns in a comparison, Traditional 繳/租賃/計費): 25 phrasings added after the reader was
widened by class on probes of our own, 10 held out by the hash rule; first figure 7/10 intent,
10/10 job. The whole holdout (318 lines) then stands at 299/318 = 94.0 % intent and 312/318 =
98.1 % job.

Offers and the catalog's cheapest (issue 42): 22 phrasings (an offered price without a currency
sign judged, "你们最便宜的是什么", two cards weighed with 性价比 / CP 值 / "worth it over"), 8 held
out by the hash rule; first figure 6/8 intent, 8/8 job (fit lines 8/14 intent); after the
reader learnt offer words (报价, 开价, 要价, 收我, quoted, charges), a bare amount over a period
("2500一个月", "1200 a month") and a superlative of price as a lookup, 8/8 and 14/14. The
whole holdout (326 lines) then stands at 307/326 = 94.2 % intent and 320/326 = 98.2 % job.

The report (Rasa's ``rasa test nlu`` intent report in shape) is printed with ``-s``.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any, get_args

import pytest

from gpu_advisor.bot.dialog import Dialog
from gpu_advisor.reading.intent import INTENTS
from gpu_advisor.reading.jobs import Job
from gpu_advisor.reading.message import read_message

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "phrasings.jsonl"
JOBS: tuple[str, ...] = get_args(Job)
HOLDOUT_FLOOR = 0.94  # issue 42 asks 95 %: 94.8 % on the whole holdout (95.4 % on its first 218 lines)
FIT_FLOOR = 0.97
TUNE_FLOOR = 0.95
"""The released half of an independent set (written by someone who never saw the code):
69.6 % intent / 94.9 % job on the whole set before the reader was widened; its 140 released
lines 101/140 before, 137/140 = 97.9 % intent and 136/140 = 97.1 % job after (the other
half stays with its author)."""


@cache
def corpus() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line)


def report(pairs: list[tuple[str, str]], title: str) -> str:
    """Precision, recall and F1 per label, and the confusions, as ``rasa test nlu`` prints them."""
    labels = sorted({g for g, _ in pairs} | {p for _, p in pairs})
    right = sum(g == p for g, p in pairs)
    lines = [
        f"{title}: {right}/{len(pairs)} = {right / len(pairs):.1%}",
        f"  {'label':14} prec  recall  f1    n",
    ]
    for label in labels:
        tp = sum(g == label == p for g, p in pairs)
        fp = sum(g != label == p for g, p in pairs)
        fn = sum(p != label == g for g, p in pairs)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        lines.append(f"  {label:14} {prec:4.2f}  {rec:4.2f}  {f1:4.2f}  {tp + fn:3}")
    confusions = Counter((g, p) for g, p in pairs if g != p)
    lines += [f"  confused {g} -> {p}: {n}" for (g, p), n in confusions.most_common()]
    return "\n".join(lines)


def read_all(dialog: Dialog, split: str) -> list[tuple[dict[str, Any], str, str]]:
    rows = [row for row in corpus() if row["split"] == split]
    return [(row, *_decided(dialog, row["text"])) for row in rows]


def _decided(dialog: Dialog, text: str) -> tuple[str, str]:
    msg = read_message(text, dialog.vocab)
    return msg.intent, msg.job


def test_every_line_is_labelled_with_the_names_in_labels_md() -> None:
    for row in corpus():
        assert row["intent"] in INTENTS, row
        assert row["job"] in JOBS, row
        assert row["lang"] in ("zh-CN", "zh-TW", "en"), row
        assert row["split"] in ("fit", "holdout", "tune"), row
        assert row["source"] == "written by us" or row["source"].startswith(("adapted from http", "http")), (
            row
        )


def test_the_corpus_covers_every_intent_and_job_in_all_three_scripts() -> None:
    rows = corpus()
    assert len(rows) >= 400
    assert {r["intent"] for r in rows} == set(INTENTS)
    assert {r["job"] for r in rows} == set(JOBS)
    assert {r["lang"] for r in rows} == {"zh-CN", "zh-TW", "en"}
    ours = [r for r in rows if r["split"] != "tune"]  # the released lines' author wrote most of theirs
    assert sum(r["source"] == "written by us" for r in ours) < 0.2 * len(ours)


def test_the_holdout_is_a_fixed_third_of_the_corpus() -> None:
    """The hash rule holds aside about a third of the lines it split (the released
    ``tune`` lines came with their own holdout kept elsewhere, so they are not counted)."""
    split = [r for r in corpus() if r["split"] != "tune"]
    share = sum(r["split"] == "holdout" for r in split) / len(split)
    assert 0.30 <= share <= 0.40


@pytest.mark.parametrize(
    ("split", "floor"), [("fit", FIT_FLOOR), ("tune", TUNE_FLOOR), ("holdout", HOLDOUT_FLOOR)]
)
def test_intent_and_job_score_above_the_floor(dialog: Dialog, split: str, floor: float) -> None:
    read = read_all(dialog, split)
    intents = [(row["intent"], intent) for row, intent, _ in read]
    jobs = [(row["job"], job) for row, _, job in read]
    print("\n" + report(intents, f"intent ({split})") + "\n" + report(jobs, f"job ({split})"))
    assert sum(g == p for g, p in intents) / len(intents) >= floor
    assert sum(g == p for g, p in jobs) / len(jobs) >= floor


@pytest.mark.parametrize(
    "row", [r for r in corpus() if r["split"] == "fit"], ids=lambda r: str(r["text"])[:40]
)
def test_each_fit_line(dialog: Dialog, row: dict[str, Any]) -> None:
    """The lines the reader was built on, one by one (the holdout is only scored in bulk)."""
    intent, job = _decided(dialog, row["text"])
    if (intent, job) != (row["intent"], row["job"]) and row["text"] in KNOWN_MISSES:
        pytest.xfail(KNOWN_MISSES[row["text"]])
    assert (intent, job) == (row["intent"], row["job"])


KNOWN_MISSES = {
    "paraformer 10秒音频1.5秒识别完，GPU上能更快吗": "'能更快吗' asks a speed here, a faster pick elsewhere",
    "N100 iGPU versus an RTX 4060 for Jellyfin transcoding": "an Intel iGPU is not a card the reader names",
    "flex workers per second vs an active worker 24/7, which saves more?": (
        "billed per second against always on: neither is a billing word of the lexicon"
    ),
}
