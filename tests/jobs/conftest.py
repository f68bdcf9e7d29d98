"""The diffusion knowledge and a price list with consumer and 80 GB cards, for the job tests."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.specs import Catalog, Knowledge
from gpu_advisor.knowledge.catalogs import with_catalog
from gpu_advisor.knowledge.jobs import diffusion


def offer(gpu: str, price_month: float, count: int = 1) -> dict[str, Any]:
    return {
        "id": f"{gpu}-{count}x",
        "gpu": gpu,
        "count": count,
        "interconnect": "none" if count == 1 else "nvswitch",
        "price_month": price_month,
        "source": "test catalog",
    }


@pytest.fixture(scope="session")
def book() -> DiffusionBook:
    return diffusion()


@pytest.fixture(scope="session")
def wide(kb: Knowledge) -> Knowledge:
    """Consumer, inference and 80 GB cards side by side, at round monthly prices."""
    offers = [
        offer("rtx4090", 2000),
        offer("rtx3090", 1750),
        offer("l40s", 5000),
        offer("a100-80g-sxm", 6000),
        offer("h100-sxm", 12000),
        offer("h100-sxm", 96000, count=8),
    ]
    catalog = Catalog.model_validate(
        {"operator": "test", "offers": offers, "fx_to_cny": kb.catalog.fx_to_cny}
    )
    return with_catalog(kb, catalog)
