"""The conversation's slots are typed over the Workload's fields (issue 25)."""

from __future__ import annotations

import pytest

from gpu_advisor import locales
from gpu_advisor.bot.dialog.slots import EXTRA_SLOTS, Slots
from gpu_advisor.bot.dialog.state import ConversationState
from gpu_advisor.engine.workload import Workload


def test_the_slots_are_exactly_the_workload_fields_and_the_dialogs_own() -> None:
    assert set(Slots.__annotations__) == set(Workload.model_fields) | EXTRA_SLOTS


def test_a_stored_state_keeps_its_slots_through_a_round_trip() -> None:
    state = ConversationState.model_validate(
        {
            "slots": {
                "params_b": 13,
                "concurrency": 8,
                "budget": {"amount": 5000, "currency": "CNY", "per": "month"},
            }
        }
    )
    again = ConversationState.model_validate_json(state.model_dump_json())
    assert again.slots == {
        "params_b": 13.0,
        "concurrency": 8,
        "budget": {"amount": 5000.0, "currency": "CNY", "per": "month"},
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_slot_has_a_name_to_echo(lang: str) -> None:
    """The confirmation line names each understood slot in words, never as ``slot.<key>``."""

    assert [k for k in Slots.__annotations__ if not locales.has(lang, f"slot.{k}")] == []
