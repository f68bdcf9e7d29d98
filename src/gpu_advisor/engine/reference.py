"""Dated reference prices: what hardware costs to buy, what a hosted API charges per token.

The catalog says what renting costs; buying and calling an API need prices the catalog
does not hold. These records are the shape of ``knowledge/prices.yaml``: every price
carries the day it was quoted and where, because a purchase price two years old is a
different fact from today's, and the reply says both. Amounts stay in the currency they
were quoted in; the catalog's dated ``fx_to_cny`` table converts them at use.

Power for ownership comes from each card's TDP (``GpuSpec.tdp_w``) plus the rest of the
machine (CPUs, memory, disks, NICs, fans) from ``host_power``: the first row whose
``up_to_gpus`` holds the machine's card count.
"""

from __future__ import annotations

from datetime import date

from pydantic import Field, NonNegativeFloat, PositiveFloat, PositiveInt, model_validator

from gpu_advisor.engine.record import Record

__all__ = ["ApiPrice", "HardwarePrice", "HostPower", "PriceReference"]


class HardwarePrice(Record):
    """A purchase price: one card (``count`` 1, ``kind: card``) or a whole server of ``count`` cards."""

    id: str
    kind: str = Field(pattern=r"^(card|server)$")
    gpu: str
    count: PositiveInt = 1
    price: PositiveFloat
    price_max: PositiveFloat | None = None
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    date: date
    source: str = Field(min_length=8)

    @model_validator(mode="after")
    def _range(self) -> HardwarePrice:
        if self.price_max is not None and self.price_max < self.price:
            raise ValueError(f"{self.id}: price_max is below price")
        if self.kind == "card" and self.count != 1:
            raise ValueError(f"{self.id}: a card price is for one card")
        return self


class ApiPrice(Record):
    """A hosted model's list price per million tokens (input on a cache miss, output)."""

    id: str
    provider: str
    api_model: str
    model: str | None = Field(None, description="the knowledge model id it serves, when there is one")
    input_per_million: NonNegativeFloat
    output_per_million: PositiveFloat
    currency: str = Field(pattern=r"^[A-Z]{3}$")
    date: date
    source: str = Field(min_length=8)


class HostPower(Record):
    """Watts the rest of a machine draws besides its GPUs, for machines of up to ``up_to_gpus`` cards."""

    id: str
    up_to_gpus: PositiveInt
    other_w: PositiveFloat
    source: str = Field(min_length=8)


class Defaults(Record):
    """Operator defaults for what the user does not say: power price, PUE, depreciation."""

    electricity_per_kwh: PositiveFloat
    electricity_currency: str = Field(pattern=r"^[A-Z]{3}$")
    pue: float = Field(ge=1.0, le=3.0)
    depreciation_months: PositiveInt
    source: str = Field(min_length=8)


class PriceReference(Record):
    """The whole table: hardware, APIs, host power and defaults, each row dated and sourced."""

    hardware: list[HardwarePrice]
    apis: list[ApiPrice]
    host_power: list[HostPower]
    defaults: Defaults

    @model_validator(mode="after")
    def _sorted_power(self) -> PriceReference:
        sizes = [h.up_to_gpus for h in self.host_power]
        if not sizes or sizes != sorted(sizes):
            raise ValueError("host_power rows must be ordered by up_to_gpus, smallest first")
        return self

    def host_w(self, gpus: int) -> float:
        """Watts besides the GPUs for a machine of ``gpus`` cards (the largest row past the last)."""
        for row in self.host_power:
            if gpus <= row.up_to_gpus:
                return row.other_w
        return self.host_power[-1].other_w

    def server_price(self, gpu: str, count: int) -> HardwarePrice | None:
        """A whole server of ``count`` × ``gpu`` if listed, else None (see ``card_price``)."""
        servers = (h for h in self.hardware if h.kind == "server" and h.gpu == gpu)
        return next((h for h in servers if h.count == count), None)

    def card_price(self, gpu: str, currency: str | None = None) -> HardwarePrice | None:
        """One card's price, in ``currency`` when a row is quoted in it, else the first listed."""
        cards = [h for h in self.hardware if h.kind == "card" and h.gpu == gpu]
        same = [h for h in cards if h.currency == currency]
        found = same or cards
        return found[0] if found else None

    def api_for(self, model: str | None) -> ApiPrice | None:
        """The newest listed API price for ``model`` (a knowledge id)."""
        rows = [a for a in self.apis if model and a.model == model]
        return max(rows, key=lambda a: a.date) if rows else None
