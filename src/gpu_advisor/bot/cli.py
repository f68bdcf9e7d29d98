"""The ``gpu-advisor`` command: the engine contract on the command line, and the chat surfaces.

Exit codes: 0 success, 2 bad input (with a JSON error on stdout naming the field),
1 an unexpected failure (logged, never a raw traceback to the user).

Startup is kept cheap: this module imports nothing beyond the standard library at the
top, each command imports what it needs when it runs, and the chat surfaces (``SURFACES``)
are listed by name only — a surface's module, and its options, are loaded when that
surface is the command (``--help`` included). Building the parser with every surface
imported (matplotlib, aiohttp, telegram, discord) used to be three quarters of the
process for ``gpu-advisor ask``; ``bench/startup_bench.py`` measures it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpu_advisor.bot.settings import Settings

log = logging.getLogger("gpu_advisor")
EXIT_BAD_INPUT = 2

# name -> (module, function that registers the subcommand on the CLI's subparsers, one-line help).
# The help is repeated here so that `gpu-advisor --help` lists a surface without importing it;
# tests/test_startup.py checks it matches the surface's own.
SURFACES: dict[str, tuple[str, str, str]] = {
    "chart": (
        "gpu_advisor.bot.charts.cli",
        "add_chart_command",
        "draw the recommendation for a Workload (JSON) as a PNG",
    ),
    "quote": (
        "gpu_advisor.bot.quote_cli",
        "add_quote_command",
        "judge a vendor's quote, or buy vs rent vs API, for a Workload (JSON)",
    ),
    "job": (
        "gpu_advisor.bot.job_cli",
        "add_job_command",
        "size a GPU job that is not an LLM (image, video, speech, embeddings, vision, encoding) from JSON",
    ),
    "discord": (
        "gpu_advisor.bot.discord.run",
        "add_discord_command",
        "run the Discord bot (token in $DISCORD_BOT_TOKEN)",
    ),
    "web": (
        "gpu_advisor.bot.web.run",
        "add_web_command",
        "serve the HTTP API and the chat widget for a rental site",
    ),
    "telegram": (
        "gpu_advisor.bot.telegram.run",
        "add_telegram_command",
        "run the Telegram bot (token in $TELEGRAM_BOT_TOKEN)",
    ),
}
# The optional extra (pyproject.toml) that installs each library a command may need.
EXTRA_OF_MODULE = {
    "discord": "discord",
    "telegram": "telegram",
    "tornado": "telegram",
    "aiohttp": "web",
    "matplotlib": "charts",
    "cvttf": "charts",
    "psycopg": "postgres",
}
EXIT_FAILED = 1
# Commands that answer once and leave: they read only the log variables, so they skip loading
# pydantic-settings (bench/startup_bench.py: about 75 ms of a 0.45 s `ask`).
ONE_SHOT = frozenset({"estimate", "recommend", "ask", "analyze", "chart", "quote", "job"})
SERVICES = frozenset({"web", "telegram", "discord"})  # long-running: a database, a settings line
# A one-shot command builds its modules, records and matchers once and leaves: a collection of
# the youngest generation every 700 allocations (CPython's default) walks that growing heap for
# no garbage, about 35 ms of an `ask` (bench/startup_bench.py); one every 50,000 still bounds it.
ONE_SHOT_GC_THRESHOLD = 50_000
RETENTION_OPTIONS = (
    ("--keep-conversations-days", "GPU_ADVISOR_KEEP_CONVERSATIONS_DAYS", "an idle conversation", 30),
    ("--keep-plans-days", "GPU_ADVISOR_KEEP_PLANS_DAYS", "a plan log row", 90),
)


def _read_input(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    return Path(source).read_text(encoding="utf-8")


def _engine_command(name: str) -> Callable[[argparse.Namespace], int]:
    def command(args: argparse.Namespace) -> int:
        from gpu_advisor import knowledge
        from gpu_advisor.bot.contract import dump, parse_workload
        from gpu_advisor.bot.errors import InputError, error_body, refusal
        from gpu_advisor.engine.errors import EngineError

        run: Callable[..., Any] = getattr(importlib.import_module(f"gpu_advisor.engine.{name}"), name)
        try:
            config = _read_input(args.model_config) if args.model_config else None
            workload = parse_workload(_read_input(args.json), config)
            result = run(workload, knowledge.load(args.catalog))
        except OSError as exc:
            return _refuse(error_body("unreadable_input", str(exc)))
        except (InputError, EngineError, knowledge.KnowledgeError) as exc:
            return _refuse(refusal(exc))
        print(dump(result))
        return 0

    return command


def _refuse(payload: dict[str, Any]) -> int:
    """Bad input: the JSON error body (``bot.errors``) on stdout, exit status 2."""
    print(json.dumps(payload, ensure_ascii=False, indent=2))
    return EXIT_BAD_INPUT


def _chat(args: argparse.Namespace) -> int:
    from gpu_advisor import knowledge
    from gpu_advisor.bot.dialog import Dialog
    from gpu_advisor.bot.store import Store
    from gpu_advisor.bot.terminal import Session, default_db, local_user, run_interactive, run_script

    dialog = Dialog(knowledge.load(args.catalog))
    db = args.db or (":memory:" if args.script else str(default_db()))
    store = Store(db)
    session = Session(dialog, store, args.user or local_user())
    try:
        return run_script(session, sys.stdin, sys.stdout) if args.script else run_interactive(session)
    finally:
        store.close()


def _ask(args: argparse.Namespace) -> int:
    from gpu_advisor import knowledge
    from gpu_advisor.bot.dialog import Dialog
    from gpu_advisor.bot.terminal import ask

    return ask(Dialog(knowledge.load(args.catalog)), args.message, args.lang, args.json)


def _analyze(args: argparse.Namespace) -> int:
    """``gpu-advisor analyze [--json] FILE|-``: a configuration sheet's verdict."""
    from gpu_advisor import knowledge
    from gpu_advisor.bot.dialog.sheet_render import analysis_text
    from gpu_advisor.bot.errors import error_body
    from gpu_advisor.reading.sheet import analyze
    from gpu_advisor.text.normalize import language_of

    try:
        text = _read_input(args.sheet)
        kb = knowledge.load(args.catalog)
    except (OSError, UnicodeDecodeError) as exc:
        return _refuse(error_body("unreadable_input", str(exc), "sheet"))
    except knowledge.KnowledgeError as exc:
        return _refuse(exc.payload)
    result = analyze(text, kb)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(analysis_text(args.lang or language_of(text), result))
    return 0


def _add_engine_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name, text in (
        ("estimate", "memory, fit and speed for a Workload (JSON) — prints an Estimate"),
        ("recommend", "the catalog pick for a Workload (JSON) — prints a Plan"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--json", required=True, metavar="FILE|-", help="Workload JSON file, or - for stdin")
        p.add_argument(
            "--model-config", metavar="FILE", help="Hugging Face config.json of a model the library lacks"
        )
        p.set_defaults(func=_engine_command(name))


def _add_local_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


def _add_surfaces(sub: argparse._SubParsersAction[argparse.ArgumentParser], load: str | None) -> None:
    """The chat surfaces: ``load`` (the command being run) for real, the others as names in the list.

    A placeholder takes no options of its own (not even ``--help``), so whatever follows a
    surface's name is left for that surface's real parser, built once the command is known.
    """
    for name, (module, register, text) in SURFACES.items():
        if name == load:
            getattr(importlib.import_module(module), register)(sub)
            _db_flag_without_default(sub.choices[name])
        else:
            sub.add_parser(name, help=text, add_help=False)


def _db_flag_without_default(parser: argparse.ArgumentParser) -> None:
    """A surface's ``--db`` defaults to None, so the settings can tell a flag (which beats
    ``$GPU_ADVISOR_DATABASE_URL``) from the environment's default (which does not)."""
    for action in parser._actions:
        if action.dest == "db":
            action.default = None


def build_parser(surface: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``surface`` names the one chat surface whose module is imported."""
    parser = argparse.ArgumentParser(prog="gpu-advisor", description="Which GPU server to rent, and why.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    parser.add_argument("--catalog", help="operator price catalog (YAML); default: the shipped list")
    for flag, variable, what, default in RETENTION_OPTIONS:
        parser.add_argument(
            flag,
            type=int,
            metavar="DAYS",
            help=f"delete {what} after DAYS days (default ${variable}, else {default}; 0 keeps forever)",
        )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="the shared database for every surface: postgresql://… or sqlite:///path"
        " (default $GPU_ADVISOR_DATABASE_URL, else each surface's --db file)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_engine_commands(sub)
    _add_local_commands(sub)
    _add_surfaces(sub, surface)
    return parser


def parse(
    argv: Sequence[str] | None, *, before_surface: Callable[[], None] = lambda: None
) -> argparse.Namespace:
    """Parse once with surfaces as names; if a surface was chosen, call ``before_surface`` (the
    settings reach the environment its option defaults read), then parse again with its options."""
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if args.command in SURFACES:
        before_surface()
        return build_parser(args.command).parse_args(argv)
    if extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given on the command line (None: not given), by ``Settings`` field name."""
    return {
        "database_url": args.database_url,
        "db": getattr(args, "db", None),
        "keep_conversations_days": args.keep_conversations_days,
        "keep_plans_days": args.keep_plans_days,
    }


def _hand_on(args: argparse.Namespace, settings: Settings) -> None:
    """Put the settings in effect where every store, worker and child process reads them.

    The database goes to ``$GPU_ADVISOR_DATABASE_URL`` (``bot.storage`` opens it whatever path a
    surface passes); retention flags to their variables. Children inherit the environment, so
    nothing secret is ever on a command line. ``chat`` without a database setting keeps its own
    per-user file.
    """
    from gpu_advisor.bot.storage import URL_VARIABLE

    if args.command in SERVICES or settings.database_url or getattr(args, "db", None):
        os.environ[URL_VARIABLE] = settings.database
    if args.command in SERVICES:
        args.db = settings.db  # a path beside which a surface keeps its files (the webhook secret)
    for flag, variable, _, _ in RETENTION_OPTIONS:
        days = getattr(args, flag.removeprefix("--").replace("-", "_"))
        if days is not None:
            os.environ[variable] = str(days)


class _Version(argparse.Action):
    """``--version``, looked up only when asked: reading the installed distribution's metadata
    costs every other command a few milliseconds of start-up."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"{parser.prog} {version()}")  # on stdout, as argparse's own "version" action
        parser.exit()


def version() -> str:
    """The installed distribution's version (``pyproject.toml``), or ``unknown`` from a bare checkout."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("gpu-advisor")
    except PackageNotFoundError:
        return "unknown"


def _apply_settings() -> None:
    """Validate the environment and set up logging, before the parser reads any default.

    Values from ``$GPU_ADVISOR_SETTINGS_FILE`` are exported to the environment, where the
    surfaces, the token readers and the worker processes look.
    """
    from gpu_advisor.bot.logs import configure
    from gpu_advisor.bot.settings import load_settings

    settings = load_settings()
    settings.export(os.environ)
    configure(settings.log_format, settings.log_level)


def settings_for(args: argparse.Namespace) -> Settings:
    """The one ``Settings`` this run uses: the flags over the environment over the defaults."""
    from gpu_advisor.bot.settings import load_settings

    return load_settings(_flags(args))


def _print_settings(settings: Settings, command: str) -> None:
    """A long-running surface says what it runs with, secrets masked, as its first log line."""
    if command in SERVICES:
        startup = logging.getLogger("gpu_advisor.settings")
        startup.setLevel(logging.INFO)
        startup.info("settings %s", json.dumps(settings.redacted(), ensure_ascii=False))


def _missing_extra(exc: ImportError, command: str) -> int | None:
    """A library of an optional extra is not installed: say which extra, not "internal error"."""
    module = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return None
    from gpu_advisor.bot.errors import error_body

    message = (
        f"gpu-advisor {command} needs the optional {extra!r} extra ({module} is not installed):"
        f" pip install 'gpu-advisor[{extra}]'"
    )
    log.error("%s", message)
    print(json.dumps(error_body("missing_extra", message, extra=extra), ensure_ascii=False))
    return EXIT_FAILED


def _command_named(argv: Sequence[str] | None) -> str:
    words = list(sys.argv[1:] if argv is None else argv)
    return next((w for w in words if w in SURFACES or not w.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse(argv, before_surface=_apply_settings)
    except ImportError as exc:  # a surface's module needs its extra just to list its options
        code = _missing_extra(exc, _command_named(argv))
        if code is None:
            raise
        return code
    if args.command in ONE_SHOT:  # no database, no service: only the log variables matter
        import gc

        gc.set_threshold(ONE_SHOT_GC_THRESHOLD, *gc.get_threshold()[1:])
        from gpu_advisor.bot.logs import configure_from

        configure_from(os.environ)
    else:
        if args.command not in SURFACES:
            _apply_settings()
        settings = settings_for(args)
        _print_settings(settings, args.command)
        _hand_on(args, settings)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`gpu-advisor ask … | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        return _failed(exc, args.command)


def _failed(exc: Exception, command: str) -> int:
    """An exception that reached the top: the operator's input, a missing extra, an unreachable
    database (one sentence each), or a real fault (logged with its traceback)."""
    from gpu_advisor.bot.storage import StorageUnavailable
    from gpu_advisor.knowledge.reading import KnowledgeError

    if isinstance(exc, KnowledgeError):  # a bad --catalog for chat or ask: the operator's input
        return _refuse(exc.payload)
    if isinstance(exc, ImportError) and (code := _missing_extra(exc, command)) is not None:
        return code
    if isinstance(exc, StorageUnavailable):
        log.error("gpu-advisor %s: the database is unavailable: %s", command, exc)
        print(json.dumps({"error": {"code": "storage_unavailable", "field": None, "message": str(exc)}}))
        return EXIT_FAILED
    log.exception("unexpected failure in %s", command)
    print('{"error": {"code": "internal", "field": null, "message": "internal error; see the log"}}')
    return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
