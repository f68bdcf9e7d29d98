"""The operator's own price list: YAML like ``knowledge/catalog.yaml``, or one CSV row per offer.

One reader for every way a catalog arrives — ``--catalog FILE`` on the command line and
in ``$GPU_ADVISOR_CATALOG``, the Telegram ``/reload_catalog`` command, the web admin
``PUT /v1/catalog`` — so each refuses the same catalogs with the same words.

CSV columns are ``Offer`` field names (gpu, count, interconnect, price_month,
price_hour, currency, yearly_discount, min_rental_hours, order_url, id, source, …);
blank cells take the field's default, a blank ``id`` becomes ``<gpu>-<count>x`` and a
blank ``source`` names the upload. Quantities may carry units (``ram_gb: 512 GB``,
``network_gbps: 25 Gbit/s``). A rejected catalog raises ``CatalogError`` naming the
1-based offer ``row`` and the ``field``; the caller keeps the catalog it had. Accepted
catalogs replace only the prices: GPUs, models and runtimes stay.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from pydantic import ValidationError

from gpu_advisor.engine.specs import Catalog, Knowledge, Offer
from gpu_advisor.knowledge.reading import CatalogError, first_error, yaml_load

CSV_TYPES = {"text/csv", "application/csv"}
YAML_TYPES = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "application/json"}
REQUIRED_COLUMNS = ("gpu", "count", "interconnect")
UPLOAD_SOURCE = "operator price list (uploaded)"


def _rejected(exc: ValidationError, row: int | None) -> CatalogError:
    field, message = first_error(exc)
    where = f"row {row}: " if row else ""
    return CatalogError(f"{where}{field or 'offer'}: {message}", field, row)


def _offer(raw: Any, row: int) -> Offer:
    if not isinstance(raw, dict):
        raise CatalogError(f"row {row}: an offer must be a mapping of fields", None, row)
    try:
        return Offer.model_validate(raw)
    except ValidationError as exc:
        raise _rejected(exc, row) from exc


def check(offers: list[Offer], kb: Knowledge, fx: Iterable[str]) -> None:
    """What the Offer model cannot see alone: unique ids, known GPUs, priced currencies, order links."""
    seen: set[str] = set()
    rates = set(fx)
    for row, o in enumerate(offers, start=1):
        if o.id in seen:
            raise CatalogError(f"row {row}: offer id {o.id!r} appears twice", "id", row)
        seen.add(o.id)
        if o.gpu not in kb.gpus:
            raise CatalogError(f"row {row}: unknown gpu {o.gpu!r}; known: {', '.join(kb.gpus)}", "gpu", row)
        if o.currency not in rates:
            raise CatalogError(f"row {row}: no fx_to_cny rate for currency {o.currency}", "currency", row)
        url = urlsplit(o.order_url or "https://x")
        if url.scheme not in ("http", "https") or not url.netloc:
            raise CatalogError(f"row {row}: order_url must be an http(s) URL", "order_url", row)


def _csv_rows(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    known = Offer.model_fields.keys()
    for column in (*REQUIRED_COLUMNS, "price_month|price_hour"):
        if not set(column.split("|")) & set(columns):
            raise CatalogError(f"CSV header lacks column {column.replace('|', ' or ')}", column.split("|")[0])
    unknown = [c for c in columns if c not in known]
    if unknown:
        raise CatalogError(f"unknown CSV column {unknown[0]!r}; columns are Offer fields", unknown[0])
    reader.fieldnames = columns
    return [{k: v.strip() for k, v in r.items() if k and isinstance(v, str) and v.strip()} for r in reader]


def from_csv(text: str, operator: str | None, kb: Knowledge) -> Catalog:
    offers = []
    for row, cells in enumerate(_csv_rows(text), start=1):
        cells.setdefault("id", f"{cells.get('gpu', 'offer')}-{cells.get('count', '1')}x")
        cells.setdefault("source", UPLOAD_SOURCE)
        offers.append(_offer(cells, row))
    if not offers:
        raise CatalogError("the CSV has a header but no offers", "offers")
    base = kb.catalog
    check(offers, kb, base.fx_to_cny)
    currencies = {o.currency for o in offers}
    return Catalog(
        operator=operator or "operator catalog",
        currency=currencies.pop() if len(currencies) == 1 else base.currency,
        offers=offers,
        fx_to_cny=base.fx_to_cny,
        fx_date=base.fx_date,
        fx_source=base.fx_source,
    )


def from_yaml(text: str, kb: Knowledge) -> Catalog:
    try:
        data = yaml_load(text)
    except yaml.YAMLError as exc:
        raise CatalogError(f"not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("offers"), list) or not data["offers"]:
        raise CatalogError("expected a mapping with a non-empty 'offers' list", "offers")
    try:
        meta = Catalog.model_validate({**data, "offers": []})  # operator, currency, fx_to_cny, addons
    except ValidationError as exc:
        raise _rejected(exc, None) from exc
    offers = [_offer(raw, row) for row, raw in enumerate(data["offers"], start=1)]
    check(offers, kb, meta.fx_to_cny)
    return meta.model_copy(update={"offers": offers})


def parse_upload(body: bytes, content_type: str, operator: str | None, kb: Knowledge) -> Catalog:
    """An uploaded catalog (web ``PUT``): CSV by its content type, YAML otherwise."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CatalogError("the catalog is not UTF-8 text") from exc
    return from_csv(text, operator, kb) if content_type in CSV_TYPES else from_yaml(text, kb)


def read_file(path: str | Path, kb: Knowledge) -> Catalog:
    """``--catalog FILE``: CSV by its ``.csv`` suffix, YAML otherwise; refusals name the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
        return from_csv(text, p.stem, kb) if p.suffix.lower() == ".csv" else from_yaml(text, kb)
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"cannot read it: {exc}", "catalog", file=str(p)) from exc
    except CatalogError as exc:
        raise exc.in_file(str(p)) from exc


def with_catalog(kb: Knowledge, catalog: Catalog) -> Knowledge:
    """The same GPUs, models and runtimes with another price list (already checked against them)."""
    return kb.model_copy(update={"catalog": catalog})
