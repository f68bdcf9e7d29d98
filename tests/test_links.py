"""Deep links (``bot.links``): the payload a group's "/why in private" link carries, and what it opens."""

from __future__ import annotations

import pytest

from gpu_advisor.bot.links import MAX_PAYLOAD, Opened, opened, why_payload


def test_a_supergroup_id_round_trips_through_its_why_payload() -> None:
    payload = why_payload(-1001234567890)
    assert payload == "why_m1001234567890"
    assert opened(payload) == Opened(-1001234567890, "/why")


def test_the_longest_chat_id_fits_telegrams_start_parameter() -> None:
    payload = why_payload(-(2**63))
    assert len(payload) <= MAX_PAYLOAD and set(payload) <= set("abcdefghijklmnopqrstuvwxyz0123456789_")


@pytest.mark.parametrize(
    "payload", ["", "why_", "why_mm5", "why_5m", "why_abc", "why_m١٢", "ref_123", "why_m"]
)
def test_a_payload_that_is_not_our_deep_link_opens_nothing(payload: str) -> None:
    assert opened(payload) is None
