"""The webhook's secret: the header Telegram sends with every POST, so a forged update is refused.

Telegram echoes the ``secret_token`` given to ``setWebhook`` in each delivery's
``X-Telegram-Bot-Api-Secret-Token`` header, and PTB's webhook server answers 403 to a
request without it. It is the only thing standing between the open port and the admin
commands, so it must be unguessable: the operator's ``TELEGRAM_WEBHOOK_SECRET`` (or the
file named by ``TELEGRAM_WEBHOOK_SECRET_FILE``) if it has at least 32 characters, else
one made by ``secrets.token_urlsafe`` on first start and kept, readable by the owner only
(0600), in ``telegram-webhook-secret`` beside the database, so a restart re-registers the
same one. Telegram allows 1–256 characters from ``A-Z a-z 0-9 _ -``
(https://core.telegram.org/bots/api#setwebhook).
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
VARIABLE = "TELEGRAM_WEBHOOK_SECRET"
FILE_NAME = "telegram-webhook-secret"
MIN_CHARS = 32
ALLOWED = re.compile(r"[A-Za-z0-9_-]{1,256}")
GENERATED_BYTES = 32  # token_urlsafe(32) is 43 characters, 256 bits


def webhook_secret(data_dir: Path, env: Mapping[str, str] = os.environ) -> str:
    """The operator's secret if set (checked), else the stored one, made on first use."""
    given = env.get(VARIABLE, "").strip()
    path = env.get(f"{VARIABLE}_FILE")
    if not given and path:
        given = Path(path).read_text(encoding="utf-8").strip()
    if given:
        return checked(given, f"${VARIABLE}")
    return checked(_stored_secret(data_dir / FILE_NAME), str(data_dir / FILE_NAME))


def checked(secret: str, where: str) -> str:
    """Refuse to start (a readable message, no traceback) with a weak or malformed secret."""
    if len(secret) < MIN_CHARS:
        raise SystemExit(
            f"the webhook secret in {where} has {len(secret)} characters; use at least {MIN_CHARS}"
            f" random ones, e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            f" — or unset {VARIABLE} and one is generated for you"
        )
    if not ALLOWED.fullmatch(secret):
        raise SystemExit(f"the webhook secret in {where} may hold only A-Z a-z 0-9 _ - (at most 256)")
    return secret


def _stored_secret(path: Path) -> str:
    """Read the kept secret, or create it atomically: written whole to a private temporary file,
    then linked into place, so two processes starting at once read the same complete secret."""
    if not path.exists():
        secret = secrets.token_urlsafe(GENERATED_BYTES)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(secret + "\n")
        try:
            os.link(temporary, path)
            log.warning("generated a webhook secret in %s (kept for restarts)", path)
        except FileExistsError:
            pass  # another process won the race; use its secret
        finally:
            temporary.unlink()
    _owner_only(path)
    return path.read_text(encoding="utf-8").strip()


def _owner_only(path: Path) -> None:
    """A kept secret that others can read is tightened back to 0600, and said so."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("%s was readable by others (mode %o); setting it to 0600", path, mode)
        path.chmod(0o600)


# --- a delivery that is not JSON --------------------------------------------------------
async def _post_refusing_malformed(handler: Any) -> None:
    """PTB's webhook POST, but a body that is not a JSON object answers 400, not 500.

    PTB parses the body outside its own error handling (python-telegram-bot 21,
    ``telegram/ext/_utils/webhookhandler.py``), so malformed JSON sent with the right secret
    became tornado's 500 and a logged traceback. The secret is still checked first: a
    forged request is refused 403 whatever its body.
    """
    import tornado.web

    handler._validate_post()
    try:
        data = json.loads(handler.request.body.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        data = None
    if not isinstance(data, dict):
        log.warning(
            "refused a webhook delivery that is not a JSON object (%d bytes)", len(handler.request.body)
        )
        raise tornado.web.HTTPError(400, reason="Update is not a JSON object")
    await _PTB_POST(handler)


def _install() -> Any:
    """Put the refusal in front of PTB's handler once; PTB's own ``post`` is what it calls."""
    from telegram.ext._utils.webhookhandler import TelegramHandler

    original = getattr(TelegramHandler, "_ptb_post", TelegramHandler.post)
    TelegramHandler._ptb_post = original  # type: ignore[attr-defined]
    TelegramHandler.post = _post_refusing_malformed  # type: ignore[method-assign,assignment]
    return original


_PTB_POST = _install()  # this module is imported wherever the webhook starts (webhook_options)
