"""Which runtime release a serving figure is for, and what changed between releases (issue 45).

The same card and model run 1.5-2.7x faster a few releases later by the runtimes' own
release posts (vLLM v0.6.0's multi-step scheduling, its V1 engine; SGLang v0.4's
zero-overhead scheduler). The engine's serving coefficients were fitted on one span of
releases (``RuntimeProfile.figures_release``); a request that names its release
(``Workload.runtime_version``, a version or a year-month) is told which documented changes
(``RuntimeProfile.releases``, each with its source in knowledge/runtimes.yaml) lie between
the two, so an older server is not promised a newer one's figures. The figures themselves
are not rescaled: the posts state speed-ups on their own benchmarks, not a factor for any load.
"""

from __future__ import annotations

import re

from gpu_advisor.engine.findings import Finding, finding
from gpu_advisor.engine.specs import GpuSpec, RuntimeProfile, RuntimeRelease

_DATE = re.compile(r"^(\d{4})-(\d{2})")
_NUMBERS = re.compile(r"\d+")


def version_key(version: str) -> tuple[int, ...]:
    """(0, 4, 1, 2) for "v0.4.1.post2": the release's numbers in order, to compare releases."""
    return tuple(int(n) for n in _NUMBERS.findall(version))


def _after(release: RuntimeRelease, stated: str) -> bool:
    """Whether ``release`` came out after the user's ``stated`` version or year-month."""
    date = _DATE.match(stated)
    if date:
        return release.date > f"{date.group(1)}-{date.group(2)}"
    return version_key(release.version) > version_key(stated)


def between(rt: RuntimeProfile, stated: str) -> tuple[list[str], bool]:
    """The documented releases between ``stated`` and the figures' release, and whether the
    user's release is the older of the two."""
    figures = rt.figures_release_date or ""
    if _DATE.match(stated):
        older = bool(figures) and stated[:7] < figures
    else:
        older = version_key(stated) < version_key(rt.figures_release or "")
    if older:
        return [r.version for r in rt.releases if _after(r, stated) and r.date <= figures], True
    return [r.version for r in rt.releases if r.date > figures and not _after(r, stated)], False


def release_findings(rt: RuntimeProfile, runtime: str, stated: str | None) -> list[Finding]:
    """What to say about releases: which release the figures are for, and when the user named
    theirs, the documented changes between the two."""
    if rt.figures_release is None:
        return []
    if stated is None:
        return [finding("assumed_runtime_release", runtime=runtime, release=rt.figures_release)]
    changes, older = between(rt, stated)
    said = {"runtime": runtime, "stated": stated, "release": rt.figures_release}
    if not changes:
        return [finding("runtime_release_no_change", **said)]
    return [finding("runtime_release_older" if older else "runtime_release_newer", changes=changes, **said)]


def default_max_num_seqs(rt: RuntimeProfile, gpu: GpuSpec, stated: str | None = None) -> int:
    """The runtime's own cap on running sequences on ``gpu`` in the release ``stated`` (a version
    or a year-month; None: the figures' release), as its releases documented it.

    The last documented default at or before that release applies (``RuntimeRelease.max_num_seqs``,
    by card: vLLM runs 1,024 sequences on an H100 from v0.8.4 but 256 on an A100 from v0.9.0);
    before any, the profile's own ``max_batch`` (vLLM's V0 default, 256). The engine sizes with
    ``max_batch`` whatever the release: this is what a launch at that release would run.
    """
    release = stated or rt.figures_release
    dated = [r for r in rt.releases if r.max_num_seqs is not None]
    if release is not None:
        dated = [r for r in dated if not _after(r, release)]
    return dated[-1].max_num_seqs.on(gpu) if dated and dated[-1].max_num_seqs else rt.max_batch
