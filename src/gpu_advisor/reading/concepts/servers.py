"""How the concept questions of ``engine.concepts.servers`` are heard: triggers and examples.

Moved from the engine (issue 42): the engine keeps each concept's facts, the reading hears
the question. Patterns are linear (short lazy gaps between anchors).
"""

from __future__ import annotations

from gpu_advisor.reading.concepts.words import GAP, SERVE, TRAIN

_KIND = r"(型|机|服务器|卡|box|server|machine|node|gpu)?"
_KINDS = rf"({TRAIN}{_KIND}{GAP}{SERVE}{_KIND})"
_NET = (
    r"(网络|网路|网卡|infiniband|\bib\b|roce|rdma|network|networking|带宽要求"
    r"|interconnect between (nodes|machines))"
)
_MONEY = (
    r"(生意|商业模式|盈利|赚钱|回本|回收成本|business model|gpu business|make money|profit"
    r"|payback|pay back|pay for itself)"
)
_ABOUT = rf"({TRAIN}|{SERVE}|算力|显卡|gpu|card)"
_STORE = r"(存储|储存|硬盘|磁盘|nvme|ssd|storage|disk|checkpoint)"

TRIGGERS: dict[str, tuple[str, ...]] = {
    "network_and_storage": (
        rf"{_KINDS}{GAP}({_NET}|{_STORE})",
        rf"({_NET}|{_STORE}){GAP}{_KINDS}",
        rf"(多机|multi-?node|across (nodes|machines)){GAP}{_NET}",
        rf"{SERVE}{GAP}(需要|要|need){GAP}(infiniband|\bib\b|roce|rdma)",
        rf"(infiniband|\bib\b|roce|rdma){GAP}{SERVE}",
    ),
    "cpu_role": (
        rf"(cpu|处理器|核数|多少核|几核|cores?){GAP}{_KINDS}",
        rf"{_KINDS}{GAP}(cpu|处理器|核数|多少核|几核|cores)",
        rf"({TRAIN}|{SERVE}){GAP}(cpu|处理器){GAP}(重要|matter|关键|作用|角色|role|多少核|几核|几个核|核数|cores)",
        rf"(cpu|处理器){GAP}(重要|matter|关键|作用|角色|role){GAP}({TRAIN}|{SERVE})",
    ),
    "business_model": (
        rf"{_MONEY}{GAP}{_ABOUT}",
        rf"{_ABOUT}{GAP}{_MONEY}",
    ),
    "seven_dimensions": (
        rf"{_KINDS}{GAP}(维度|方面|哪几|几个|dimension|aspects?|\bways\b)",
        rf"(维度|方面|哪些|dimension|aspects?|in what ways){GAP}{_KINDS}",
    ),
}
EXAMPLES: dict[str, tuple[str, ...]] = {
    "network_and_storage": (
        "训练机和推理机对网络、存储的要求有什么不同？",
        "does an inference server need InfiniBand?",
        "多機訓練要什麼網路",
    ),
    "cpu_role": (
        "训练服务器和推理服务器的 CPU 有什么不同？",
        "how much CPU does a training box need compared with a serving box?",
        "訓練機的CPU重要嗎",
    ),
    "business_model": (
        "训练算力和推理算力的生意有什么不同？",
        "how does a GPU serving business make money compared with training?",
        "推理服務怎麼賺錢",
    ),
    "seven_dimensions": (
        "训练型服务器和推理型服务器有哪些维度的区别？",
        "in what ways do training servers and inference servers differ?",
        "訓練型和推理型伺服器差在哪些方面",
    ),
}
