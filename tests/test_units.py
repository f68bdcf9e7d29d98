"""Quantities at the boundaries: knowledge YAML and the JSON contract write units, pint reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from gpu_advisor import knowledge
from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.engine.specs import GpuSpec, Offer
from gpu_advisor.engine.units import SPELLINGS, magnitude, registry
from gpu_advisor.knowledge.catalogs import parse_upload
from gpu_advisor.knowledge.reading import KnowledgeError, record

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = json.loads((ROOT / "tests" / "knowledge_magnitudes.json").read_text(encoding="utf-8"))


def shipped_entry(gpu_id: str) -> dict[str, Any]:
    entries = yaml.safe_load(
        (ROOT / "src" / "gpu_advisor" / "knowledge" / "gpus.yaml").read_text(encoding="utf-8")
    )
    return next(e for e in entries if e["id"] == gpu_id)


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_every_memoised_spelling_is_what_pint_says(spelling: str) -> None:
    base, factor = SPELLINGS[spelling]
    assert registry().Quantity(1.0, spelling).to(base).magnitude == pytest.approx(factor, rel=1e-12)


@pytest.mark.parametrize(
    ("text", "unit", "expected"),
    [
        ("3.35 TB/s", "GB/s", 3350.0),  # H100 SXM datasheet prints 3.35TB/s
        ("3.35 terabyte/second", "GB/s", 3350.0),  # pint's own spelling, not memoised
        ("80 GB", "GiB", 80e9 / 2**30),
        ("25 Gbit/s", "GB/s", 3.125),
        ("128k tokens", "token", 128_000.0),
        ("3 days", "h", 72.0),
        ("2 s", "ms", 2000.0),
        ("700 W", "W", 700.0),
    ],
)
def test_a_quantity_in_any_unit_arrives_in_the_fields_unit(text: str, unit: str, expected: float) -> None:
    assert magnitude(text, unit) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("text", "unit", "words"),
    [
        ("80 GB", "GB/s", "not a quantity in GB/s"),  # memoised spellings, wrong kind
        ("80 gigabyte", "GB/s", "not a quantity in GB/s"),  # pint's verdict
        ("80 florps", "GB", "unknown unit 'florps'"),
        ("fast", "GB/s", "does not start with a number"),
    ],
)
def test_a_quantity_of_the_wrong_kind_is_refused_in_words(text: str, unit: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        magnitude(text, unit)


def test_every_shipped_magnitude_is_what_it_was_before_the_units_were_written() -> None:
    kb = knowledge.load()
    records: dict[str, dict[str, Any]] = {
        "gpus": kb.gpus,
        "runtimes": kb.runtimes,
        "offers": {o.id: o for o in kb.catalog.offers},
    }
    for kind, entries in records.items():
        # Entries added since the conversion (a new runtime, a new card) are not the
        # conversion's business; every entry that existed must read exactly as before.
        assert set(SNAPSHOT[kind]) <= set(entries), kind
        for entry_id, fields in SNAPSHOT[kind].items():
            now = {f: getattr(entries[entry_id], f) for f in fields}
            assert now == fields, (kind, entry_id)
            assert [type(v) for v in now.values()] == [type(v) for v in fields.values()], (kind, entry_id)


def test_a_bandwidth_written_in_gigabytes_is_a_load_error_naming_file_entry_and_field() -> None:
    entry = {**shipped_entry("h100-sxm"), "bandwidth_gbs": "3350 GB"}
    with pytest.raises(KnowledgeError) as caught:
        record(GpuSpec, entry, "gpus.yaml", 7)
    err = caught.value
    assert (err.file, err.entry, err.field) == ("gpus.yaml", "h100-sxm", "bandwidth_gbs")
    assert "gpus.yaml, entry h100-sxm, field bandwidth_gbs: '3350 GB' is not a quantity in GB/s" in str(err)
    assert err.payload["error"]["code"] == "bad_knowledge"


def test_an_operator_may_still_write_bare_numbers_in_the_fields_unit() -> None:
    written = {**shipped_entry("h100-sxm"), "bandwidth_gbs": "3.35 TB/s", "memory_gb": "80 GB"}
    bare = {**written, "bandwidth_gbs": 3350, "memory_gb": 80}
    assert GpuSpec.model_validate(written) == GpuSpec.model_validate(bare)


def test_an_uploaded_csv_may_carry_units_and_bare_cells_stay_numbers() -> None:
    body = "gpu,count,interconnect,price_month,ram_gb,network_gbps,min_rental_hours\n"
    body += "h100-sxm,8,nvswitch,80000,2 TB,400 Gbit/s,720\n"
    catalog = parse_upload(body.encode(), "text/csv", "acme", knowledge.load())
    offer = catalog.offers[0]
    assert (offer.ram_gb, offer.network_gbps, offer.min_rental_hours) == (2000, 400.0, 720.0)


def test_a_slice_memory_in_watts_names_the_field() -> None:
    with pytest.raises(ValidationError, match="slice_memory_gib"):
        Offer.model_validate(
            {"id": "x", "gpu": "a100-40g-sxm", "count": 1, "interconnect": "none", "price_month": 1}
            | {"mig_profile": "1g.5gb", "slice_memory_gib": "5 W", "source": "test"}
        )


def test_loading_the_shipped_knowledge_does_not_build_pints_registry() -> None:
    """A one-shot ``gpu-advisor ask`` stays fast: the shipped spellings are memoised."""
    code = "import sys; from gpu_advisor import knowledge; knowledge.load()\n"
    code += "print('pint' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_contract_reads_quantities_written_with_units_as_their_numbers() -> None:
    written = '{"task": "infer", "params_b": 7, "context_len": "128k tokens", "duration_hours": "3 days",'
    written += ' "ttft_ms_max": "2 s", "budget": "3 USD/hour"}'
    numbers = {"task": "infer", "params_b": 7, "context_len": 128000, "duration_hours": 72}
    numbers |= {"ttft_ms_max": 2000, "budget": {"amount": 3, "currency": "USD", "per": "hour"}}
    assert parse_workload(written) == parse_workload(json.dumps(numbers))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20000 CNY/month", {"amount": 20000.0, "currency": "CNY", "per": "month"}),
        ("500 usd total", {"amount": 500.0, "currency": "USD", "per": "total"}),
        ("72 USD per day", {"amount": 3.0, "currency": "USD", "per": "hour"}),
    ],
)
def test_a_budget_may_be_written_as_text(text: str, expected: dict[str, Any]) -> None:
    workload = parse_workload(json.dumps({"task": "infer", "params_b": 7, "budget": text}))
    assert workload.budget is not None and workload.budget.model_dump() == expected


@pytest.mark.parametrize(
    ("field", "value"),
    [("context_len", "3 GB"), ("context_len", "4096"), ("duration_hours", "3 GB"), ("budget", "lots")],
)
def test_a_quantity_the_contract_cannot_read_names_its_field(field: str, value: str) -> None:
    with pytest.raises(ContractError) as caught:
        parse_workload(json.dumps({"task": "infer", "params_b": 7, field: value}))
    assert caught.value.payload["error"]["field"] == field
    assert caught.value.payload["error"]["code"] == "invalid_input"


@pytest.mark.parametrize("spelled", ["(", "))", "((((", "tokens/(", "a" * 500])
def test_an_unparseable_unit_is_a_value_error_naming_the_text(spelled: str) -> None:
    # "1 (" made pint's tokenizer raise TokenError, a 500 from /api/estimate (schemathesis found it).
    with pytest.raises(ValueError, match="unknown unit"):
        magnitude(f"1 {spelled}", "tokens")
