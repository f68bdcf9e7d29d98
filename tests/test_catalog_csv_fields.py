"""A CSV catalog the csv module cannot read is refused with a 422 naming the row, never a 500 (issue 40).

The csv module caps a field at 131,072 characters (128 KiB); an unclosed quotation mark
runs a field to the end of the file and past that cap. The admin upload and ``--catalog``
both read through ``knowledge.catalogs.from_csv``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_advisor import knowledge
from gpu_advisor.knowledge import CatalogError
from gpu_advisor.knowledge.catalogs import read_file
from tests.test_web_api import CSV_CATALOG, YAML_CATALOG, serving, upload

LONG = "x" * (128 * 1024 + 1)


async def test_an_uploaded_csv_field_over_128_kib_is_refused_naming_its_row(tmp_path: Path) -> None:
    body = CSV_CATALOG.replace("our list 2026-12", f'"{LONG}"', 1)
    async with serving(tmp_path) as client:
        await upload(client, YAML_CATALOG, "application/yaml")
        response = await upload(client, body, "text/csv")
        error = (await response.json())["error"]
        catalog = await (await client.get("/api/catalog")).json()
    assert response.status == 422 and error["code"] == "bad_catalog" and error["row"] == 1
    assert "131,072 characters" in error["message"]
    assert catalog["operator"] == "Example Cloud"  # the catalog it had stays


async def test_an_unclosed_quotation_mark_in_the_header_is_refused(tmp_path: Path) -> None:
    async with serving(tmp_path) as client:
        response = await upload(client, f'"{LONG}\n', "text/csv")
        error = (await response.json())["error"]
    assert response.status == 422 and error["code"] == "bad_catalog" and error["row"] is None


def test_a_catalog_file_with_a_field_over_128_kib_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(CSV_CATALOG + f't4-long,t4,1,none,500,,CNY,,,,"{LONG}\n', encoding="utf-8")
    with pytest.raises(CatalogError) as refused:
        read_file(path, knowledge.load())
    assert refused.value.row == 4 and "prices.csv" in str(refused.value)
