"""The speed a user states for their own job, worked through and set beside the engine's.

"每张 8 秒，一天能出多少张", "a clip takes 10 minutes", "RTF 0.1, how long for 1,000 hours",
"一个 epoch 要 20 分钟": the reading keeps these figures as job slots (``s_per_image``,
``minutes_per_clip``, ``rtf``, ``epoch_minutes``, ``reading/requirements/job_units.py``).
They are the user's own measurement, so the arithmetic they ask for is done on *their*
number — images a day = 86,400 ÷ seconds an image; clips a day = 1,440 ÷ minutes a clip;
hours for a backlog = hours of audio × RTF; a run = epochs × minutes an epoch — and the
engine's estimate for the same card follows, so a gap between the two is seen, not hidden.
"""

from __future__ import annotations

from gpu_advisor import locales
from gpu_advisor.bot.dialog.job_request import HeldJob
from gpu_advisor.engine.jobs.plan import JobOption
from gpu_advisor.engine.jobs.request import JobRequest
from gpu_advisor.locales.numbers import number

SECONDS_A_DAY = 86_400
MINUTES_A_DAY = 1_440
# A time per unit stated ("6 秒一张", "3 分钟一段"): its template argument and the units of time in a day.
_PER_DAY = {"s_per_image": ("s", SECONDS_A_DAY), "minutes_per_clip": ("m", MINUTES_A_DAY)}


def rate_lines(lang: str, job: HeldJob, request: JobRequest, option: JobOption | None, gpu: str) -> list[str]:
    """One line per speed the user stated: their figure's arithmetic, then the engine's for ``gpu``
    (the card ``option`` runs on) where the engine sized one."""
    metrics = {m.id: m.value for m in option.metrics} if option is not None else {}
    out: list[str] = []
    for slot, value in job.slots.items():
        if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
            continue
        words = _line(lang, slot, float(value), job, request, option, metrics, gpu)
        if words:
            out.append(words)
    return out


def _line(
    lang: str,
    slot: str,
    value: float,
    job: HeldJob,
    request: JobRequest,
    option: JobOption | None,
    metrics: dict[str, float],
    gpu: str,
) -> str | None:
    if slot in _PER_DAY:  # a time per unit said back, with the units a day it makes
        name, a_day = _PER_DAY[slot]
        said = locales.t(
            lang, f"jobchat.rate.{slot}", **{name: _n(lang, value)}, per_day=_n(lang, a_day / value)
        )
        est = metrics.get(slot)
        if est:
            said += locales.t(
                lang,
                f"jobchat.rate_est.{slot}",
                gpu=gpu,
                **{name: _n(lang, est)},
                per_day=_n(lang, a_day / est),
            )
        return said
    if slot == "rtf":
        return _rtf(lang, value, job, metrics.get("rtf"), gpu)
    if slot == "epoch_minutes":
        epochs = getattr(request, "epochs", None)
        if not isinstance(epochs, int):
            return None
        said = locales.t(
            lang,
            "jobchat.rate.epoch_minutes",
            m=_n(lang, value),
            epochs=epochs,
            hours=_n(lang, epochs * value / 60),
        )
        hours = option.job_hours if option is not None else None
        if hours:
            said += locales.t(
                lang,
                "jobchat.rate_est.epoch_minutes",
                gpu=gpu,
                m=_n(lang, hours * 60 / epochs),
                hours=_n(lang, hours),
            )
        return said
    return None


def _rtf(lang: str, rtf: float, job: HeldJob, est: float | None, gpu: str) -> str:
    """Hours for the backlog = hours of audio × RTF (one card); without a backlog, one hour's minutes."""
    audio = job.slots.get("audio_hours")
    if isinstance(audio, int | float) and not isinstance(audio, bool) and audio > 0:
        said = locales.t(
            lang,
            "jobchat.rate.rtf_backlog",
            rtf=_n(lang, rtf),
            audio=_n(lang, audio),
            hours=_n(lang, audio * rtf),
        )
        if est:
            said += locales.t(
                lang, "jobchat.rate_est.rtf_backlog", gpu=gpu, rtf=_n(lang, est), hours=_n(lang, audio * est)
            )
        return said
    said = locales.t(
        lang, "jobchat.rate.rtf", rtf=_n(lang, rtf), minutes=_n(lang, 60 * rtf), x=_n(lang, 1 / rtf)
    )
    if est:
        said += locales.t(
            lang, "jobchat.rate_est.rtf", gpu=gpu, rtf=_n(lang, est), minutes=_n(lang, 60 * est)
        )
    return said


def _n(lang: str, value: float) -> str:
    """A figure as people read it: three decimals below one (RTF 0.041), two below 100, none above."""
    return number(lang, value, "0.###" if value < 1 else "#,##0.##" if value < 100 else "#,##0")
