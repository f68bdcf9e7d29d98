"""The dialog core: one brain for every chat surface.

``Dialog.handle(state, text)`` and ``Dialog.press(state, payload)`` take the stored
conversation state and what the user sent, and return a plain :class:`Reply` plus the
new state. Surfaces (terminal, Telegram, Discord, web) only render replies and store
state; no rule lives in an adapter.
"""

from gpu_advisor.bot.dialog.core import Dialog
from gpu_advisor.bot.dialog.reply import Button, Reply
from gpu_advisor.bot.dialog.state import ConversationState

__all__ = ["Button", "ConversationState", "Dialog", "Reply"]
