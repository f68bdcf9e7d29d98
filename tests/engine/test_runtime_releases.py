"""Which runtime release and which scheduler limits a serving figure assumes (issue 45).

The same card and model run markedly faster a few releases later by the runtimes' own
posts; the engine's coefficients were fitted on one span of releases
(knowledge/runtimes.yaml ``figures_release``). An estimate says which release its figures
are for, or, when the request names its own, which documented changes lie between; and it
says the scheduler limits it sized with when the request set none.
"""

from __future__ import annotations

import pytest

from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.engine.estimate import estimate
from gpu_advisor.engine.releases import between, default_max_num_seqs, version_key
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.engine.workload import Workload

H100 = Workload(task="infer", model="llama-3.1-8b", gpu="h100-sxm", runtime="vllm")


def _said(kb: Knowledge, w: Workload) -> dict[str, dict[str, object]]:
    return {f.id: dict(f.values) for f in estimate(w, kb).assumptions}


def test_release_numbers_compare_as_numbers() -> None:
    assert version_key("v0.4.1.post2") == (0, 4, 1, 2)
    assert version_key("0.10.2") > version_key("0.9.9")


def test_an_estimate_says_which_release_its_figures_are_for(kb: Knowledge) -> None:
    said = _said(kb, H100)["assumed_runtime_release"]
    assert said == {"runtime": "vLLM", "release": kb.runtimes["vllm"].figures_release}


def test_an_older_release_is_told_the_documented_changes_since(kb: Knowledge) -> None:
    said = _said(kb, H100.model_copy(update={"runtime_version": "0.5.3"}))["runtime_release_older"]
    assert said["changes"] == ["0.6.0", "0.7.0", "0.8.0", "0.8.4", "0.8.5", "0.9.0"]


def test_a_release_named_by_its_date_is_placed_by_date(kb: Knowledge) -> None:
    changes, older = between(kb.runtimes["vllm"], "2024-12")
    assert older and changes == ["0.7.0", "0.8.0", "0.8.4", "0.8.5", "0.9.0"]


def test_the_figures_own_release_has_no_change_in_between(kb: Knowledge) -> None:
    said = _said(kb, H100.model_copy(update={"runtime_version": "v0.11.0"}))
    assert "runtime_release_no_change" in said


def test_every_documented_release_cites_a_source(kb: Knowledge) -> None:
    releases = [r for rt in kb.runtimes.values() for r in rt.releases]
    assert releases and all(r.source.startswith("https://") for r in releases)


def test_unset_scheduler_limits_are_said_with_the_caps_used(kb: Knowledge) -> None:
    said = _said(kb, H100)["assumed_scheduler_limits"]
    assert said["max_num_seqs"] == kb.runtimes["vllm"].max_batch
    assert said["tokens"] == kb.runtimes["vllm"].token_budget(kb.gpus["h100-sxm"])


def test_stated_scheduler_limits_are_not_called_assumed(kb: Knowledge) -> None:
    stated = H100.model_copy(update={"max_num_seqs": 64, "max_num_batched_tokens": 4096})
    assert "assumed_scheduler_limits" not in _said(kb, stated)


def test_the_contract_takes_a_release_and_refuses_prose(kb: Knowledge) -> None:
    text = '{"task": "infer", "model": "llama-3.1-8b", "runtime": "vllm", "runtime_version": "%s"}'
    assert parse_workload(text % "v0.6.3").runtime_version == "v0.6.3"
    with pytest.raises(ContractError) as refused:
        parse_workload(text % "the latest one")
    assert refused.value.payload["error"]["field"] == "runtime_version"


@pytest.mark.parametrize(
    ("release", "card", "seqs"),
    [
        ("0.7.3", "h100-sxm", 256),  # V0, the default engine: EngineArgs.max_num_seqs
        ("0.8.0", "l40s", 1024),  # V1 on every card (vllm PR #15357)
        ("0.8.4", "a100-80g-sxm", 256),  # back to 256 except H100/H200 (PR #16158)
        ("0.8.4", "h200-sxm", 1024),
        ("0.8.5", "a100-80g-sxm", 1024),  # every card of 70 GiB or more (PR #17073)
        ("0.9.0", "a100-80g-sxm", 256),  # A100s excluded (PR #17885)
        ("0.9.0", "b200", 1024),
        ("2024-12", "h100-sxm", 256),
    ],
)
def test_vllm_runs_the_default_sequence_cap_of_its_release_on_each_card(
    kb: Knowledge, release: str, card: str, seqs: int
) -> None:
    assert default_max_num_seqs(kb.runtimes["vllm"], kb.gpus[card], release) == seqs


def test_without_a_release_the_cap_is_the_figures_release_one(kb: Knowledge) -> None:
    vllm = kb.runtimes["vllm"]
    assert default_max_num_seqs(vllm, kb.gpus["h100-sxm"]) == default_max_num_seqs(
        vllm, kb.gpus["h100-sxm"], "0.11.0"
    )


def test_a_runtime_without_documented_caps_keeps_its_own(kb: Knowledge) -> None:
    sglang = kb.runtimes["sglang"]
    assert default_max_num_seqs(sglang, kb.gpus["h100-sxm"], "0.4.0") == sglang.max_batch


def test_every_documented_cap_cites_its_own_source(kb: Knowledge) -> None:
    caps = [r.max_num_seqs for rt in kb.runtimes.values() for r in rt.releases if r.max_num_seqs]
    assert len(caps) >= 4 and all(
        c.source.startswith("https://github.com/vllm-project/vllm/pull/") for c in caps
    )
