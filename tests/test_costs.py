"""Issue 31, costs that grew: a one-shot ``ask`` loads no settings machinery, a big catalog is
parsed once per content, and the searches over a big catalog skip only offers that could
never show — their answers are the ones a walk over every offer gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bench.catalog_bench import WORKLOADS, generated_catalog, generated_offers
from gpu_advisor import knowledge
from gpu_advisor.engine import cost
from gpu_advisor.engine.architecture import resolve
from gpu_advisor.engine.candidates import Candidate, fan_out
from gpu_advisor.engine.catalog_index import CatalogIndex, engine_key
from gpu_advisor.engine.defaults import serve_setup
from gpu_advisor.engine.offer_search import Searches
from gpu_advisor.engine.recommend import recommend
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.validate import canonical
from gpu_advisor.engine.workload import Workload
from gpu_advisor.knowledge import catalogs
from gpu_advisor.knowledge.catalogs import CACHE_FROM_BYTES, with_catalog

ROOT = Path(__file__).resolve().parents[1]


# --- a one-shot ask ---------------------------------------------------------------------------------
def run_ask(**env: str) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys, contextlib, io\nfrom gpu_advisor.bot import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = cli.main(['ask', 'deploy a 13B model for 8 users 24/7', '--lang', 'en'])\n"
        "print(code, 'pydantic_settings' in sys.modules)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_one_shot_ask_does_not_load_the_settings_machinery() -> None:
    assert run_ask().stdout.split() == ["0", "False"]


def test_a_one_shot_ask_still_refuses_a_bad_log_format() -> None:
    out = run_ask(GPU_ADVISOR_LOG_FORMAT="xml")
    assert out.returncode != 0 and "GPU_ADVISOR_LOG_FORMAT" in out.stderr


# --- reading a big catalog -----------------------------------------------------------------------------
@pytest.fixture
def big_yaml(tmp_path: Path, kb: Knowledge) -> Path:
    data = {"operator": "big", "offers": generated_offers(1_200), "fx_to_cny": dict(kb.catalog.fx_to_cny)}
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert path.stat().st_size >= CACHE_FROM_BYTES
    return path


def test_a_big_yaml_catalog_is_parsed_once_and_then_read_from_the_cache(
    big_yaml: Path, kb: Knowledge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    first = catalogs.read_file(big_yaml, kb)

    def no_yaml(text: str) -> object:
        raise AssertionError("parsed again")

    monkeypatch.setattr(catalogs, "yaml_load", no_yaml)
    assert catalogs.read_file(big_yaml, kb) == first


def test_an_edited_catalog_is_parsed_again(
    big_yaml: Path, kb: Knowledge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    catalogs.read_file(big_yaml, kb)
    big_yaml.write_text(big_yaml.read_text(encoding="utf-8").replace("big", "edited", 1), encoding="utf-8")
    assert catalogs.read_file(big_yaml, kb).operator == "edited"


def test_an_unwritable_cache_gives_the_same_catalog(
    big_yaml: Path, kb: Knowledge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(blocked / "cache"))
    assert len(catalogs.read_file(big_yaml, kb).offers) == 1_200


def test_a_json_catalog_is_read_without_the_yaml_parser(
    kb: Knowledge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"operator": "json", "offers": generated_offers(30)}), encoding="utf-8")

    def no_yaml(text: str) -> object:
        raise AssertionError("went through YAML")

    monkeypatch.setattr(catalogs, "yaml_load", no_yaml)
    assert len(catalogs.read_file(path, kb).offers) == 30


# --- searching a big catalog ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def big_kb() -> Knowledge:
    kb = knowledge.load()
    return with_catalog(kb, generated_catalog(1_000, kb))


def every_offer_searched(kb: Knowledge) -> Knowledge:
    """The same catalog whose index searches every pruned offer (no never-cheaper drop)."""
    catalog = kb.catalog.model_copy()
    index = catalog.index
    catalog._index = CatalogIndex(index.offers, list(index.offers), index.by_engine_key, index.by_gpu_count)
    return kb.model_copy(update={"catalog": catalog})


def test_the_never_cheaper_drop_leaves_fewer_offers_to_search(big_kb: Knowledge) -> None:
    assert len(big_kb.catalog.index.searched) < len(big_kb.catalog.index.offers)


@pytest.mark.parametrize("name", [name for name, _ in WORKLOADS])
def test_a_plan_over_the_searched_offers_is_the_plan_over_every_offer(name: str, big_kb: Knowledge) -> None:
    w = dict(WORKLOADS)[name]
    assert recommend(w, big_kb) == recommend(w, every_offer_searched(big_kb))


@pytest.mark.parametrize("duration", [None, 200.0])
def test_serving_candidates_over_the_priced_offers_are_those_over_every_offer(
    duration: float | None, big_kb: Knowledge
) -> None:
    w = canonical(
        Workload(task="infer", params_b=13, always_on=duration is None, duration_hours=duration), big_kb
    )
    arch = resolve(w, big_kb.models).arch
    s, _ = serve_setup(w, arch)
    searches = Searches(arch, big_kb)
    sized = searches._sized(s, s, duration)
    every = fan_out(searches.offers, lambda o: sized.get(engine_key(o), []), lambda _: duration)
    assert searches.serve(s, duration) == every
    assert len(searches._priced(duration)) < len(searches.offers)


def test_the_cheapest_serving_pick_is_the_cheapest_over_every_offer(big_kb: Knowledge) -> None:
    w = canonical(Workload(task="infer", params_b=13, always_on=True), big_kb)
    arch = resolve(w, big_kb.models).arch
    s, _ = serve_setup(w, arch)
    searches = Searches(arch, big_kb)
    every = [c for c in searches.serve(s, None) if c.meets_latency]
    picked = searches.serve_cheapest(s, None, s)
    assert picked is not None
    assert _cny(picked, big_kb) == min(_cny(c, big_kb) for c in every)


def _cny(c: Candidate, kb: Knowledge) -> float:
    return cost.in_cny(c.monthly, kb.catalog.fx_to_cny)


def test_the_shipped_knowledge_is_read_from_the_parse_cache_after_the_first_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    knowledge._shipped.cache_clear()
    first = knowledge._shipped()

    def no_yaml(text: str) -> object:
        raise AssertionError("parsed again")

    monkeypatch.setattr(catalogs, "yaml_load", no_yaml)
    knowledge._shipped.cache_clear()
    try:
        assert knowledge._shipped() == first
    finally:
        knowledge._shipped.cache_clear()


def test_version_is_answered_without_running_a_command() -> None:
    argv = [sys.executable, "-m", "gpu_advisor.bot.cli", "--version"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("gpu-advisor ")
