"""What a database setting names, read once: an SQLite file or a PostgreSQL connection string.

A setting (``--database-url``, ``--db``, ``$GPU_ADVISOR_DATABASE_URL``) may be

- an SQLite path (``gpu-advisor.db``, ``/var/lib/x.db``, ``:memory:``) or ``sqlite:///path``;
- a PostgreSQL URL (``postgresql://`` or ``postgres://``) or a libpq keyword DSN
  (``host=db dbname=advisor password=…``).

Anything else is refused with one sentence: a keyword DSN used to be taken for a file name,
so a file named after the DSN (password included) appeared beside the server, which then
reported ready on an empty SQLite database. PostgreSQL strings are parsed by psycopg's own
parser (libpq's ``PQconninfoParse`` behind ``psycopg.conninfo.conninfo_to_dict``), so what
is accepted here is exactly what the driver will connect with.

``shown`` is the string for a log line: every password form masked (a URL's userinfo, a
``?password=`` parameter, a DSN's ``password=``). Without psycopg installed a PostgreSQL
string cannot be parsed, so none of it is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urlsplit

SQLITE_SCHEME = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
MASK = "***"
EXTRA = 'pip install "gpu-advisor[postgres]"'
_KEYWORD_DSN = re.compile(r"\s*[A-Za-z_]+\s*=")
_ANY_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")

__all__ = ["BadDatabase", "Database", "read_database", "shown"]


class BadDatabase(ValueError):
    """The setting names neither an SQLite file nor a PostgreSQL database (the message says why)."""


@dataclass(frozen=True)
class Database:
    """A checked setting: which backend, and the string that backend opens."""

    kind: Literal["sqlite", "postgresql"]
    target: str  # the SQLite path (scheme removed), or the PostgreSQL URL/DSN as given


def read_database(raw: str) -> Database:
    """Classify and check ``raw``; ``BadDatabase`` if it is neither form (never echoing a password)."""
    text = raw.strip()
    if not text:
        raise BadDatabase("the database setting is empty")
    if text.startswith(SQLITE_SCHEME):
        path = text.removeprefix(SQLITE_SCHEME)
        if not path:
            raise BadDatabase("sqlite:/// needs a path after it (sqlite:///var/lib/gpu-advisor.db)")
        return Database("sqlite", path)
    if text.startswith(POSTGRES_SCHEMES) or _KEYWORD_DSN.match(text):
        _parse_postgres(text)
        return Database("postgresql", text)
    if _ANY_SCHEME.match(text):
        scheme = text.split("://", 1)[0]
        raise BadDatabase(
            f"{scheme}:// is not a database this service opens: give an SQLite path, sqlite:///path,"
            " a postgresql:// URL or a PostgreSQL keyword DSN (host=… dbname=…)"
        )
    return Database("sqlite", text)


def _parse_postgres(text: str) -> dict[str, str]:
    """libpq's reading of a URL or keyword DSN; ``BadDatabase`` with libpq's reason (no secret in it)."""
    try:
        from psycopg import ProgrammingError
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise BadDatabase(f"a PostgreSQL database needs psycopg: {EXTRA}") from None
    try:
        return {k: str(v) for k, v in conninfo_to_dict(text).items() if v is not None}
    except ProgrammingError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else "unreadable"
        raise BadDatabase(f"not a PostgreSQL URL or keyword DSN libpq can read ({reason})") from None


def shown(raw: str | None) -> str | None:
    """``raw`` for a log line, every password masked; an unreadable setting is not shown at all."""
    if raw is None:
        return None
    try:
        database = read_database(raw)
    except BadDatabase:
        return "<not a database setting>"
    if database.kind == "sqlite":
        return raw
    text = raw.strip()
    if text.startswith(POSTGRES_SCHEMES):
        return _url_without_passwords(text)
    from psycopg.conninfo import make_conninfo

    parsed = _parse_postgres(text)
    return make_conninfo(**{**parsed, "password": MASK}) if "password" in parsed else make_conninfo(**parsed)


def _url_without_passwords(url: str) -> str:
    """``postgresql://u:pw@h/db?password=pw`` → ``postgresql://u:***@h/db?password=***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{hosts}" if colon else netloc
    query = [(k, MASK if k.lower() == "password" else v) for k, v in parse_qsl(parts.query, True)]
    return parts._replace(netloc=netloc, query=urlencode(query, safe="/:=*,-")).geturl()
