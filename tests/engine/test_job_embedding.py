"""Embedding and reranker jobs: tokens/s per card, indexing a collection, a live query service."""

from __future__ import annotations

import pytest

from gpu_advisor.engine.jobs import embedding
from gpu_advisor.engine.jobs.embedding import EmbeddingRequest
from gpu_advisor.engine.jobs.speeds import JobKnowledge, find_model
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.knowledge.job_speeds import load_jobs
from tests.engine.jobs_helpers import catalog_of, offer


@pytest.fixture(scope="module")
def jobs() -> JobKnowledge:
    return load_jobs()


def test_a_t4_encodes_bert_large_at_about_the_published_rate(jobs: JobKnowledge, kb: Knowledge) -> None:
    # TensorRT demo/BERT README (8.2), T4: BERT Large seq 128 batch 128 in 457.69 ms = 35,797
    # tokens/s; a row held out of the fit.
    bert = find_model(jobs.embedding.models, "bert-large")
    assert bert is not None
    assert embedding.tokens_per_s(jobs, kb, bert, "t4") == pytest.approx(35797, rel=0.05)


def test_a_t4_reaches_a_smaller_share_of_its_peak_than_an_a100(jobs: JobKnowledge, kb: Knowledge) -> None:
    assert embedding.efficiency(jobs, kb, "turing") < 0.6 * embedding.efficiency(jobs, kb, "ampere")


def test_indexing_a_million_documents_of_500_tokens_takes_tokens_over_rate(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    only_l4 = catalog_of(kb, offer("l4", 1500))
    plan = embedding.plan(
        EmbeddingRequest(model="bge-m3", documents=1_000_000, tokens_per_document=500), only_l4, jobs
    )
    model = find_model(jobs.embedding.models, "bge-m3")
    assert plan.pick is not None and model is not None
    rate = embedding.tokens_per_s(jobs, kb, model, "l4")
    assert plan.pick.job_hours == pytest.approx(5e8 / rate / 3600, rel=0.001)
    assert plan.pick.job_cost == 1500  # one month of the monthly-only offer


def test_documents_longer_than_the_window_are_cut_and_the_plan_says_so(
    jobs: JobKnowledge, kb: Knowledge
) -> None:
    req = EmbeddingRequest(model="bge-large-zh", documents=1000, tokens_per_document=2000)
    plan = embedding.plan(req, kb, jobs)
    cut = next(f for f in plan.findings if f.id == "embedding_truncates")
    assert cut.values["max_tokens"] == 512


def test_a_reranker_query_costs_its_query_and_document_pairs(jobs: JobKnowledge) -> None:
    reranker = find_model(jobs.embedding.models, "bge-reranker-v2-m3")
    assert reranker is not None
    req = EmbeddingRequest(model="bge-reranker-v2-m3", qps=10, query_tokens=32, tokens_per_document=300)
    assert embedding.tokens_per_query(req, reranker) == (32 + 300) * 20


def test_a_live_service_gets_machines_for_its_peak_queries(jobs: JobKnowledge, kb: Knowledge) -> None:
    only_t4 = catalog_of(kb, offer("t4", 900))
    reranker = find_model(jobs.embedding.models, "bge-reranker-v2-m3")
    assert reranker is not None
    req = EmbeddingRequest(model="bge-reranker-v2-m3", qps=40, tokens_per_document=300)
    per_card_qps = embedding.tokens_per_s(jobs, kb, reranker, "t4") / embedding.tokens_per_query(
        req, reranker
    )
    plan = embedding.plan(req, only_t4, jobs)
    assert plan.pick is not None and plan.pick.machines == -(-40 // per_card_qps)


@pytest.mark.parametrize(
    ("gpu", "tag"),
    [
        ("t4", ":turing-1.5"),
        ("a10", ":86-1.5"),
        ("a100-40g-sxm", ":1.5"),
        ("l4", ":89-1.5"),
        ("h100-sxm", ":hopper-1.5"),
    ],
)
def test_the_tei_image_follows_the_cards_architecture(kb: Knowledge, gpu: str, tag: str) -> None:
    assert embedding.tei_image(kb.gpus[gpu]).endswith(tag)


def test_the_command_runs_tei_with_the_models_hub_id(jobs: JobKnowledge, kb: Knowledge) -> None:
    plan = embedding.plan(EmbeddingRequest(model="bge-m3", documents=10), kb, jobs)
    assert plan.command is not None and "--model-id BAAI/bge-m3" in plan.command
