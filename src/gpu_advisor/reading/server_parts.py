"""Whether a chat message describes a whole server, not a job: "8x H100 80G, 2x Xeon 8480, 2TB 内存".

A configuration typed or pasted into the chat without ``/analyze`` is still a sheet to
judge (training or inference machine, what to test, what to ask the vendor). It names a
GPU and at least two other parts a job description never lists: the CPU, the system
memory, the data disks, the network card. The patterns are linear (bounded gaps).
"""

from __future__ import annotations

from gpu_advisor.text.lazy import lazy

_PARTS = (
    lazy(
        r"xeon|epyc|threadripper|ryzen|(?<![a-z])i[3579]-\d{4,5}|鲲鹏|海光|(?<![a-z])cpus?(?![a-z])|\d{1,3}\s*+(?:核|c(?![a-z])|cores)"
    ),
    lazy(
        r"\d{1,4}\s*+(?:gb|g|tb|t)\s*+(?:的)?\s*+(?:内存|ddr\d?|ram|memory)|(?:内存|ram|ddr\d)\s*+[:：]?\s*+\d"
    ),
    lazy(
        r"nvme|(?<![a-z])ssd(?![a-z])|固态|(?<![a-z])psu(?![a-z])|电源|硬盘|数据盘|系统盘|\d\s*+tb\s*+(?:盘|硬盘|nvme|ssd)"
    ),
    lazy(
        r"网卡|infiniband|(?<![a-z])ib(?![a-z])|roce|connectx|\d{2,3}\s*+(?:gbps|g)\s*+(?:网|以太)|\d{1,3}\s*+gbe(?![a-z])"
    ),
)


def describes_a_server(low: str) -> bool:
    """At least two non-GPU server parts named in the (normalised) message."""
    return sum(pattern.search(low) is not None for pattern in _PARTS) >= 2
