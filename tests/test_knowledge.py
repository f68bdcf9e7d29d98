"""The knowledge base loads, validates, and carries a source for every record."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpu_advisor import knowledge
from gpu_advisor.engine.param_count import counted_params
from gpu_advisor.engine.specs import Knowledge

REQUIRED_GPUS = {
    "t4",
    "l4",
    "a10",
    "l20",
    "l40s",
    "rtx3090",
    "rtx4090",
    "a100-40g-sxm",
    "a100-40g-pcie",
    "a100-80g-sxm",
    "a100-80g-pcie",
    "a800-80g-sxm",
    "h100-sxm",
    "h100-pcie",
    "h800-sxm",
    "h20",
    "h200-sxm",
    "b200",
    "v100-32g-sxm",
    "rtx4090d",
    "rtx4090-48g",
    "rtx5090",
    "a6000",
    "rtx6000ada",
    "rtxpro6000",
    "a800-40g-pcie",
    "a800-80g-pcie",
    "h800-pcie",
    "h20-141g",
    "h200-nvl",
    "mi300x",
    "ascend-910b",
}
REQUIRED_MODELS = {
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "llama-3-8b",
    "llama-3-70b",
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "qwen2.5-0.5b",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "mistral-7b",
    "mixtral-8x7b",
    "gemma-2-9b",
    "gemma-2-27b",
    "deepseek-r1-distill-qwen-7b",
    "deepseek-r1-distill-qwen-14b",
    "deepseek-r1-distill-qwen-32b",
    "chatglm3-6b",
    "phi-3-mini",
    "yi-34b",
}


def test_required_gpus_and_models_are_present(kb: Knowledge) -> None:
    assert not REQUIRED_GPUS - kb.gpus.keys()
    assert not REQUIRED_MODELS - kb.models.keys()


def test_every_record_names_its_source(kb: Knowledge) -> None:
    records = [*kb.gpus.values(), *kb.models.values(), *kb.runtimes.values(), *kb.catalog.offers]
    assert all(len(r.source) >= 4 for r in records)


def test_aliases_never_point_at_two_records(kb: Knowledge) -> None:
    for table in (kb.gpus, kb.models):
        names = [n for rec in table.values() for n in (rec.id, *rec.aliases)]
        assert len(names) == len(set(names))


def test_sparse_figures_are_not_stored_as_dense(kb: Knowledge) -> None:
    # H100 SXM: 989 dense BF16 TFLOPS (1979 is "with sparsity"); A100: 312 dense; T4 INT8 130 TOPS.
    assert kb.gpus["h100-sxm"].tflops("bf16") == pytest.approx(989.5, rel=0.01)
    assert kb.gpus["a100-80g-sxm"].tflops("bf16") == pytest.approx(312)
    assert kb.gpus["t4"].tflops("int8") == pytest.approx(130)


def test_nvlink_figures_follow_the_datasheets(kb: Knowledge) -> None:
    assert kb.gpus["a100-80g-sxm"].nvlink_gbs == 600
    assert kb.gpus["h100-sxm"].nvlink_gbs == 900
    assert kb.gpus["a800-80g-sxm"].nvlink_gbs == 400
    assert kb.gpus["t4"].nvlink_gbs == 0
    # Bridged pairs of PCIe cards: A100 PCIe datasheet 600 GB/s; A800 cut to 400 GB/s.
    assert kb.gpus["a100-80g-pcie"].nvlink_bridge_gbs == 600
    assert kb.gpus["a800-80g-pcie"].nvlink_bridge_gbs == 400


@pytest.mark.parametrize("model_id", sorted(REQUIRED_MODELS))
def test_model_shapes_add_up_to_their_published_parameter_counts(kb: Knowledge, model_id: str) -> None:
    arch = kb.models[model_id]
    assert counted_params(arch) / 1e9 == pytest.approx(arch.params_b, rel=0.03)


def test_default_catalog_carries_the_seed_prices(kb: Knowledge) -> None:
    prices = {o.id: o.price_month for o in kb.catalog.offers}
    assert prices["t4-1x"] == 900 and prices["rtx3090-1x"] == 1750 and prices["a100-40g-1x"] == 2800
    assert prices["a100-40g-2x"] == 5600 and prices["a100-40g-mig-1g"] == 210
    assert prices["h100-sxm-8x"] == 80_000


def test_an_operator_catalog_replaces_the_default(tmp_path: Path) -> None:
    own = {
        "operator": "acme",
        "offers": [
            {
                "id": "l4-1",
                "gpu": "l4",
                "count": 1,
                "interconnect": "none",
                "price_hour": 4.5,
                "min_rental_hours": 1,
                "source": "acme list",
            }
        ],
    }
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(own))
    kb = knowledge.load(str(path))
    assert [o.id for o in kb.catalog.offers] == ["l4-1"]


def test_a_broken_catalog_is_reported_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("operator: x\noffers:\n  - id: a\n    gpu: t4\n")
    with pytest.raises(knowledge.KnowledgeError, match=r"bad\.yaml"):
        knowledge.load(str(path))


def test_a_catalog_naming_an_unknown_gpu_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "operator": "x",
                "offers": [
                    {
                        "id": "a",
                        "gpu": "tpu-v5",
                        "count": 1,
                        "interconnect": "none",
                        "price_month": 1,
                        "source": "acme list",
                    }
                ],
            }
        )
    )
    with pytest.raises(knowledge.KnowledgeError, match="tpu-v5"):
        knowledge.load(str(path))
