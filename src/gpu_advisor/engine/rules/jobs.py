"""Rules about the light GPU jobs: speech, embeddings, vision, video encoding.

Each check reads a :class:`JobContext` — the request, the ranked catalog offers the family
priced (``engine.jobs.offers.Priced``, cheapest first) and the job knowledge — and returns a
Finding with the numbers that make its point, or None. The points are the seeds' and the
renters' usual mistakes: a light model on a training card (seed 003: a few-hundred-million
parameter ranking model on eight A100s at a tenth of their use), a backlog of audio hours
read as a rental period, data loading that starves a card, a transcoding job sent to a card
without an encoder (A100/H100 have none), AV1 asked of a card older than Ada, GeForce's cap
on concurrent encode sessions. Layout: see ``engine/rules/__init__.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.jobs import offers
from gpu_advisor.engine.jobs.offers import Priced
from gpu_advisor.engine.jobs.plan import JobFamily, JobOption, JobPlan, cheaper_than
from gpu_advisor.engine.jobs.speeds import JobKnowledge
from gpu_advisor.engine.rules.declaration import Rule, Scenario
from gpu_advisor.engine.specs import Knowledge


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a job rule reads: the family, its request, the priced offers and the knowledge."""

    family: JobFamily
    request: BaseModel
    kb: Knowledge
    jobs: JobKnowledge
    ranked: list[Priced]
    model: str | None

    def asked(self, name: str) -> Any:
        return getattr(self.request, name, None)


JobCheck = Callable[[JobContext], Finding | None]


def model_unknown(ctx: JobContext) -> Finding | None:
    """A model the family does not know: say so, with the models it does (never an LLM stand-in)."""
    if ctx.model is not None:
        return None
    known = {
        "speech": [m.name for m in ctx.jobs.speech.models],
        "embedding": [m.name for m in ctx.jobs.embedding.models],
    }.get(ctx.family, [m.name for m in ctx.jobs.vision.models])
    return finding("job_model_unknown", "high", family=ctx.family, model=str(ctx.asked("model")), known=known)


def gpu_unknown(ctx: JobContext) -> Finding | None:
    """A card asked for that the project does not know: say so rather than guess one."""
    gpu = ctx.asked("gpu")
    if gpu is None or gpu in ctx.kb.gpus:
        return None
    return finding("job_gpu_unknown", "high", gpu=str(gpu))


def runtime_mismatch(ctx: JobContext) -> Finding | None:
    """A runtime that does not run the model (SenseVoice runs on FunASR, Whisper not)."""
    runtime = ctx.asked("runtime")
    model = next((m for m in ctx.jobs.speech.models if m.name == ctx.model), None)
    if ctx.family != "speech" or runtime is None or model is None:
        return None
    if (model.relative_speed is None) == (runtime == "funasr"):
        return None
    return finding("speech_runtime_mismatch", "high", model=model.name, runtime=str(runtime))


def nothing_offered(ctx: JobContext) -> Finding | None:
    """A known model, a known card, and still no catalog offer runs it (the card is not for rent here)."""
    if ctx.ranked or ctx.model is None or ctx.family == "video_encode" or gpu_unknown(ctx):
        return None
    gpu = ctx.asked("gpu")
    return finding("job_nothing_offered", "high", gpu=ctx.kb.gpus[gpu].name if gpu else None)


def light_job_on_training_card(ctx: JobContext) -> Finding | None:
    """The cheapest pick is a small card while a training card (A100/H100) costs several times more."""
    if not ctx.ranked or ctx.kb.gpus[ctx.ranked[0].offer.gpu].role == "training":
        return None
    pick = ctx.ranked[0]
    big = next((p for p in ctx.ranked if ctx.kb.gpus[p.offer.gpu].role == "training"), None)
    if big is None or pick.rank_cny <= 0 or big.rank_cny < 1.5 * pick.rank_cny:
        return None
    return finding(
        "light_job_on_training_card",
        "high",
        model=ctx.model,
        pick_gpu=pick.gpu.name,
        big_gpu=big.gpu.name,
        cost_ratio=big.rank_cny / pick.rank_cny,
        speed_ratio=big.fit.units_per_hour / pick.fit.units_per_hour,
    )


def backlog_is_audio(ctx: JobContext) -> Finding | None:
    """A backlog stated in hours is hours of audio; the card needs far fewer hours to transcribe it."""
    hours = ctx.asked("audio_hours")
    if ctx.family != "speech" or hours is None or not ctx.ranked or ctx.ranked[0].job_hours is None:
        return None
    pick = ctx.ranked[0]
    return finding(
        "backlog_is_audio",
        audio_hours=float(hours),
        card_hours=pick.job_hours,
        gpu=pick.gpu.name,
        machines=pick.machines,
    )


def cpu_bound_data_loading(ctx: JobContext) -> Finding | None:
    """A light model trains faster than the machine's CPU cores can decode and augment images."""
    if ctx.family != "vision_train" or not ctx.ranked:
        return None
    pick = ctx.ranked[0]
    cores = pick.offer.cpu_cores
    per_core = ctx.jobs.vision.cpu_images_per_core
    images_per_s = pick.fit.units_per_hour / 3600
    if cores is None or images_per_s <= cores * per_core:
        return None
    return finding(
        "cpu_bound_data_loading",
        "warn",
        model=ctx.model,
        images_per_s=images_per_s,
        cpu_cores=cores,
        per_core=per_core,
        cores_needed=math.ceil(images_per_s / per_core),
        gpu=pick.gpu.name,
    )


def embedding_truncates(ctx: JobContext) -> Finding | None:
    """Documents longer than the model's window are cut: only the first max_tokens are embedded."""
    tokens = ctx.asked("tokens_per_document")
    model = next((m for m in ctx.jobs.embedding.models if m.name == ctx.model), None)
    if ctx.family != "embedding" or model is None or tokens is None or tokens <= model.max_tokens:
        return None
    return finding(
        "embedding_truncates", "warn", model=model.name, max_tokens=model.max_tokens, tokens=float(tokens)
    )


def no_encoder_on_card(ctx: JobContext) -> Finding | None:
    """Cards in the catalog (or the one asked for) with no NVENC: a transcoding job never goes there."""
    if ctx.family != "video_encode":
        return None
    asked = ctx.asked("gpu")
    gpus = {asked} if asked else {o.gpu for o in ctx.kb.catalog.offers}
    without = sorted(
        ctx.kb.gpus[g].name for g in gpus if (c := ctx.jobs.codec.card(g)) is not None and c.nvenc == 0
    )
    if not without:
        return None
    return finding("no_encoder_on_card", "high" if asked else "info", gpus=without)


def av1_encode_needs_ada(ctx: JobContext) -> Finding | None:
    """AV1 encode starts with Ada: older cards with NVENC are left out of an AV1 job."""
    if ctx.family != "video_encode" or ctx.asked("codec") != "av1":
        return None
    gpus = {o.gpu for o in ctx.kb.catalog.offers} | ({ctx.asked("gpu")} - {None})
    older = sorted(
        ctx.kb.gpus[g].name
        for g in gpus
        if (c := ctx.jobs.codec.card(g)) and c.nvenc > 0 and not c.av1_encode
    )
    return finding("av1_encode_needs_ada", "warn", gpus=older) if older else None


def geforce_session_cap(ctx: JobContext) -> Finding | None:
    """GeForce drivers cap concurrent encodes per machine: more streams than the cap need more machines."""
    streams = ctx.asked("streams")
    if ctx.family != "video_encode" or not ctx.ranked or streams is None:
        return None
    pick = ctx.ranked[0]
    card = ctx.jobs.codec.card(pick.offer.gpu)
    cap = ctx.jobs.codec.session_cap_geforce
    if card is None or not card.geforce or streams <= cap:
        return None
    return finding(
        "geforce_session_cap",
        "warn",
        gpu=pick.gpu.name,
        cap=cap,
        streams=int(streams),
        machines=math.ceil(streams / cap),
    )


def speech_arithmetic(ctx: JobContext) -> Finding | None:
    """How the pick's speed and hours were reached (for /why): bandwidth, speed, the division."""
    if ctx.family != "speech" or not ctx.ranked:
        return None
    pick = ctx.ranked[0]
    per_card = pick.fit.units_per_hour / pick.fit.cards
    hours = ctx.asked("audio_hours")
    return finding(
        "speech_arithmetic",
        model=ctx.model,
        gpu=pick.gpu.name,
        bandwidth_gbs=pick.gpu.bandwidth_gbs,
        x_realtime=per_card,
        cards=pick.fit.cards * pick.machines,
        audio_hours=float(hours) if hours is not None else None,
        card_hours=pick.job_hours,
    )


def encoder_arithmetic(ctx: JobContext) -> Finding | None:
    """Tokens/s from the card's FP16 rate, the fitted efficiency and 2 × parameters per token."""
    model = next((m for m in ctx.jobs.embedding.models if m.name == ctx.model), None)
    if ctx.family != "embedding" or model is None or not ctx.ranked:
        return None
    pick = ctx.ranked[0]
    tokens = ctx.asked("documents")
    return finding(
        "encoder_arithmetic",
        model=model.name,
        params_m=model.params_m,
        gpu=pick.gpu.name,
        fp16_tflops=pick.gpu.dense_tflops["fp16"] * offers.compute_share(pick.offer),
        tokens_per_s=pick.fit.units_per_hour / 3600 / pick.fit.cards,
        documents=float(tokens) if tokens is not None else None,
        hours=pick.job_hours,
    )


def vision_arithmetic(ctx: JobContext) -> Finding | None:
    """Images/s on the pick and, for training, images × epochs ÷ images/s."""
    model = next((m for m in ctx.jobs.vision.models if m.name == ctx.model), None)
    if ctx.family not in ("vision_train", "vision_infer") or model is None or not ctx.ranked:
        return None
    pick = ctx.ranked[0]
    images, epochs = ctx.asked("images"), ctx.asked("epochs")
    return finding(
        "vision_arithmetic",
        model=model.name,
        gflops=model.gflops,
        gpu=pick.gpu.name,
        images_per_s=pick.units_per_hour / 3600,
        passes=float(images * (epochs or 1)) if images is not None else None,
        hours=pick.job_hours,
    )


_EXPLAIN: tuple[JobCheck, ...] = (speech_arithmetic, encoder_arithmetic, vision_arithmetic)


def findings(ctx: JobContext) -> list[Finding]:
    """Every job rule's finding for the context, in declaration order (the arithmetic apart)."""
    return [f for rule in RULES if rule.check not in _EXPLAIN and (f := rule.check(ctx)) is not None]


def explain(ctx: JobContext) -> list[Finding]:
    """The arithmetic behind the pick, for ``JobPlan.assumptions`` (what /why shows)."""
    return [f for check in _EXPLAIN if (f := check(ctx)) is not None]


def unsized(family: JobFamily, request: BaseModel, kb: Knowledge, jobs: JobKnowledge) -> JobPlan:
    """The plan of a job whose model the family does not know: not sized, and saying so."""
    ctx = JobContext(family, request, kb, jobs, [], None)
    return JobPlan(family=family, model=getattr(request, "model", None), sized=False, findings=findings(ctx))


def refused(
    family: JobFamily, request: BaseModel, kb: Knowledge, jobs: JobKnowledge, model: str | None
) -> JobPlan | None:
    """A plan that cannot start — an unknown card, a runtime that does not run the model —
    as an unsized plan whose findings say why (every surface answers it politely), else None."""
    ctx = JobContext(family, request, kb, jobs, [], model)
    why = [f for check in (gpu_unknown, runtime_mismatch) if (f := check(ctx)) is not None]
    if not why:
        return None
    return JobPlan(family=family, model=getattr(request, "model", model), sized=False, findings=why)


def light_plan(
    ctx: JobContext,
    model: str,
    options: Sequence[JobOption],
    not_rented: Sequence[Finding],
    *,
    command: str,
    tool: str,
    extra: Sequence[Finding] = (),
    explained: bool = True,
) -> JobPlan:
    """A light family's plan from its ranked, priced options: the pick and three others, the
    rules' findings after what ``rank_for`` said of a named card not for rent, ``extra``
    findings the family works out itself (encoding's streams per card), and — ``explained`` —
    the arithmetic for /why. One assembly for speech, embeddings, vision and encoding, so a
    field added to ``JobPlan`` reaches every family at once."""
    return JobPlan(
        family=ctx.family,
        model=model,
        sized=bool(options),
        pick=options[0] if options else None,
        alternatives=list(options[1:4]),
        findings=[*not_rented, *findings(ctx), *extra],
        assumptions=explain(ctx) if explained else [],
        command=command,
        tool=tool,
        cheaper=cheaper_than(options),
    )


def _s(family: str, **workload: Any) -> Scenario:
    return Scenario(workload={"family": family, **workload})


RULES: tuple[Rule[JobCheck], ...] = (
    Rule(
        id="job_model_unknown",
        check=model_unknown,
        scenarios=(_s("speech", model="whisper-xxl", audio_hours=10),),
    ),
    Rule(
        id="job_gpu_unknown", check=gpu_unknown, scenarios=(_s("embedding", documents=1000, gpu="gtx-9999"),)
    ),
    Rule(
        id="speech_runtime_mismatch",
        check=runtime_mismatch,
        scenarios=(_s("speech", model="sensevoice", runtime="faster-whisper", audio_hours=10),),
    ),
    Rule(
        id="job_nothing_offered",
        check=nothing_offered,
        # the T4 is rented, but ten million images a second is past any fleet of them (a named
        # card the catalog does not rent is priced on the nearest it does: job_card_not_rented)
        scenarios=(_s("vision_infer", model="vit-l-16", images_per_s=1e7, runtime="pytorch", gpu="t4"),),
    ),
    Rule(
        id="light_job_on_training_card",
        check=light_job_on_training_card,
        scenarios=(_s("speech", model="whisper-large-v3", audio_hours=1000),),
    ),
    Rule(id="backlog_is_audio", check=backlog_is_audio, scenarios=(_s("speech", audio_hours=1000),)),
    Rule(
        id="cpu_bound_data_loading",
        check=cpu_bound_data_loading,
        scenarios=(_s("vision_train", model="yolo11n", images=118287, epochs=100, gpu="a100-40g-sxm"),),
    ),
    Rule(
        id="embedding_truncates",
        check=embedding_truncates,
        scenarios=(_s("embedding", model="bge-large-zh", documents=1000, tokens_per_document=2000),),
    ),
    Rule(
        id="no_encoder_on_card",
        check=no_encoder_on_card,
        scenarios=(_s("video_encode", codec="h264", streams=4),),
    ),
    Rule(id="av1_encode_needs_ada", check=av1_encode_needs_ada, scenarios=(_s("video_encode", codec="av1"),)),
    Rule(
        id="geforce_session_cap",
        check=geforce_session_cap,
        scenarios=(_s("video_encode", codec="hevc", streams=12, gpu="rtx3090"),),
    ),
    Rule(id="speech_arithmetic", check=speech_arithmetic, scenarios=(_s("speech", audio_hours=1000),)),
    Rule(
        id="encoder_arithmetic", check=encoder_arithmetic, scenarios=(_s("embedding", documents=1_000_000),)
    ),
    Rule(
        id="vision_arithmetic",
        check=vision_arithmetic,
        scenarios=(_s("vision_train", model="resnet-50", images=1_281_167, epochs=90),),
    ),
)

WARNINGS: frozenset[str] = frozenset(
    {
        "light_job_on_training_card",
        "cpu_bound_data_loading",
        "embedding_truncates",
        "no_encoder_on_card",
        "av1_encode_needs_ada",
        "geforce_session_cap",
    }
)
"""The rules above that warn rather than add up: a card shows them under "watch out", not
beside the arithmetic (``bot.dialog.job_cards``)."""
