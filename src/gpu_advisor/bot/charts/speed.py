"""Speed panel: how fast the pick decodes as more sequences share a replica, or how fast each option trains.

Serving: per-stream tokens/s (left axis, titled) falls slowly with batch while the replica's
total (right axis) climbs, because each decode step streams the weights once for
every sequence in flight until the KV cache reads or the compute ceiling take over
(the model in ``engine.throughput``). The points are the plan's own ``serving_curve``,
computed by the engine for the layout it picked. The dashed line marks the batch the
plan was sized for; the curve ends at the largest batch the card's free memory holds.

Training: one bar of training tokens/s per option, labelled with the time the job
takes where the workload gave a token count.
"""

from __future__ import annotations

from matplotlib.axes import Axes

from gpu_advisor import locales
from gpu_advisor.bot.charts import style
from gpu_advisor.bot.charts.fonts import family
from gpu_advisor.bot.charts.options import row_label, rows, setup_label
from gpu_advisor.engine.results import CurvePoint, Plan

AGGREGATE = "#D55E00"


def draw_speed(ax: Axes, plan: Plan, lang: str) -> None:
    """Decode tokens/s vs batch for a serving pick; training tokens/s per option otherwise."""
    if plan.task == "infer":
        _serving(ax, plan, lang)
    else:
        _training(ax, plan, lang)


def _serving(ax: Axes, plan: Plan, lang: str) -> None:
    pick = plan.recommendation
    if pick is None:
        style.title(ax, locales.t(lang, "chart.title.speed"))
        style.message(ax, locales.t(lang, "chart.no_fit"))
        return
    style.title(ax, locales.t(lang, "chart.title.speed_infer", option=setup_label(pick, lang)))
    points = plan.serving_curve
    if not points:
        style.message(ax, locales.t(lang, "chart.no_speed"))
        return
    style.style_axes(ax)
    batches = [p.batch for p in points]
    per_stream = [p.tokens_per_s_per_stream for p in points]
    totals = [p.tokens_per_s_replica for p in points]
    total_ax = ax.twinx()
    lines = [
        *ax.plot(batches, per_stream, color=style.PICK, linewidth=3, label=_t(lang, "per_stream")),
        *total_ax.plot(
            batches, totals, color=AGGREGATE, linewidth=3, linestyle="-.", label=_t(lang, "aggregate")
        ),
    ]
    ax.set_xlabel(_t(lang, "batch"), fontsize=style.LABEL_PT)
    ax.set_ylabel(_t(lang, "per_stream"), fontsize=style.LABEL_PT, color=style.PICK)
    total_ax.set_ylabel(_t(lang, "aggregate"), fontsize=style.LABEL_PT, color=AGGREGATE)
    ax.set_xlim(1, max(batches[-1], 2))
    for axis, values, colour in ((ax, per_stream, style.PICK), (total_ax, totals, AGGREGATE)):
        axis.set_ylim(0, max(values) * 1.2)
        axis.tick_params(axis="y", labelsize=style.TICK_PT, labelcolor=colour, labelfontfamily=family())
        style.number_axis(axis.yaxis, lang)
    total_ax.spines["top"].set_visible(False)
    style.legend_below(ax, lines, ncols=2)
    planned = next((p for p in points if p.batch == pick.batch), None)
    if planned is not None:
        _operating_point(ax, total_ax, planned, lang)


def _operating_point(ax: Axes, total_ax: Axes, point: CurvePoint, lang: str) -> None:
    """Dashed line at the planned batch, with both speeds there written next to their dots."""
    ax.axvline(point.batch, color=style.INK, linestyle="--", linewidth=1.5)
    ax.text(
        point.batch,
        ax.get_ylim()[1],
        " " + locales.t(lang, "chart.operating_point", batch=point.batch),
        va="top",
        fontsize=style.TICK_PT,
        color=style.INK,
    )
    for axis, value, colour, offset, align in (
        (ax, point.tokens_per_s_per_stream, style.PICK, (-10, 10), "right"),
        (total_ax, point.tokens_per_s_replica, AGGREGATE, (10, -24), "left"),
    ):
        axis.plot([point.batch], [value], "o", color=colour, markersize=9)
        axis.annotate(
            locales.t(lang, "chart.tokens_per_s", value=value),
            (point.batch, value),
            xytext=offset,
            textcoords="offset points",
            ha=align,
            fontsize=style.TICK_PT,
            color=colour,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
        )


def _t(lang: str, axis: str) -> str:
    return locales.t(lang, f"chart.axis.{axis}")


def _training(ax: Axes, plan: Plan, lang: str) -> None:
    shown = [r for r in rows(plan) if r.option.task == "train" and r.option.tokens_per_s]
    style.title(ax, locales.t(lang, "chart.title.speed_train"))
    if not shown:
        style.message(ax, locales.t(lang, "chart.no_fit" if not rows(plan) else "chart.no_speed"))
        return
    style.style_axes(ax)
    ys = style.option_rows(ax, [row_label(r, lang) for r in shown])
    speeds = [r.option.tokens_per_s or 0.0 for r in shown]
    colours = [style.PICK if r.kind == "pick" else style.OTHER for r in shown]
    ax.barh(ys, speeds, height=0.6, color=colours)
    for y, speed, row in zip(ys, speeds, shown, strict=True):
        hours = row.option.training_hours
        key = "chart.hours" if hours is not None else "chart.tokens_per_s"
        ax.text(
            speed,
            y,
            "  " + locales.t(lang, key, value=speed, hours=hours),
            va="center",
            fontsize=style.TICK_PT,
        )
    ax.set_xlim(0, max(speeds) * 1.5)
    style.number_axis(ax.xaxis, lang)
    ax.set_xlabel(locales.t(lang, "chart.axis.train_speed"), fontsize=style.LABEL_PT)
