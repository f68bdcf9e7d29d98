"""Shared fixtures: the shipped knowledge base, loaded once."""

from __future__ import annotations

import pytest

import knowledge
from engine.specs import Knowledge


@pytest.fixture(scope="session")
def kb() -> Knowledge:
    return knowledge.load()
