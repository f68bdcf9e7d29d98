"""Typed bot state for the Telegram handlers, as in python-telegram-bot's ``contexttypesbot.py``.

``context.bot_data`` is a ``BotData`` (not a dict with string keys): the handlers read
``context.bot_data.turn`` and mypy checks it. PTB creates it with no arguments when the
Application is built; ``build_application`` fills it in before any update arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from telegram.ext import CallbackContext, ContextTypes, ExtBot

if TYPE_CHECKING:
    from gpu_advisor.bot.dialog import Dialog
    from gpu_advisor.bot.store import Store
    from gpu_advisor.bot.telegram.config import TelegramConfig
    from gpu_advisor.bot.telegram.surface import TelegramChats
    from gpu_advisor.bot.turn import Turn


class BotData:
    """What every handler shares: the settings, the dialog (its knowledge), the store, the turn,
    and the surface that shows the turn's replies."""

    config: TelegramConfig
    dialog: Dialog  # dialog.kb is the active knowledge; /reload_catalog swaps it
    store: Store  # the turns read and write it (workers through their own connections)
    turn: Turn
    chats: TelegramChats


Context = CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]
CONTEXT_TYPES = ContextTypes(bot_data=BotData)
