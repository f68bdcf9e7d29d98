"""knowledge/diffusion.yaml is validated at load: every number has its source, rows name known
models and cards, and each family keeps held-out rows apart from the fit."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_advisor.engine.jobs.diffusion import DiffusionBook
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.jobs import DIFFUSION_FILE, diffusion_from
from gpu_advisor.knowledge.reading import KnowledgeError


@pytest.fixture
def raw() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("gpu_advisor.knowledge").joinpath(DIFFUSION_FILE).read_text(encoding="utf-8")
    return yaml.safe_load(text)  # type: ignore[no-any-return]


def test_every_model_and_row_cites_a_source(book: DiffusionBook) -> None:
    sources = [r.source for r in book.models.values()] + [r.source for r in book.speeds]
    sources += [r.source for r in book.memory] + [f.source for f in book.fits.values()]
    assert all(sources) and book.sequence_parallel.source and book.vae_decode.source


def test_every_measured_row_names_a_published_page(book: DiffusionBook) -> None:
    assert all("https://" in row.source for row in book.speeds) and all(
        "https://" in r.source for r in book.memory
    )


def test_every_speed_row_is_on_a_card_the_knowledge_holds(book: DiffusionBook, kb: Knowledge) -> None:
    assert {row.gpu for row in book.speeds} <= kb.gpus.keys()


@pytest.mark.parametrize("kind", ["image", "video"])
def test_each_family_has_fit_and_holdout_rows(book: DiffusionBook, kind: str) -> None:
    splits = {r.split for r in book.speeds if book.models[r.model].kind == kind}
    assert splits == {"fit", "holdout"}


def test_a_row_naming_an_unknown_model_is_refused_at_load(raw: dict[str, Any]) -> None:
    raw["speeds"][0]["model"] = "sd9"
    with pytest.raises(KnowledgeError, match="unknown models"):
        diffusion_from(raw)


def test_a_model_without_a_source_is_refused_naming_the_field(raw: dict[str, Any]) -> None:
    del raw["models"][0]["source"]
    with pytest.raises(KnowledgeError) as err:
        diffusion_from(raw)
    assert err.value.field is not None and err.value.field.endswith("source")


def test_a_negative_parameter_count_is_refused(raw: dict[str, Any]) -> None:
    raw["models"][1]["params_b"] = -2.6
    with pytest.raises(KnowledgeError, match="params_b"):
        diffusion_from(raw)


def test_models_are_found_by_the_names_people_use(book: DiffusionBook) -> None:
    names = {"SDXL": "sdxl", "Flux.1 dev": "flux1-dev", "Wan2.1-T2V-14B": "wan21-t2v-14b", "可图": "kolors"}
    assert {name: (book.find(name) or book.models["sd15"]).id for name in names} == names
