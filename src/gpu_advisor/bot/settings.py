"""Every operator setting in one pydantic-settings class, read from the environment and an optional file.

Why one class: the surfaces used to read ``os.environ`` each in their own place, so
nobody could list what a deployment was running with. ``Settings`` names every
variable once (``GPU_ADVISOR_*``, ``TELEGRAM_*``, ``DISCORD_*``), validates it at
start-up (a typo in ``GPU_ADVISOR_LOG_FORMAT`` stops the process with one sentence
instead of being ignored), and prints itself with the secrets masked.

Precedence, highest first: command-line flags (the CLI applies them after loading),
environment variables, the file named by ``GPU_ADVISOR_SETTINGS_FILE`` (``KEY=value``
lines, the dotenv format compose and systemd ``EnvironmentFile=`` already use), the
defaults below. Secrets are ``SecretStr`` so that ``repr``, logs and the start-up line
never hold them; the token readers in ``bot.secrets`` still accept ``*_FILE``.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr
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
    metrics_dir: str | None = Field(None, validation_alias=_env("PROMETHEUS_MULTIPROC_DIR"))
    telegram_bot_token: SecretStr | None = Field(None, validation_alias=_env("TELEGRAM_BOT_TOKEN"))
    telegram_webhook_secret: SecretStr | None = Field(None, validation_alias=_env("TELEGRAM_WEBHOOK_SECRET"))
    discord_bot_token: SecretStr | None = Field(None, validation_alias=_env("DISCORD_BOT_TOKEN"))

    def redacted(self) -> dict[str, Any]:
        """Every setting by its variable name; a secret that is set shows as ``***``, never its value."""
        shown: dict[str, Any] = {}
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = MASK if value.get_secret_value() else ""
            elif name == "database_url" and value:
                value = _without_password(value)
            variable = (
                field.validation_alias.choices[0]
                if isinstance(field.validation_alias, AliasChoices)
                else name
            )
            shown[str(variable)] = value
        return shown

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


def _without_password(url: str) -> str:
    """``postgresql://user:secret@host/db`` → ``postgresql://user:***@host/db``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", f":{MASK}@", 1)).geturl()


def load_settings() -> Settings:
    """The settings from the environment over the optional ``$GPU_ADVISOR_SETTINGS_FILE``.

    Raises ``SystemExit`` with one sentence naming the variable when a value is invalid
    or the named file is missing (pydantic-settings would skip a missing file silently).
    """
    from pydantic import ValidationError

    path = os.environ.get(FILE_VARIABLE) or None
    if path and not os.path.isfile(path):
        raise SystemExit(f"{FILE_VARIABLE}={path}: no such file")
    try:
        return Settings(_env_file=path)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SystemExit(f"setting {where}: {first['msg']}") from exc
