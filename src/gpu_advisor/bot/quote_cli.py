"""``gpu-advisor quote``: a vendor's quote, or buy vs rent vs API, for a Workload JSON.

    gpu-advisor quote --json workload.json "8×A800 80G ¥58,000/月 年付85折"
    gpu-advisor quote --json workload.json --own "电费 0.6 元一度，托管费 3000/月" --chart own.png
    gpu-advisor quote --json workload.json --say zh "H100 整机每小时 ¥180 或包月 ¥9 万"

Prints ``engine.quote.QuoteVerdict`` (or, with ``--own``, ``engine.ownership.Ownership``)
as JSON; ``--say zh|en`` prints the chat answer's words instead. Same contract as
``recommend``: bad input prints the JSON error naming the field and exits 2. Register
with ``add_quote_command(sub)`` (``bot.cli.SURFACES`` does, lazily).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpu_advisor import knowledge
from gpu_advisor.bot.contract import ContractError, engine_payload, read_workload_source, refuse
from gpu_advisor.bot.dialog.money_lines import ownership_lines, ownership_title, quote_lines, quote_title
from gpu_advisor.bot.quote_call import QuoteRequest, answer
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.ownership import OwnershipAsk, ownership
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge.prices import reference
from gpu_advisor.reading.quote import read

HELP = "judge a vendor's quote, or buy vs rent vs API, for a Workload (JSON)"


def add_quote_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("quote", help=HELP)
    p.add_argument("text", help='the quote as pasted ("4090 ¥1.6/卡时"), or with --own the ownership prices')
    p.add_argument("--json", required=True, metavar="FILE|-", help="Workload JSON file, or - for stdin")
    p.add_argument("--hours", type=float, help="hours of use a month (a service) or in all (a training job)")
    p.add_argument("--currency", help="say the amounts back in this currency (CNY, USD)")
    p.add_argument("--own", action="store_true", help="compare buying, renting and a hosted API instead")
    p.add_argument("--chart", metavar="PNG", help="with --own: draw the cumulative cost chart here")
    p.add_argument("--say", choices=("zh", "en"), help="print the chat answer's words, not JSON")
    p.set_defaults(func=run_quote)


def run_quote(args: argparse.Namespace) -> int:
    try:
        workload = read_workload_source(args.json)
        kb = knowledge.load(getattr(args, "catalog", None))
        return _own(args, workload, kb) if args.own else _quote(args, workload, kb)
    except ContractError as exc:
        return refuse(exc.payload)
    except EngineError as exc:
        return refuse(engine_payload(exc))
    except ValueError as exc:  # a pydantic refusal of --currency or --hours
        return refuse({"error": {"code": "invalid_input", "field": None, "message": str(exc)}})


def _currency(args: argparse.Namespace) -> str | None:
    return args.currency.strip().upper() if args.currency else None


def _quote(args: argparse.Namespace, w: Workload, kb: Knowledge) -> int:
    req = QuoteRequest(workload=w, text=args.text, hours=args.hours, currency=_currency(args))
    verdict = answer(req, kb)
    if args.say:
        model = kb.models[w.model].name if w.model in kb.models else (w.model or "?")
        print("\n".join([quote_title(args.say, verdict, kb, model), *quote_lines(args.say, verdict, kb)]))
    else:
        print(verdict.model_dump_json(indent=2))
    return 0


def _own(args: argparse.Namespace, w: Workload, kb: Knowledge) -> int:
    reading = read(args.text, kb)
    said = {
        "currency": _currency(args) or reading.currency,
        "hours_per_month": args.hours or reading.hours_per_month,
    }
    ask = OwnershipAsk.model_validate({**reading.ownership_ask().model_dump(), **said})
    result = ownership(w, ask, kb, reference())
    if args.chart:
        from gpu_advisor.bot.charts.ownership import render_ownership_png  # matplotlib only when drawing

        Path(args.chart).write_bytes(render_ownership_png(result, args.say or "zh"))
    if args.say:
        print("\n".join([ownership_title(args.say, result, kb), *ownership_lines(args.say, result, kb)]))
    else:
        print(result.model_dump_json(indent=2))
    return 0
