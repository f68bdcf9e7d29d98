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

Reading a big YAML file is the slow part of a one-shot ``gpu-advisor --catalog FILE ask``:
PyYAML builds a Python object per event even with libyaml, 1.6 s for 10,000 offers (2.6 MB)
against 20 ms for the same data as JSON. So JSON text (a YAML subset) goes through ``json``,
and a YAML file of ``CACHE_FROM_BYTES`` or more is parsed once and kept as JSON in the user's
cache directory (``$GPU_ADVISOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/gpu-advisor``, else
``~/.cache/gpu-advisor``), named by the SHA-256 of its text, so an edited file is parsed
again and a cache that cannot be written is simply not used. The data is validated on every
load, cached or not. A CSV catalog needs none of this (the csv module is fast).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from gpu_advisor.engine.specs import Catalog, Knowledge, Offer
from gpu_advisor.knowledge.reading import CatalogError, first_error, yaml_load

CSV_TYPES = {"text/csv", "application/csv"}
YAML_TYPES = {"application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "application/json"}
REQUIRED_COLUMNS = ("gpu", "count", "interconnect")
UPLOAD_SOURCE = "operator price list (uploaded)"
_PLAIN_WEB_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:\d+)?([/?#]|$)")
CACHE_VARIABLE = "GPU_ADVISOR_CACHE_DIR"
CACHE_FROM_BYTES = 256 * 1024  # below this, parsing costs less than it is worth caching


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


def _web_url(url: str) -> bool:
    """An http(s) URL with a host; the common shape by a regex (10,000 offers: one ``urlsplit`` each
    cost more than validating them), anything else by ``urlsplit``."""
    if _PLAIN_WEB_URL.match(url):
        return True
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


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
        if not _web_url(o.order_url or "https://x"):
            raise CatalogError(f"row {row}: order_url must be an http(s) URL", "order_url", row)


def _csv_rows(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        columns = [c.strip().lower() for c in reader.fieldnames or []]
    except csv.Error as exc:
        raise _not_csv(exc, None) from exc
    known = Offer.model_fields.keys()
    for column in (*REQUIRED_COLUMNS, "price_month|price_hour"):
        if not set(column.split("|")) & set(columns):
            raise CatalogError(f"CSV header lacks column {column.replace('|', ' or ')}", column.split("|")[0])
    unknown = [c for c in columns if c not in known]
    if unknown:
        raise CatalogError(f"unknown CSV column {unknown[0]!r}; columns are Offer fields", unknown[0])
    reader.fieldnames = columns
    rows: list[dict[str, str]] = []
    try:
        for r in reader:
            rows.append({k: v.strip() for k, v in r.items() if k and isinstance(v, str) and v.strip()})
    except csv.Error as exc:
        raise _not_csv(exc, len(rows) + 1) from exc
    return rows


def _not_csv(exc: csv.Error, row: int | None) -> CatalogError:
    """The csv module's refusal said for an operator: its field cap (128 KiB) is far above any
    offer's field, so a field that long is a broken file, not a catalog to read."""
    where = f"row {row}: " if row else "header: "
    if "field limit" in str(exc):
        longest = f"{csv.field_size_limit():,}"
        reason = f"a field is longer than {longest} characters (an unclosed quote?)"
        return CatalogError(where + reason, row=row)
    return CatalogError(f"{where}not valid CSV: {exc}", row=row)


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


def _cache_dir() -> Path | None:
    named = os.environ.get(CACHE_VARIABLE) or os.environ.get("XDG_CACHE_HOME")
    if named:
        return Path(named) / ("" if os.environ.get(CACHE_VARIABLE) else "gpu-advisor")
    home = os.environ.get("HOME")
    return Path(home, ".cache", "gpu-advisor") if home else None


def _tagged(value: object) -> dict[str, str]:
    """What JSON lacks and YAML has: dates and timestamps, tagged so they come back as such."""
    if isinstance(value, dt.datetime):
        return {"__datetime__": value.isoformat()}
    if isinstance(value, dt.date):
        return {"__date__": value.isoformat()}
    raise TypeError(f"{type(value).__name__} is not cacheable")


def _untagged(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and "__date__" in obj:
        return dt.date.fromisoformat(obj["__date__"])
    if len(obj) == 1 and "__datetime__" in obj:
        return dt.datetime.fromisoformat(obj["__datetime__"])
    return obj


def parsed(text: str, cache_from: int = CACHE_FROM_BYTES) -> Any:
    """The catalog text as data: JSON by ``json``, a YAML text of ``cache_from`` characters or
    more once per content (see above)."""
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except ValueError:
            pass  # YAML flow style, not JSON
    folder = _cache_dir() if len(text) >= cache_from else None
    if folder is None:
        return yaml_load(text)
    kept = folder / f"catalog-{hashlib.sha256(text.encode()).hexdigest()}.json"
    try:
        return json.loads(kept.read_text(encoding="utf-8"), object_hook=_untagged)
    except (OSError, ValueError):
        pass  # not cached yet (or unreadable): parse it
    data = yaml_load(text)
    try:
        payload = json.dumps(data, default=_tagged, ensure_ascii=False)
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, encoding="utf-8") as tmp:
            tmp.write(payload)
        os.replace(tmp.name, kept)  # whole or not at all, whoever reads it meanwhile
    except (OSError, TypeError, ValueError):
        pass  # a read-only home, a value JSON cannot hold: no cache, same answer
    return data


def from_yaml(text: str, kb: Knowledge) -> Catalog:
    import yaml  # its error class; the parse itself may come from the cache

    try:
        data = parsed(text)
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
