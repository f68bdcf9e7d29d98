"""Catalogs for the light-job tests: the shipped knowledge with a price list of the tests' own."""

from __future__ import annotations

from typing import Any

from gpu_advisor.engine.specs import Catalog, Knowledge
from gpu_advisor.knowledge.catalogs import with_catalog


def offer(gpu: str, price_month: float, count: int = 1, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{gpu}-{count}x",
        "gpu": gpu,
        "count": count,
        "interconnect": "none" if count == 1 else "pcie",
        "price_month": price_month,
        "source": "test catalog",
        **extra,
    }


def catalog_of(kb: Knowledge, *offers: dict[str, Any]) -> Knowledge:
    """``kb`` with only ``offers`` for sale."""
    return with_catalog(
        kb,
        Catalog.model_validate(
            {"operator": "test", "offers": list(offers), "fx_to_cny": kb.catalog.fx_to_cny}
        ),
    )
