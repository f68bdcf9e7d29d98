"""The p99 time to first token at a stated rate, with its uncertainty and how close to
saturation the plan runs (issue 45).

Near saturation a p99 is steep in the load, so one number hides that a replica a quarter
slower than estimated would never catch up. The estimate gives the p99 at the stated rate,
at that rate taken down and up by its own ± band, and the share of capacity it runs at.
"""

from __future__ import annotations

from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.results import Verdict
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

AT = Workload(
    task="infer", model="llama-3.1-8b", gpu="h100-sxm", runtime="vllm", prompt_tokens=1000, output_tokens=200
)


def _at(kb: Knowledge, qps: float) -> Verdict:
    got = estimate(AT.model_copy(update={"qps": qps}), kb).requested
    assert got is not None
    return got


def test_saturation_is_the_stated_rate_over_what_the_replicas_sustain(kb: Knowledge) -> None:
    got = _at(kb, 10)
    assert got.saturation is not None and got.max_requests_per_s is not None
    assert got.saturation == round(10 / got.max_requests_per_s, 2)


def test_the_band_brackets_the_p99(kb: Knowledge) -> None:
    got = _at(kb, 10)
    assert (
        got.ttft_ms_p99_low is not None and got.ttft_ms_p99 is not None and got.ttft_ms_p99_high is not None
    )
    assert got.ttft_ms_p99_low < got.ttft_ms_p99 < got.ttft_ms_p99_high


def test_the_band_widens_as_the_plan_nears_saturation(kb: Knowledge) -> None:
    light, busy = _at(kb, 4), _at(kb, 14)
    assert light.ttft_ms_p99_high is not None and busy.ttft_ms_p99_high is not None
    assert busy.ttft_ms_p99_high / busy.ttft_ms_p99 > light.ttft_ms_p99_high / light.ttft_ms_p99  # type: ignore[operator]


def test_a_plan_whose_slow_end_saturates_says_so(kb: Knowledge) -> None:
    """At 95 % of capacity a replica 25 % slower than estimated cannot keep up."""
    capacity = _at(kb, 1).max_requests_per_s
    assert capacity is not None
    got = estimate(AT.model_copy(update={"qps": 0.95 * capacity}), kb)
    assert got.requested is not None and got.requested.ttft_ms_p99_high is None
    assert "ttft_p99_may_saturate" in [f.id for f in got.findings]


def test_a_comfortable_plan_states_its_band(kb: Knowledge) -> None:
    said = {f.id: f.values for f in estimate(AT.model_copy(update={"qps": 4}), kb).findings}
    assert said["ttft_p99_band"]["pct"] == _at(kb, 4).uncertainty_pct


def test_no_rate_no_band(kb: Knowledge) -> None:
    got = estimate(AT, kb)
    assert got.requested is not None and got.requested.saturation is None
    assert not {"ttft_p99_band", "ttft_p99_may_saturate"} & {f.id for f in got.findings}
