"""Embedding and reranking models (bge-m3, bge-large-zh, bge-reranker, e5, gte) served by TEI.

An encoder's forward pass does about 2 × parameters FLOPs per token and, with the server
batching requests (text-embeddings-inference packs them up to ``--max-batch-tokens``), it is
compute-bound. One card's rate is

    tokens/s = efficiency × FP16 tensor TFLOPS × 10¹² / (2 × parameters)

with the efficiency fitted per architecture on the ``fit`` rows of ``knowledge/embeddings.yaml``
(TensorRT BERT on a T4, a V100 and an A100; other architectures take the median of them).
Indexing a collection is documents × average tokens ÷ tokens/s (a job with an end, billed by
``cost.job``); a live service needs queries/s × tokens per query (for a
reranker: × documents scored per query, each pair being query + document tokens).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.offers import Fit, Priced
from gpu_advisor.engine.jobs.plan import JobMetric, JobPlan
from gpu_advisor.engine.jobs.speeds import (
    EmbeddingModel,
    JobKnowledge,
    Measurement,
    find_model,
    median_ratio,
)
from gpu_advisor.engine.rules import jobs as job_rules
from gpu_advisor.engine.rules.jobs import JobContext
from gpu_advisor.engine.specs import GpuSpec, Knowledge, Offer
from gpu_advisor.engine.units import GiB

ACTIVATION_GIB = 2.0  # TEI's default 16,384-token batch of a large encoder: well under 2 GiB of activations
# Contract bounds: far past any real collection or service, near enough that every product stays finite.
MAX_DOCUMENTS = 100_000_000_000  # 10^11: a few times Common Crawl's pages in one crawl
MAX_DOCUMENT_TOKENS = 1_000_000  # a book-length document; the model's window cuts it anyway
MAX_QPS = 1_000_000.0  # the LLM contract's qps bound (engine.workload)


class EmbeddingRequest(BaseModel):
    """Index ``documents`` of ``tokens_per_document`` tokens, or serve ``qps`` queries a second."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Literal["embedding"] = "embedding"
    model: str = Field("bge-m3", min_length=1, max_length=80, description="bge-m3, bge-reranker-v2-m3, e5…")
    documents: int | None = Field(
        None, ge=1, le=MAX_DOCUMENTS, description="a collection to index once (its documents)"
    )
    tokens_per_document: float = Field(
        500,
        ge=1,
        le=MAX_DOCUMENT_TOKENS,
        description="average tokens per document; a longer one is cut at the model's window",
    )
    qps: float | None = Field(None, gt=0, le=MAX_QPS, description="queries a second a live service must meet")
    query_tokens: int = Field(32, ge=1, le=MAX_DOCUMENT_TOKENS, description="tokens per query")
    rerank_documents: int = Field(20, ge=1, le=10_000, description="documents a reranker scores per query")
    gpu: str | None = Field(None, max_length=40, description="a card id to size the job on")


def efficiency(jobs: JobKnowledge, kb: Knowledge, architecture: str | None = None) -> float:
    """The share of FP16 tensor peak an encoder reaches, fitted on the ``fit`` rows only.

    Per architecture where rows of it exist (a 70 W T4 reaches about half the share an
    A100 does: it cannot hold its clocks), else the median over every fit row.
    """
    rows = [r for r in jobs.embedding.measurements if r.split == "fit"]
    same = [r for r in rows if kb.gpus[r.gpu].architecture == architecture]
    return median_ratio(same or rows, lambda r: _peak_tokens_per_s(kb.gpus[r.gpu], _params(jobs, r.model)))


def _params(jobs: JobKnowledge, model_id: str) -> float:
    return next(m.params_m for m in jobs.embedding.models if m.id == model_id)


def _peak_tokens_per_s(card: GpuSpec, params_m: float) -> float:
    return card.dense_tflops["fp16"] * 1e12 / (2 * params_m * 1e6)


def tokens_per_s(jobs: JobKnowledge, kb: Knowledge, model: EmbeddingModel, gpu: str) -> float:
    """Tokens one card encodes per second."""
    card = kb.gpus[gpu]
    return efficiency(jobs, kb, card.architecture) * _peak_tokens_per_s(card, model.params_m)


def predict_row(jobs: JobKnowledge, kb: Knowledge, row: Measurement) -> float:
    model = next(m for m in jobs.embedding.models if m.id == row.model)
    return tokens_per_s(jobs, kb, model, row.gpu)


def tokens_per_query(req: EmbeddingRequest, model: EmbeddingModel) -> float:
    """Tokens one query costs: its own for an embedding, (query + document) × documents for a reranker."""
    if model.kind == "reranker":
        return (req.query_tokens + min(req.tokens_per_document, model.max_tokens)) * req.rerank_documents
    return float(req.query_tokens)


def plan(req: EmbeddingRequest, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The cheapest card to index the collection or serve the queries, with tokens/s and cost."""
    model = find_model(jobs.embedding.models, req.model)
    if model is None:
        return job_rules.unsized("embedding", req, kb, jobs)
    if (no := job_rules.refused("embedding", req, kb, jobs, model.name)) is not None:
        return no
    doc_tokens = min(req.tokens_per_document, model.max_tokens)  # longer documents are cut at the window
    units = req.documents * doc_tokens if req.documents else None
    per_hour = req.qps * 3600 * tokens_per_query(req, model) if req.qps and units is None else None

    def rate(offer: Offer, card: GpuSpec, memory_gib: float) -> Fit | None:
        need = model.params_m * 1e6 * 2 / GiB + ACTIVATION_GIB
        if need > memory_gib:
            return None
        per_card = tokens_per_s(jobs, kb, model, card.id) * offers.compute_share(offer)
        return Fit(per_card * 3600 * offer.count, need, offer.count)

    ranked, not_rented = offers.rank_for(kb, rate, units=units, per_hour=per_hour, gpu=req.gpu)
    options = [
        offers.option(p, _metrics(p, req, model, doc_tokens), _unit_costs(p, doc_tokens)) for p in ranked
    ]
    ctx = JobContext("embedding", req, kb, jobs, ranked, model.name)
    return job_rules.light_plan(
        ctx,
        model.id,
        options,
        not_rented,
        command=command(model, options[0].gpu if options else None, kb),
        tool="text-embeddings-inference",
    )


def _metrics(p: Priced, req: EmbeddingRequest, model: EmbeddingModel, doc_tokens: float) -> list[JobMetric]:
    per_s = p.units_per_hour / 3600
    return [
        JobMetric(
            id="tokens_per_s", value=round(per_s / p.machines / p.fit.cards), unit="tokens_per_s_per_card"
        ),
        JobMetric(id="documents_per_s", value=round(per_s / doc_tokens, 1), unit="documents_per_s"),
        JobMetric(
            id="qps_capacity", value=round(per_s / tokens_per_query(req, model), 1), unit="queries_per_s"
        ),
    ]


def _unit_costs(p: Priced, doc_tokens: float) -> list[JobMetric]:
    return [
        offers.unit_cost(p, 1e6, "per_million_tokens"),
        offers.unit_cost(p, 1e6 * doc_tokens, "per_million_documents"),
    ]


def tei_image(card: GpuSpec | None) -> str:
    """TEI's image tag for the card's architecture (its README's table: Turing, Ampere 8.6, Ada, Hopper)."""
    tag = "1.5"
    if card is None:
        return f"ghcr.io/huggingface/text-embeddings-inference:{tag}"
    prefix = {"turing": "turing-", "ada": "89-", "hopper": "hopper-"}.get(card.architecture, "")
    if card.architecture == "ampere" and card.compute_capability >= 8.6:
        prefix = "86-"
    return f"ghcr.io/huggingface/text-embeddings-inference:{prefix}{tag}"


# The plain BERT rows are sourced to the paper (their speeds are NVIDIA's BERT benchmarks), so the
# Hub checkpoint is named here: Google's published uncased releases,
# https://huggingface.co/google-bert/bert-large-uncased and .../bert-base-uncased. They carry no
# sentence-transformers pooling config, which TEI then needs as ``--pooling`` (mean, as
# sentence-transformers pools a bare BERT).
PAPER_CHECKPOINTS = {
    "bert-large": "google-bert/bert-large-uncased",
    "bert-base": "google-bert/bert-base-uncased",
}


def hub_repo(model: EmbeddingModel) -> str:
    """The Hub repository TEI downloads: the one the model's source names, else its published checkpoint."""
    if "huggingface.co/" in model.source:
        return model.source.split("huggingface.co/")[-1].split(" ")[0]
    return PAPER_CHECKPOINTS.get(model.id, model.id)  # tests/test_job_commands.py catches a bare id


def command(model: EmbeddingModel, gpu: str | None, kb: Knowledge) -> str:
    """``docker run`` of text-embeddings-inference for the model on the picked card."""
    image = tei_image(kb.gpus.get(gpu or ""))
    pooling = " --pooling mean" if model.id in PAPER_CHECKPOINTS else ""
    return (
        f"docker run --gpus all -p 8080:80 -v $PWD/data:/data {image} "
        f"--model-id {hub_repo(model)}{pooling} --max-batch-tokens 16384"
    )
