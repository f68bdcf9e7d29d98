"""The smallest change that turns a serving "no" into a "yes" on the same cards (issue 45).

"Llama 2 7B INT4 on a T4, 4 users, 4k context" is 0.8 GiB short; an engineer keeps the T4
and changes the deployment before renting a second card. The changes tried, cheapest first
by what each costs the user, each only where it alone makes the named cards hold the load:

1. ``change_memory_share``: let the runtime fill 95 % of the card instead of its default
   (vLLM ``--gpu-memory-utilization`` 0.9, SGLang's ``--mem-fraction-static``): nothing lost
   on a card that serves nothing else, but less room for activation peaks and CUDA graphs;
2. ``change_kv_fp8``: an FP8 KV cache (vLLM ``--kv-cache-dtype fp8``) halves the cache of a
   16-bit one, at a small accuracy cost (vLLM's quantized KV cache guide);
3. ``change_fewer_streams``: fewer users at the full window at once. The paged cache holds
   the tokens in flight (Kwon et al. 2023), so more users still run together while their
   requests are shorter than the window; a further full-length stream waits;
4. ``change_max_model_len``: a shorter window (``--max-model-len``): longer requests are
   refused.

Each finding carries the changed setting and the memory it leaves (used and capacity GiB per
card, from ``engine.estimate`` on the changed workload); the first is the cheapest change.
Another card is the answer only when none of them is enough (the dialog's count search).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.results import Verdict
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

FULLER_SHARE = 0.95  # a card that runs nothing else (vLLM's default leaves 10 % outside)
WINDOW_STEP = 256  # windows are tried in multiples of this many tokens
SHORTEST_WINDOW = 512


def smallest_changes(w: Workload, kb: Knowledge) -> list[Finding]:
    """Every change on ``w``'s own cards that alone makes its serving load fit, cheapest first;
    empty when the cards already hold it, when ``w`` names no card or trains, or when no single
    change is enough."""
    if w.task != "infer" or w.gpu is None:
        return []
    try:
        judged = estimate(w, kb)
    except ValueError:  # EngineError and the contract's validation errors alike
        return []
    if judged.requested is None or judged.requested.fits:
        return []
    settings = judged.settings
    users, window = int(settings.get("concurrency") or 1), int(settings.get("context_len") or 0)
    return [found for found in _tried(w, kb, users, window) if found is not None]


def _tried(w: Workload, kb: Knowledge, users: int, window: int) -> Iterator[Finding | None]:
    if (w.gpu_memory_utilization or 0.0) < FULLER_SHARE:
        yield _if_fits(
            "change_memory_share", w, kb, {"gpu_memory_utilization": FULLER_SHARE}, share=FULLER_SHARE
        )
    if w.kv_dtype not in ("fp8", "int8"):
        yield _if_fits("change_kv_fp8", w, kb, {"kv_dtype": "fp8"})
    streams = _largest(lambda n: _fits(w.model_copy(update={"concurrency": n}), kb), 1, users - 1)
    if streams is not None:
        yield _if_fits("change_fewer_streams", w, kb, {"concurrency": streams}, streams=streams, users=users)
    steps = _largest(
        lambda k: _fits(w.model_copy(update={"context_len": k * WINDOW_STEP}), kb),
        SHORTEST_WINDOW // WINDOW_STEP,
        (window - 1) // WINDOW_STEP,
    )
    if steps is not None:
        shorter = steps * WINDOW_STEP
        yield _if_fits("change_max_model_len", w, kb, {"context_len": shorter}, window=shorter, was=window)


def _if_fits(id_: str, w: Workload, kb: Knowledge, change: dict[str, Any], **said: float) -> Finding | None:
    got = _requested(w.model_copy(update=change), kb)
    if got is None or not got.fits:
        return None
    return finding(id_, used_gib=got.total_gib, capacity_gib=got.capacity_gib, **said)


def _requested(w: Workload, kb: Knowledge) -> Verdict | None:
    """``estimate``'s verdict on the named cards; None when the changed workload is refused."""
    try:
        return estimate(w, kb).requested
    except ValueError:  # EngineError and the contract's validation errors alike
        return None


def _fits(w: Workload, kb: Knowledge) -> bool:
    got = _requested(w, kb)
    return got is not None and got.fits


def _largest(holds: Any, lo: int, hi: int) -> int | None:
    """The largest n in [lo, hi] for which ``holds(n)``, when it holds below some point and not
    above (memory grows with users and with the window); None when it holds nowhere."""
    if hi < lo or not holds(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if holds(mid) else (lo, mid - 1)
    return lo
