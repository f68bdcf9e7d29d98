"""Answer the question that was asked (issue 17) before the requirement flow runs.

A yes/no question about named hardware gets its verdict (``bot.dialog.verdicts``); a
concept question gets its short answer with numbers (``bot.dialog.faq``); anything
else is a requirement and goes on to ``Dialog._understand``'s slot reading.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_advisor.bot.dialog import faq, verdicts
from gpu_advisor.bot.dialog.reply import Reply
from gpu_advisor.bot.dialog.state import ConversationState

if TYPE_CHECKING:
    from gpu_advisor.bot.dialog.core import Dialog


def direct_answer(
    dialog: Dialog, state: ConversationState, text: str
) -> tuple[Reply, ConversationState] | None:
    """The verdict or the concept answer for ``text``, or None when it states a requirement."""
    return verdicts.answer(dialog, state, text) or faq.answer(dialog, state, text)
