"""The light job families' held-out error: every row's estimate against its published figure.

    python bench/light_jobs_holdout.py

The constants are fitted when the engine runs (``engine/jobs/speech.py``, ``embedding.py``,
``vision.py``), each on the rows its YAML marks ``fit``; the rows marked ``holdout`` were
split off before any fitting and are only predicted here. Prints each row's signed error,
then per family the held-out median absolute error and the share within ±25 %.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpu_advisor import knowledge
from gpu_advisor.engine.jobs import embedding, speech, vision
from gpu_advisor.engine.jobs.speeds import JobKnowledge, Measurement, error_summary, holdout_errors
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs

Predict = Callable[[JobKnowledge, Knowledge, Measurement], float]


def report(
    name: str, rows: Sequence[Measurement], predict: Predict, jobs: JobKnowledge, kb: Knowledge
) -> None:
    print(f"\n{name}")
    for r in rows:
        estimate = predict(jobs, kb, r)
        print(
            f"  {r.split:7} {r.id:28} {r.gpu:14} measured {r.value:12,.1f}  estimate {estimate:12,.1f}"
            f"  {estimate / r.value - 1:+7.1%}"
        )
    median, share = error_summary(holdout_errors(rows, lambda r: predict(jobs, kb, r)))
    held = sum(r.split == "holdout" for r in rows)
    print(f"  held out: {held} rows, median |error| {median:.1%}, within ±25 %: {share:.0%}")


def main() -> None:
    kb, jobs = knowledge.load(), load_jobs()
    report("speech (x real time)", jobs.speech.measurements, speech.predict_row, jobs, kb)
    report("embedding (tokens/s)", jobs.embedding.measurements, embedding.predict_row, jobs, kb)
    report("vision (images/s)", jobs.vision.measurements, vision.predict_row, jobs, kb)


if __name__ == "__main__":
    main()
