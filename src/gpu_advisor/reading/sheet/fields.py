"""Readers for everything on a sheet except the GPU itself (``gpus.py``).

Each reader looks at one segment's matching form (see ``text.py``), records what it
understands in the ``Draft`` and says whether it understood anything. ``strict``
readers first need a cue word of their own ("ddr5", "网卡", "nvme", "xeon"): they are
the ones run on lines without a key, where "1TB" could be memory or a drive.

Units: memory sizes in GB with 1 TB = 1024 GB (DIMMs come in powers of two); drive
sizes in decimal TB as printed (3.84 TB, 960 GB = 0.96 TB); link speeds in Gb/s.
InfiniBand grades without a number read as EDR 100, HDR 200, NDR 400, XDR 800 Gb/s
(InfiniBand Trade Association roadmap).
"""

from __future__ import annotations

import re
from dataclasses import replace

from gpu_advisor.engine.sheet.models import Nic
from gpu_advisor.reading.sheet.cpus import find_cpu
from gpu_advisor.reading.sheet.draft import Draft
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.sheet_lines import Segment

NIC_SPEEDS = frozenset({1, 10, 25, 40, 50, 100, 200, 400, 800})
IB_GRADES = {"edr": 100.0, "hdr": 200.0, "ndr": 400.0, "xdr": 800.0}
RAM_RANGE_GB = (4.0, 65536.0)
WATT_RANGE = (100.0, 60000.0)
CHASSIS_RANGE = (1, 12)
GB_PER_TB = 1024

_LONGEST_WORD = 32
_CAPACITY = r"(?<![\d.])(\d+(?:\.\d+)?)\s*(tb|t|gb|g)(?![a-z/])"
_RAM_CUE = lazy(r"ddr\d?|内存|记忆体|\bram\b|memory|rdimm|dimm|\becc\b")
_RAM = lazy(rf"(?:(?<![\d.])(\d{{1,2}}) x )?{_CAPACITY}")
_BARE_RAM = lazy(rf"(?:\d{{1,2}} x )?{_CAPACITY}")
_STORAGE_CUE = lazy(
    r"nvme|ssd|hdd|sata|\bsas\b|硬盘|硬碟|盘|碟|disk|drive|u\.2|m\.2|e[13]\.s|存储|储存|storage"
    r"|(?<![\d.])\d{1,2}\.\d{1,2}\s*tb?(?![a-z])"
)
_SYSTEM_DISK = lazy(r"系统|system|\bos\b|boot|启动")
_NVME = lazy(r"nvme|u\.2|e[13]\.s")
_ITEM_SPLIT = lazy(r"\+|&|\band\b|以及|和|及")
_DRIVE_COUNT = lazy(
    r"(?<![\d.])(\d{1,2}) x |(?<![\d.])(\d{1,2})\s*(?:块|个|片|pcs|drives?|disks?)|\bx\s*(\d{1,2})(?![\d.])"
)
_NET_WORDS = (
    r"网卡|网口|网路|网络|nic|infiniband|ib\b|roce|connectx|cx-?\d|以太网|ethernet|ports?\b|端口|光口|电口"
    r"|hdr\b|ndr\b|edr\b|xdr\b|bluefield|dpu\b|ocp|rdma"
)
_NET_CUE = lazy(rf"(?<![a-z])(?:{_NET_WORDS})|gbe|gbps|gb/s|gbit")
_SPEED_LOOSE = lazy(r"(?<![\d.])(\d{1,3})\s*(?:gbe|gbps|gb/s|gbit/s|gbit|gb|g)(?![a-z0-9])")
# At most one word between a bare "200G" and the network word ("200g hdr infiniband"); the
# word is bounded so a long run ("1g1g1g…") is not rescanned from every digit (quadratic).
_SPEED_STRICT = lazy(
    rf"(?<![\d.])(\d{{1,3}})\s*(?:(?:gbe|gbps|gb/s|gbit/s|gbit)(?![a-z])"
    rf"|(?:gb|g)\s*(?:[\w-]{{0,{_LONGEST_WORD}}}\s*)?(?={_NET_WORDS}))"
)
_BARE_NIC = lazy(r"(?:(\d{1,2}) x )?(\d{1,3})\s*(?:gb|g)")
_NIC_COUNT = lazy(r"(?<![\d.])(\d{1,2}) x |(?<![\d.])(\d)\s*(?:口|端口|ports?\b|-port)")
_NIC_COUNT_AFTER = lazy(r"\bx\s*(\d{1,2})(?![\d.])")
_MANAGEMENT = lazy(r"管理|mgmt|management|ipmi|bmc|带外")
_INFINIBAND = lazy(r"infiniband|\bib\b|\b(?:hdr|ndr|edr|xdr)\b|quantum")
_CPU_CUE = lazy(
    r"xeon|epyc|至强|霄龙|cpu|处理器|processor|hygon|海光|鲲鹏|kunpeng|ryzen|threadripper|\bi[3579]-\d"
    r"|\bcores?\b|\d\s*核|\d\s*路|\d{4}[a-z]?\+"
)
_SOCKETS = lazy(
    r"(?<![\d.])(\d)\s*(?:路|颗|个)"
    r"|(?<![\d.])(\d) x (?:socket|cpu|处理器|intel|amd|xeon|epyc|至强|霄龙|海光|hygon)"
    r"|(?<![\d.])(\d)\s*[ps]\b|(?<![\d.])(\d)\s*-?\s*sockets?|(?<![\d.])(\d) x (?=\d[0-9a-z]{2}\d)"
)
_CPU_VENDOR = lazy(r"xeon|epyc|至强|霄龙|intel|amd|hygon|海光|鲲鹏|kunpeng|飞腾|ryzen|threadripper|grace")
_CORES = lazy(r"(?<![\d.])(\d{1,3})\s*(?:c\b|cores?\b|核)")
_TOTAL = lazy(r"共|合计|总|total|in all")
_HIGH_CLOCK = lazy(r"高频|high[ -]?(?:clock|freq)")
_POWER_CUE = lazy(r"电源|psu|power|供电|冗余|redundan|(?<![\d.])\d+(?:\.\d+)?\s*k?w(?![a-z])")
_WATTS = lazy(r"(?:(?<![\d.])(\d{1,2}) x )?(\d+(?:\.\d+)?)\s*(kw|w)(?![a-z])")
_REDUNDANT = lazy(r"冗余|redundan|\bn\s*\+\s*\d|(?<![\d.])\d\s*\+\s*\d(?![\d.])")
_LIQUID = lazy(r"液冷|水冷|liquid|\bdlc\b|冷板|cold[ -]?plate|浸没|immersion")
_AIR = lazy(r"风冷|气冷|air[ -]?cool")
_AIR_WORD = lazy(r"\bair\b|\bfans?\b|风扇")
_CHASSIS = lazy(r"(?<![a-z0-9.])(\d{1,2})\s*u(?![a-z0-9.])")
_NVSWITCH = lazy(r"nv\s?switch|nvlink switch")
_NVLINK = lazy(r"nv\s?link")
_PCIE = lazy(r"pcie|pci-e|pci express")
_TRAINING = lazy(
    r"训练|training|\btrain\b|nccl|all-?reduce|分布式|分散式|distributed|pre-?train|微调|fine-?tun"
)
_INFERENCE = lazy(r"推理|inference|serving|\bserve\b|部署|deploy|在线服务|\bapi\b")
_MULTI_NODE = lazy(r"多机|多节点|集群|丛集|cluster|multi-?node|multi node|跨节点|跨机")


def _gb(size: str, unit: str) -> float:
    return float(size) * (GB_PER_TB if unit.startswith("t") else 1)


def read_ram(seg: Segment, d: Draft, strict: bool) -> bool:
    text, cue = seg.text, _RAM_CUE.search(seg.text)
    bare = _BARE_RAM.fullmatch(text)
    if strict and not cue and not (bare and _gb(bare.group(1), bare.group(2)) % 16 == 0):
        return False
    if not strict and not cue and (_STORAGE_CUE.search(text) or _NET_CUE.search(text)):
        return False
    m = _RAM.search(text)
    if m is None:
        return False
    gb = int(m.group(1) or 1) * _gb(m.group(2), m.group(3))
    if not RAM_RANGE_GB[0] <= gb <= RAM_RANGE_GB[1]:
        return False
    if d.ram_gb is None:
        d.ram_gb = gb
    return True


def _drive_tb(item: str) -> float | None:
    m = re.search(_CAPACITY, item)
    if m is None:
        return None
    size = float(m.group(1))
    return size if m.group(2).startswith("t") else size / 1000


def _drive_count(item: str) -> int:
    m = _DRIVE_COUNT.search(item)
    return int(next(g for g in m.groups() if g)) if m else 1


def _storage_item(item: str, d: Draft) -> bool:
    if not (_STORAGE_CUE.search(item) or re.search(_CAPACITY, item)):
        return False
    d.storage_listed = True
    count = _drive_count(item)
    if _SYSTEM_DISK.search(item):
        d.system_disks = (d.system_disks or 0) + count
    elif _NVME.search(item):
        d.nvme.append((count, _drive_tb(item)))
    return True


def read_storage(seg: Segment, d: Draft, strict: bool) -> bool:
    if strict and not _STORAGE_CUE.search(seg.text):
        return False
    found = False
    for item in _ITEM_SPLIT.split(seg.text):
        found = _storage_item(item, d) or found
    return found


def _nic_count(prefix: str, rest: str) -> int:
    """Ports in one NIC item: "N x" before the speed, "双口"/"N ports" anywhere, "x N" after it."""
    count = 1
    for m in _NIC_COUNT.finditer(prefix):
        count *= int(m.group(1)) if m.group(1) else 1
    for m in _NIC_COUNT.finditer(prefix + " " + rest):
        count *= int(m.group(2)) if m.group(2) else 1
    after = _NIC_COUNT_AFTER.search(rest)
    return count * int(after.group(1)) if after else count


def _nic_item(item: str, d: Draft, strict: bool) -> bool:
    d.infiniband = d.infiniband or bool(_INFINIBAND.search(item))
    d.roce = d.roce or "roce" in item
    if _MANAGEMENT.search(item):
        return True
    m = (_SPEED_STRICT if strict else _SPEED_LOOSE).search(item)
    grade = next((gbps for word, gbps in IB_GRADES.items() if re.search(rf"\b{word}\b", item)), None)
    gbps = float(m.group(1)) if m else grade
    if gbps is None or not 1 <= gbps <= 1600:
        return bool(d.infiniband or d.roce or _NET_CUE.search(item))
    prefix, rest = (item[: m.start()], item[m.end() :]) if m else (item, "")
    d.nics.append(Nic(count=_nic_count(prefix, rest), gbps=gbps))
    return True


def read_network(seg: Segment, d: Draft, strict: bool) -> bool:
    text = seg.text
    bare = _BARE_NIC.fullmatch(text)
    if bare and int(bare.group(2)) in NIC_SPEEDS:
        d.nics.append(Nic(count=int(bare.group(1) or 1), gbps=float(bare.group(2))))
        return True
    if strict and not _NET_CUE.search(text):
        return False
    found = False
    for item in _ITEM_SPLIT.split(text):
        found = _nic_item(item, d, strict) or found
    return found


def read_cpu(seg: Segment, d: Draft, strict: bool) -> bool:
    text = seg.text
    if strict and not _CPU_CUE.search(text):
        return False
    sockets = _SOCKETS.search(text)
    model = find_cpu(text)
    cores = _CORES.search(text)
    high_clock = bool(_HIGH_CLOCK.search(text))
    if d.cpu_sockets is None and sockets:
        d.cpu_sockets = int(next(g for g in sockets.groups() if g))
    if model is not None and d.cpu is None:
        cpu, single_socket_part = model
        d.cpu = replace(cpu, name=cpu.name + "P") if single_socket_part else cpu
        if single_socket_part and d.cpu_sockets is None:
            d.cpu_sockets = 1
    if cores and d.cpu_cores_written is None:
        d.cpu_cores_written, d.cpu_cores_are_total = int(cores.group(1)), bool(_TOTAL.search(text))
    d.cpu_high_clock = d.cpu_high_clock or high_clock
    found = bool(sockets or model or cores or high_clock or _CPU_VENDOR.search(text))
    if found and d.cpu_model_raw is None:
        d.cpu_model_raw = seg.raw
    return found


def read_power(seg: Segment, d: Draft, strict: bool) -> bool:
    text = seg.text
    if strict and not _POWER_CUE.search(text):
        return False
    redundant = bool(_REDUNDANT.search(text))
    d.redundant_power = d.redundant_power or redundant
    watts = None
    for m in _WATTS.finditer(text):
        rating = float(m.group(2)) * (1000 if m.group(3) == "kw" else 1)
        if WATT_RANGE[0] <= rating <= WATT_RANGE[1]:
            watts = rating * int(m.group(1) or 1)
            break
    if watts is not None and d.power_w is None:
        d.power_w = watts
    return redundant or watts is not None or bool(re.search(r"电源|psu|power|供电", text))


def read_cooling(seg: Segment, d: Draft, keyed: bool) -> bool:
    text = seg.text
    if _LIQUID.search(text):
        d.cooling.add("liquid")
    if _AIR.search(text) or (keyed and _AIR_WORD.search(text)):
        d.cooling.add("air")
    return bool(_LIQUID.search(text) or _AIR.search(text) or (keyed and _AIR_WORD.search(text)))


def read_chassis(seg: Segment, d: Draft) -> bool:
    for m in _CHASSIS.finditer(seg.text):
        units = int(m.group(1))
        if CHASSIS_RANGE[0] <= units <= CHASSIS_RANGE[1]:
            if d.chassis_u is None:
                d.chassis_u = units
            return True
    return False


def read_fabric(seg: Segment, d: Draft, gpu_context: bool) -> bool:
    text = seg.text
    if _NVSWITCH.search(text):
        d.fabrics.add("nvswitch")
    if _NVLINK.search(text):
        d.fabrics.add("nvlink")
    pcie = gpu_context and bool(_PCIE.search(text))
    if pcie:
        d.fabrics.add("pcie")
    return pcie or bool(_NVSWITCH.search(text) or _NVLINK.search(text))


def read_wording(seg: Segment, d: Draft) -> bool:
    text = seg.text
    training, inference, multi = (bool(p.search(text)) for p in (_TRAINING, _INFERENCE, _MULTI_NODE))
    d.mentions_training = d.mentions_training or training
    d.mentions_inference = d.mentions_inference or inference
    d.mentions_multi_node = d.mentions_multi_node or multi
    return training or inference or multi
