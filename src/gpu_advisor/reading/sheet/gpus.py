"""Which GPU a sheet names, how many, with how much memory, in which form factor.

A card is found by its family word ("a100", "h20", "l40s", "4090"), then narrowed
with what the sheet prints beside it: the memory ("80G") and the form factor ("PCIe",
"SXM", "HGX"). When several knowledge cards still fit, the one the knowledge base gives
the bare family word to wins (plain "A100" is the 40 GB SXM4 card there). Cards the
knowledge base does not hold are still recognised by family, with the class seed 004
would put them in, so a sheet of A30s or 5090s reads as inference-leaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpu_advisor.engine.sheet.models import FormFactor
from gpu_advisor.engine.specs import GpuSpec, Knowledge
from gpu_advisor.reading import gpu_count
from gpu_advisor.reading.sheet.draft import Draft
from gpu_advisor.text.lazy import compiled, lazy
from gpu_advisor.text.names import NameIndex, index_of
from gpu_advisor.text.sheet_lines import Segment

# Families outside the knowledge base: class only, no numbers.
UNLISTED = {
    "a30": "inference_friendly",
    "a40": "inference_friendly",
    "l40": "inference_friendly",
    "a6000": "inference_friendly",
    "5090": "consumer",
    "4080": "consumer",
    "3080": "consumer",
}
MAX_GPUS = 64

_PREFIX = r"(?:nvidia\s*|tesla\s*|geforce\s*|rtx\s*|hgx\s*|dgx\s*)*"
_MEMORY = lazy(
    r"(?<![\d.])(\d{1,3})\s*(?:gb|g)(?![a-z/])(?!\s*(?:nic|网|ib\b|infiniband|roce|以太|ethernet|ports?\b|口))"
)
MEMORY_RANGE_GB = (8.0, 288.0)
_GPU_WORD = lazy(r"gpu|显卡|显示卡|加速卡|计算卡|accelerator|graphics card")
_LINE_COUNT = lazy(r"^(\d{1,3}) x |^(\d{1,2})$")
_HINTS = (
    ("large_memory", lazy(r"大显存|large[ -]memory|high[ -]memory|big memory")),
    ("inference_friendly", lazy(r"推理|inference")),
    ("datacenter", lazy(r"数据中心|data ?center")),
    ("high_end", lazy(r"高端|high[ -]end|flagship|旗舰")),
    ("consumer", lazy(r"消费级|consumer|geforce|游戏")),
)


def family(gpu_id: str) -> str:
    """The word a sheet uses for a knowledge card: 'a100-80g-pcie' → 'a100', 'rtx4090' → '4090'."""
    return gpu_id.removeprefix("rtx").split("-")[0]


def card_form(gpu: GpuSpec) -> FormFactor:
    return "sxm" if gpu.form_factor in ("sxm", "oam") else "pcie"


@dataclass(frozen=True)
class GpuMatch:
    family: str
    gpu: GpuSpec | None
    start: int
    end: int


class GpuIndex:
    """The knowledge base's cards grouped by family, with one pattern to find any of them."""

    def __init__(self, kb: Knowledge) -> None:
        self.names = index_of(kb.gpus.values())  # the resolver chat and the JSON API use
        self.by_family: dict[str, list[GpuSpec]] = {}
        for gpu in kb.gpus.values():
            self.by_family.setdefault(family(gpu.id), []).append(gpu)
        names = sorted({*self.by_family, *UNLISTED}, key=lambda w: (-len(w), w))
        alternatives = [rf"{n}d?(?![0-9a-z])" if n.isdigit() else rf"{n}(?![0-9])" for n in names]
        self._pattern = compiled(rf"(?<![a-z0-9]){_PREFIX}({'|'.join(alternatives)})")

    def find(self, text: str) -> GpuMatch | None:
        m = self._pattern.search(text)
        if m is None:
            return None
        fam = m.group(1).removesuffix("d") if m.group(1)[:-1].isdigit() else m.group(1)
        cards = self.by_family.get(fam)
        memory = _memory(text[m.end() : m.end() + 24])
        gpu = _pick(cards, self.names, fam, memory, _form(text)) if cards else None
        return GpuMatch(fam, gpu, m.start(), m.end())


def _memory(text: str) -> float | None:
    low, high = MEMORY_RANGE_GB
    sizes = (float(m.group(1)) for m in _MEMORY.finditer(text))
    return next((s for s in sizes if low <= s <= high), None)


def _form(text: str) -> FormFactor | None:
    if re.search(r"sxm|hgx|dgx|oam", text):
        return "sxm"
    if "pcie" in text or "pci-e" in text:
        return "pcie"
    return "sxm" if re.search(r"nvlink|nvswitch", text) else None


def _pick(
    cards: list[GpuSpec], names: NameIndex, fam: str, memory: float | None, form: FormFactor | None
) -> GpuSpec:
    """The card of the family that fits memory and form; ties go to what the bare word names."""
    pool = cards
    if memory is not None:
        pool = [g for g in pool if g.memory_gb == memory] or pool
    if form is not None:
        pool = [g for g in pool if card_form(g) == form] or pool
    default = [g for g in pool if g.id == names.get(fam)]
    return (default or pool)[0]


def _count(text: str, match: GpuMatch | None) -> tuple[int, int] | None:
    """A GPU count and how sure we are of it (3: beside the card's name, 2: elsewhere in the line)."""
    if match is not None:
        near = gpu_count.beside(text, match.start, match.end)  # the one grammar (reading.gpu_count)
        if near is not None:
            return int(near.cards), 3
    cards = gpu_count.elsewhere(text)
    if cards is not None:
        return int(cards), 2
    line = _LINE_COUNT.search(text)  # a sheet's own forms: "8 x ..." leading a line, a bare "8"
    if line is not None and 0 < int(line.group(1) or line.group(2)) <= MAX_GPUS:
        return int(line.group(1) or line.group(2)), 2
    whole = gpu_count.whole_or_single(text)
    return (int(whole), 2) if whole is not None else None


def read_gpu_count(seg: Segment, d: Draft) -> bool:
    """A positioning line ("8 卡训练型 GPU 服务器"): the count only, at the lowest rank."""
    found = _count(seg.text, None)
    if found:
        d.set_gpu_count(found[0], 1)
    return found is not None


def read_gpu(seg: Segment, d: Draft, index: GpuIndex, strict: bool, hints: bool = True) -> bool:
    """Card, count, memory and form factor; ``hints`` off for lines about the whole box."""
    text = seg.text
    match = index.find(text)
    if strict and match is None and not _GPU_WORD.search(text):
        return False
    count = _count(text, match)
    memory = _memory(text[match.end :] if match else text)
    found_hints = {name for name, pattern in _HINTS if hints and pattern.search(text)}
    if match is not None and match.family in UNLISTED:
        found_hints.add(UNLISTED[match.family])
    if count:
        d.set_gpu_count(*count)
    if match is not None and match.gpu is not None and d.gpu is None:
        d.gpu, d.gpu_name_raw = match.gpu, seg.raw
    if d.gpu_name_raw is None and (match is not None or _GPU_WORD.search(text)):
        d.gpu_name_raw = seg.raw
    if memory is not None and d.gpu_memory_written is None:
        d.gpu_memory_written = memory
    form = _form(text)
    if form is not None and d.form_factor is None:
        d.form_factor = form
    d.gpu_hints |= found_hints
    return bool(match or count or memory or found_hints)
