"""Cards named by what they hold rather than by name: a memory class, a MIG slice, half a card.

"16G 显存的卡能跑 7B 吗" and "A100 的 3g.40gb 切片能跑 13B 吗" ask the same question as
"一张 T4 能跑 7B 吗": does it fit, how fast. A verdict needs a card, so:

- a **memory class** is judged on the known card of exactly that memory with the lowest
  bandwidth (the conservative speed among cards of that size), named in the answer;
- a **MIG slice** ``<g>g.<m>gb`` is a card of its own: ``m`` GB of memory (scaled like its
  parent's usable share) and ``g``/7 of the parent's compute and memory bandwidth, because
  MIG partitions the SMs into seven compute slices and the memory into eight slices whose
  bandwidth follows the memory (NVIDIA MIG User Guide, "Supported MIG Profiles"); "half a
  card" is the slice closest to half its memory.

Pure: specs in, specs out; the caller adds the slice to a copy of the knowledge base.
"""

from __future__ import annotations

import re

from gpu_advisor.engine.specs import GpuSpec, Knowledge

COMPUTE_SLICES = 7  # MIG: seven compute slices per A100/H100 (MIG User Guide)
_PROFILE = re.compile(r"(?P<g>[1-7])g\.(?P<gb>\d{1,3})gb")


def memory_class_card(kb: Knowledge, memory_gb: float) -> GpuSpec | None:
    """The known whole card of ``memory_gb`` (±1 GB) with the lowest bandwidth, or None."""
    same = [g for g in kb.gpus.values() if abs(g.memory_gb - memory_gb) <= 1.0]
    return min(same, key=lambda g: (g.bandwidth_gbs, g.id), default=None)


def slice_parent(kb: Knowledge, profile: str, named: str | None) -> GpuSpec | None:
    """The card a profile is a slice of: the named card or its family sibling that offers it."""
    offering = [g for g in kb.gpus.values() if profile in g.mig_profiles]
    if named is not None and named in kb.gpus:
        if profile in kb.gpus[named].mig_profiles:
            return kb.gpus[named]
        family = named.split("-", 1)[0]
        offering = [g for g in offering if g.id.split("-", 1)[0] == family] or offering
    return min(offering, key=lambda g: (g.memory_gb, g.id), default=None)


def half_profile(card: GpuSpec) -> str | None:
    """The card's MIG profile closest to half its memory ("半张 A100 40GB" → 3g.20gb)."""
    sized = [(p, _PROFILE.fullmatch(p)) for p in card.mig_profiles]
    halves = [(abs(int(m.group("gb")) - card.memory_gb / 2), int(m.group("g")), p) for p, m in sized if m]
    return min(halves)[2] if halves else None


def _profile(profile: str) -> re.Match[str]:
    match = _PROFILE.fullmatch(profile)
    if match is None:
        raise ValueError(f"not a MIG profile: {profile}")
    return match


def compute_slices(profile: str) -> int:
    """How many of the seven compute slices a profile holds ("3g.40gb" → 3)."""
    return int(_profile(profile).group("g"))


def slice_card(parent: GpuSpec, profile: str) -> GpuSpec:
    """A MIG slice as a card: its memory, and its share of the parent's compute and bandwidth."""
    compute = compute_slices(profile) / COMPUTE_SLICES
    memory_gb = float(_profile(profile).group("gb"))
    memory_share = memory_gb / parent.memory_gb
    return parent.model_copy(
        update={
            "id": f"{parent.id}-mig-{profile}",
            "name": f"{parent.name} MIG {profile}",
            "aliases": [],
            "memory_gb": memory_gb,
            "usable_gib": parent.usable_gib * memory_share,
            "bandwidth_gbs": parent.bandwidth_gbs * min(1.0, memory_share),
            "dense_tflops": {k: v * compute for k, v in parent.dense_tflops.items()},
            "nvlink_gbs": 0.0,
            "mig_profiles": [],
        }
    )


def with_card(kb: Knowledge, card: GpuSpec) -> Knowledge:
    """A copy of ``kb`` that also knows ``card`` (a slice judged like any other card)."""
    return kb.model_copy(update={"gpus": {**kb.gpus, card.id: card}})
