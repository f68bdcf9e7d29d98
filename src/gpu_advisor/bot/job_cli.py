"""``gpu-advisor job``: size a GPU job that is not a language model, from its JSON request.

    echo '{"family": "image_gen", "model": "sdxl", "images_per_day": 20000}' \
        | gpu-advisor job --json -
    gpu-advisor job --json wan.json --say zh

The request is one member of ``engine.jobs.request.JobRequest``, chosen by ``family``
(image_gen, image_train, video_gen, speech, embedding, vision_train, vision_infer,
video_encode). Prints ``bot.job_contract.JobAnswer`` as JSON: ``request`` (defaults
filled), ``plan`` (a ``JobPlan``: the pick, its price, the metrics and cost per unit,
findings, the launch command) and, with ``--say zh|en``, each finding's sentence in that
language under ``text``. Same contract as ``recommend``: bad input prints the JSON error
naming the field and exits 2. Registered lazily by ``bot.cli.SURFACES``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpu_advisor import knowledge
from gpu_advisor.bot.contract import ContractError, refuse
from gpu_advisor.bot.errors import error_body
from gpu_advisor.bot.job_contract import answer, read_job

HELP = "size a GPU job that is not an LLM (image, video, speech, embeddings, vision, encoding) from JSON"


def add_job_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("job", help=HELP)
    p.add_argument("--json", required=True, metavar="FILE|-", help="the job request JSON, or - for stdin")
    p.add_argument("--say", choices=("zh", "en"), help="add the findings' sentences in this language")
    p.set_defaults(func=run_job)


def run_job(args: argparse.Namespace) -> int:
    try:
        text = sys.stdin.read() if args.json == "-" else Path(args.json).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return refuse(error_body("unreadable_input", str(exc)))
    try:
        request = read_job(text)
        kb = knowledge.load(getattr(args, "catalog", None))
    except ContractError as exc:
        return refuse(exc.payload)
    except knowledge.KnowledgeError as exc:
        return refuse(exc.payload)
    print(answer(request, kb, args.say).model_dump_json(indent=2))
    return 0
