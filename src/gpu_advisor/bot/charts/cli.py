"""``gpu-advisor chart``: a Workload JSON in, the plan's chart as a PNG file out.

Same contract as ``recommend``: a bad workload prints the JSON error (naming the
field) on stdout and exits 2; on success the PNG is written to ``-o`` and
``{"chart": path, "kind": ..., "status": <plan status>}`` is printed. Register the
subcommand with ``add_chart_command(sub)`` on the CLI's subparsers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gpu_advisor import knowledge
from gpu_advisor.bot.charts.render import KINDS, render_plan_png
from gpu_advisor.bot.contract import ContractError, engine_payload, read_workload_source, refuse
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.recommend import recommend


def add_chart_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``chart`` subcommand (reads ``args.catalog`` from the parent parser, if it has one)."""
    p = sub.add_parser("chart", help="draw the recommendation for a Workload (JSON) as a PNG")
    p.add_argument("--json", required=True, metavar="FILE|-", help="Workload JSON file, or - for stdin")
    p.add_argument("-o", "--output", required=True, metavar="PNG", help="where to write the chart")
    p.add_argument("--kind", choices=KINDS, default="all", help="one panel, or all three stacked (default)")
    p.add_argument("--lang", choices=("zh", "en"), default="zh", help="label language (default zh)")
    p.set_defaults(func=run_chart)


def run_chart(args: argparse.Namespace) -> int:
    try:
        workload = read_workload_source(args.json)
        kb = knowledge.load(getattr(args, "catalog", None))
        plan = recommend(workload, kb)
    except ContractError as exc:
        return refuse(exc.payload)
    except EngineError as exc:
        return refuse(engine_payload(exc))
    except knowledge.KnowledgeError as exc:
        return refuse({"error": {"code": "bad_catalog", "field": "catalog", "message": str(exc)}})
    png = render_plan_png(plan, args.lang, args.kind, kb.catalog.fx_to_cny)
    try:
        Path(args.output).write_bytes(png)
    except OSError as exc:
        return refuse({"error": {"code": "unwritable_output", "field": "output", "message": str(exc)}})
    print(json.dumps({"chart": str(args.output), "kind": args.kind, "status": plan.status}))
    return 0
