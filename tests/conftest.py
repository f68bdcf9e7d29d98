"""Shared fixtures: the shipped knowledge base, loaded once; the loopback Bot API and its first user."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import knowledge
from engine.specs import Knowledge
from tests.fakes import FakeTelegram, User


@pytest.fixture(scope="session")
def kb() -> Knowledge:
    return knowledge.load()


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
def alice(tg: FakeTelegram) -> User:
    return tg.user(42, "Alice")
