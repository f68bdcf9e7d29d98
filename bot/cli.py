"""The ``gpu-advisor`` command: the engine contract on the command line, and the chat surfaces.

Exit codes: 0 success, 2 bad input (with a JSON error on stdout naming the field),
1 an unexpected failure (logged, never a raw traceback to the user).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import knowledge
from bot.contract import ContractError, dump, engine_payload, parse_workload
from engine.errors import EngineError
from engine.estimate import estimate
from engine.recommend import recommend

log = logging.getLogger("gpu_advisor")
EXIT_BAD_INPUT = 2


def _read_input(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    return Path(source).read_text(encoding="utf-8")


def _engine_command(run: Callable[..., object]) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        import json

        try:
            text = _read_input(args.json)
            workload = parse_workload(text)
            kb = knowledge.load(args.catalog)
            result = run(workload, kb)
        except OSError as exc:
            print(json.dumps({"error": {"code": "unreadable_input", "field": None, "message": str(exc)}}))
            return EXIT_BAD_INPUT
        except ContractError as exc:
            print(json.dumps(exc.payload, ensure_ascii=False, indent=2))
            return EXIT_BAD_INPUT
        except EngineError as exc:
            print(json.dumps(engine_payload(exc), ensure_ascii=False, indent=2))
            return EXIT_BAD_INPUT
        except knowledge.KnowledgeError as exc:
            print(json.dumps({"error": {"code": "bad_catalog", "field": "catalog", "message": str(exc)}}))
            return EXIT_BAD_INPUT
        print(dump(result))  # type: ignore[arg-type]
        return 0

    return command


def _chat(args: argparse.Namespace) -> int:
    from bot.dialog import Dialog
    from bot.store import Store
    from bot.terminal import Session, default_db, local_user, run_interactive, run_script

    dialog = Dialog(knowledge.load(args.catalog))
    db = args.db or (":memory:" if args.script else str(default_db()))
    store = Store(db)
    session = Session(dialog, store, args.user or local_user())
    try:
        return run_script(session, sys.stdin, sys.stdout) if args.script else run_interactive(session)
    finally:
        store.close()


def _ask(args: argparse.Namespace) -> int:
    from bot.dialog import Dialog
    from bot.terminal import ask

    return ask(Dialog(knowledge.load(args.catalog)), args.message, args.lang, args.json)


def _analyze(args: argparse.Namespace) -> int:
    """``gpu-advisor analyze [--json] FILE|-``: a configuration sheet's verdict."""
    import json

    from bot.dialog.sheet_render import analysis_text
    from bot.understand.normalize import language_of
    from engine.sheet import analyze

    try:
        text = _read_input(args.sheet)
    except (OSError, UnicodeDecodeError) as exc:
        print(json.dumps({"error": {"code": "unreadable_input", "field": "sheet", "message": str(exc)}}))
        return EXIT_BAD_INPUT
    result = analyze(text, knowledge.load(args.catalog))
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(analysis_text(args.lang or language_of(text), result))
    return 0


def _telegram(args: argparse.Namespace) -> int:
    from bot.telegram import run

    return run.main(args, args.catalog)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpu-advisor", description="Which GPU server to rent, and why.")
    parser.add_argument("--catalog", help="operator price catalog (YAML); default: the shipped list")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, run, text in (
        ("estimate", estimate, "memory, fit and speed for a Workload (JSON) — prints an Estimate"),
        ("recommend", recommend, "the catalog pick for a Workload (JSON) — prints a Plan"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--json", required=True, metavar="FILE|-", help="Workload JSON file, or - for stdin")
        p.set_defaults(func=_engine_command(run))
    chat = sub.add_parser("chat", help="interactive chat in the terminal (no token needed)")
    chat.add_argument(
        "--script", action="store_true", help="one message per stdin line, one JSON reply per line"
    )
    chat.add_argument("--db", help="SQLite state file (default: per-user data dir; :memory: with --script)")
    chat.add_argument("--user", help="user id to store the conversation under")
    chat.set_defaults(func=_chat)
    one = sub.add_parser("ask", help="one message, one answer")
    one.add_argument("message")
    one.add_argument("--lang", choices=("zh", "en"))
    one.add_argument(
        "--json", action="store_true", help="print {lang, requirements, missing, assumed, plan, text}"
    )
    one.set_defaults(func=_ask)
    sheet = sub.add_parser(
        "analyze", help="read a server configuration sheet: training or inference machine?"
    )
    sheet.add_argument("sheet", metavar="FILE|-", help="the sheet as text, or - for stdin")
    sheet.add_argument("--json", action="store_true", help="print the analysis as JSON")
    sheet.add_argument("--lang", choices=("zh", "en"))
    sheet.set_defaults(func=_analyze)
    from bot.charts.cli import add_chart_command
    from bot.discord.run import add_discord_command
    from bot.web.run import add_web_command

    add_chart_command(sub)
    add_discord_command(sub)
    add_web_command(sub)
    from bot.telegram.run import add_arguments as telegram_arguments

    tg = sub.add_parser("telegram", help="run the Telegram bot (token in $TELEGRAM_BOT_TOKEN)")
    telegram_arguments(tg)
    tg.set_defaults(func=_telegram)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`gpu-advisor ask … | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception:
        log.exception("unexpected failure in %s", args.command)
        print('{"error": {"code": "internal", "field": null, "message": "internal error; see the log"}}')
        return 1


if __name__ == "__main__":
    sys.exit(main())
