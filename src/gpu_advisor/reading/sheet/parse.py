"""Free text → ``ParsedSheet`` plus the lines nothing understood.

A line's key ("内存", "Network", "GPU 互联") picks which readers see its value; a key
with no value ("本地存储：", "网络：") is a heading whose category carries over to the
unkeyed bullets below it. Lines without a key go through every reader in strict mode
(each needs its own cue word), GPU, network and CPU first, then the readers that
would otherwise mistake a number for their own (storage, memory, power). A few words
are unambiguous wherever they stand and are always read: NVLink/NVSwitch, liquid or
air cooling, a chassis height ("8U") and what the sheet says it is for.

A line counts as understood when any reader took something from it. Blank lines,
headings, table rules and header rows are neither understood nor reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gpu_advisor.engine.sheet.models import ParsedSheet
from gpu_advisor.engine.specs import Knowledge
from gpu_advisor.reading.sheet import fields as f
from gpu_advisor.reading.sheet.draft import Draft, finish
from gpu_advisor.reading.sheet.gpus import GpuIndex, read_gpu, read_gpu_count
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.sheet_lines import Line, Segment, split_lines

_CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("interconnect", lazy(r"互联|互连|interconnect|topolog|拓扑|nvlink|nvswitch|fabric")),
    ("gpu", lazy(r"gpu|显卡|显示卡|加速卡|计算卡|显存|accelerator|graphics")),
    ("cpu", lazy(r"cpu|处理器|processor")),
    ("ram", lazy(r"内存|记忆体|memory|\bram\b|dimm")),
    ("storage", lazy(r"存储|储存|storage|disk|硬盘|硬碟|ssd|nvme|盘|碟|drive")),
    ("network", lazy(r"网络|网路|网卡|网口|\bnics?\b|network|ethernet|以太网|infiniband|\bib\b")),
    ("power", lazy(r"电源|power|psu|供电")),
    ("cooling", lazy(r"散热|cooling|冷却|thermal|风冷|液冷")),
    ("chassis", lazy(r"机箱|机壳|机架|chassis|form factor|外形|尺寸|height|\brack\b|高度")),
    ("purpose", lazy(r"定位|用途|purpose|position|type|类型|usage|use case|场景|model|型号|机型|适用")),
)


def category(key: str | None) -> str | None:
    if key is None:
        return None
    return next((name for name, pattern in _CATEGORIES if pattern.search(key)), None)


class _Reader:
    """Runs the readers over one sheet, filling one Draft."""

    def __init__(self, kb: Knowledge) -> None:
        self.index = GpuIndex(kb)
        self.draft = Draft()

    def gpu(self, seg: Segment, strict: bool) -> bool:
        found = read_gpu(seg, self.draft, self.index, strict)
        return f.read_fabric(seg, self.draft, gpu_context=found) or found

    def model(self, seg: Segment) -> bool:
        """A card named on a line about the whole box ("型号：HGX H100 8-GPU")."""
        if self.index.find(seg.text) is None:
            return False
        return read_gpu(seg, self.draft, self.index, strict=True, hints=False)

    def keyed(self, cat: str, seg: Segment) -> bool:
        d = self.draft
        readers: dict[str, Callable[[], bool]] = {
            "gpu": lambda: self.gpu(seg, strict=False),
            "interconnect": lambda: f.read_fabric(seg, d, gpu_context=True) | self.gpu(seg, strict=True),
            "cpu": lambda: f.read_cpu(seg, d, strict=False),
            "ram": lambda: f.read_ram(seg, d, strict=False),
            "storage": lambda: f.read_storage(seg, d, strict=False),
            "network": lambda: f.read_network(seg, d, strict=False),
            "power": lambda: f.read_power(seg, d, strict=False),
            "cooling": lambda: f.read_cooling(seg, d, keyed=True) | f.read_chassis(seg, d),
            "chassis": lambda: f.read_chassis(seg, d) | f.read_cooling(seg, d, keyed=False),
            "purpose": lambda: read_gpu_count(seg, d) | self.model(seg) | f.read_wording(seg, d),
        }
        return readers[cat]()

    def auto(self, seg: Segment) -> bool:
        d = self.draft
        found = self.gpu(seg, strict=True)
        found = f.read_network(seg, d, strict=True) or found
        found = f.read_cpu(seg, d, strict=True) or found
        if not found:
            found = (
                f.read_storage(seg, d, strict=True)
                or f.read_ram(seg, d, strict=True)
                or f.read_power(seg, d, strict=True)
            )
        return found

    def always(self, seg: Segment) -> bool:
        d = self.draft
        found = f.read_fabric(seg, d, gpu_context=False)
        found = f.read_cooling(seg, d, keyed=False) or found
        found = f.read_chassis(seg, d) or found
        f.read_wording(seg, d)
        return found

    def segment(self, cat: str | None, seg: Segment) -> bool:
        found = self.keyed(cat, seg) if cat else False
        if not found:
            found = self.auto(seg)
        return self.always(seg) or found


def parse(text: str, kb: Knowledge) -> tuple[ParsedSheet, list[str]]:
    """The sheet's fields, and the original lines nothing understood."""
    reader = _Reader(kb)
    unparsed: list[str] = []
    context: str | None = None
    for line in split_lines(text):
        if line.heading:
            context = category(line.key)
            continue
        cat = category(line.key) if line.key is not None else context
        if line.key is not None:
            context = None
        if not _read_line(reader, line, cat):
            unparsed.append(line.original)
    return finish(reader.draft), unparsed


def _read_line(reader: _Reader, line: Line, cat: str | None) -> bool:
    found = False
    for seg in line.segments:
        found = reader.segment(cat, seg) or found
    return found
