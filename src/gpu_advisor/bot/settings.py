"""Every operator setting in one pydantic-settings class, read from the environment and an optional file.

Why one class: the surfaces used to read ``os.environ`` each in their own place, so
nobody could list what a deployment was running with. ``Settings`` names every
variable once (``GPU_ADVISOR_*``, ``TELEGRAM_*``, ``DISCORD_*``), validates it at
start-up (a typo in ``GPU_ADVISOR_LOG_FORMAT`` stops the process with one sentence
instead of being ignored), and prints itself with the secrets masked.

Precedence, highest first: command-line flags (``load_settings(flags)``: the CLI builds the one
``Settings`` it runs with after parsing, and logs that object), environment variables, the file
named by ``GPU_ADVISOR_SETTINGS_FILE`` (``KEY=value`` lines, the dotenv format compose and
systemd ``EnvironmentFile=`` already use), the defaults below. Secrets are ``SecretStr`` so that
``repr``, logs and the start-up line never hold them; the token readers in ``bot.secrets`` still
accept ``*_FILE``.

The database in use (``database``) is ``--database-url``, else ``--db``, else
``$GPU_ADVISOR_DATABASE_URL``, else ``$GPU_ADVISOR_DB``, else ``gpu-advisor.db``: a flag beats
every variable, so ``--db`` on the command line is not overridden by a URL in the environment.
Both are checked by ``bot.storage.target`` (an SQLite path or a PostgreSQL URL/DSN, nothing
else) and shown with every password form masked.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

FILE_VARIABLE = "GPU_ADVISOR_SETTINGS_FILE"
MASK = "***"


def _env(*names: str) -> Any:
    """The field is read from these variables (the first set wins), exactly as spelled."""
    return AliasChoices(*names)


class Settings(BaseSettings):
    """What a deployment runs with. Field names are the Python side; aliases are the variables."""

    model_config = SettingsConfigDict(
        env_file=None,
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
        case_sensitive=True,
        frozen=True,
    )

    database_url: str | None = Field(None, validation_alias=_env("GPU_ADVISOR_DATABASE_URL"))
    db: str = Field("gpu-advisor.db", validation_alias=_env("GPU_ADVISOR_DB"))
    keep_conversations_days: float = Field(
        30, ge=0, validation_alias=_env("GPU_ADVISOR_KEEP_CONVERSATIONS_DAYS")
    )
    keep_plans_days: float = Field(90, ge=0, validation_alias=_env("GPU_ADVISOR_KEEP_PLANS_DAYS"))
    log_format: Literal["text", "json"] = Field("text", validation_alias=_env("GPU_ADVISOR_LOG_FORMAT"))
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "WARNING", validation_alias=_env("GPU_ADVISOR_LOG_LEVEL")
    )
    admin_token: SecretStr | None = Field(None, validation_alias=_env("GPU_ADVISOR_ADMIN_TOKEN"))
    trusted_proxies: str | None = Field(None, validation_alias=_env("GPU_ADVISOR_TRUSTED_PROXIES"))
    metrics_dir: str | None = Field(None, validation_alias=_env("PROMETHEUS_MULTIPROC_DIR"))
    telegram_bot_token: SecretStr | None = Field(None, validation_alias=_env("TELEGRAM_BOT_TOKEN"))
    telegram_webhook_secret: SecretStr | None = Field(None, validation_alias=_env("TELEGRAM_WEBHOOK_SECRET"))
    discord_bot_token: SecretStr | None = Field(None, validation_alias=_env("DISCORD_BOT_TOKEN"))

    @field_validator("database_url", "db")
    @classmethod
    def _a_database(cls, value: str | None) -> str | None:
        """An SQLite path or a PostgreSQL URL/DSN; anything else stops the process (ValueError)."""
        if value is not None:  # imported here: the storage package is not needed for --help
            from gpu_advisor.bot.storage.target import read_database

            read_database(value)
        return value

    @property
    def database(self) -> str:
        """The database every store of this process (and its workers and children) opens."""
        return self.database_url or self.db

    def redacted(self) -> dict[str, Any]:
        """Every setting by its variable name; a secret that is set shows as ``***``, never its value."""
        from gpu_advisor.bot.storage.target import shown

        listed: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = MASK if value.get_secret_value() else ""
            elif name in ("database_url", "db") and value:
                value = shown(value)
            variable = (
                field.validation_alias.choices[0]
                if isinstance(field.validation_alias, AliasChoices)
                else name
            )
            listed[str(variable)] = value
        listed["database"] = shown(self.database)  # the one in use, after the flags
        return listed

    def export(self, environ: MutableMapping[str, str]) -> None:
        """Put each value given (by the environment or the file) under its variable, if ``environ`` lacks it.

        The surfaces, the token readers (``bot.secrets``) and the worker processes read
        the environment; exporting makes a value from the settings file reach them too.
        """
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if (
                name not in self.model_fields_set
                or value is None
                or not isinstance(field.validation_alias, AliasChoices)
            ):
                continue
            plain = value.get_secret_value() if isinstance(value, SecretStr) else value
            environ.setdefault(
                str(field.validation_alias.choices[0]),
                f"{plain:g}" if isinstance(plain, float) else str(plain),
            )


def load_settings(flags: Mapping[str, Any] | None = None) -> Settings:
    """The settings: ``flags`` (field name → value given on the command line; None means not
    given) over the environment over the optional ``$GPU_ADVISOR_SETTINGS_FILE``.

    An explicit ``db`` flag without ``database_url`` also sets aside ``$GPU_ADVISOR_DATABASE_URL``:
    the flag names the database this run uses. Raises ``SystemExit`` with one sentence naming the
    setting when a value is invalid or the named file is missing (pydantic-settings would skip a
    missing file silently).
    """
    from pydantic import ValidationError

    given = {key: value for key, value in (flags or {}).items() if value is not None}
    if "db" in given and "database_url" not in given:
        given["database_url"] = None
    path = os.environ.get(FILE_VARIABLE) or None
    if path and not os.path.isfile(path):
        raise SystemExit(f"{FILE_VARIABLE}={path}: no such file")
    try:
        return Settings(_env_file=path, **given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SystemExit(f"setting {_variable(where)}: {first['msg']}") from exc


def _variable(name: str) -> str:
    """A field's variable (``database_url`` → ``GPU_ADVISOR_DATABASE_URL``); a variable as it is."""
    field = Settings.model_fields.get(name)
    if field is not None and isinstance(field.validation_alias, AliasChoices):
        return f"{field.validation_alias.choices[0]} (--{name.replace('_', '-')})"
    return name
