"""Cards ruled out or in: "不要 3090", "no consumer cards", "只用国产卡", "only NVIDIA".

Runs before ``read_gpus`` so an excluded name ("不要 3090") is claimed here and never
becomes the ``gpu`` slot. A card name is excluded when a refusal word sits just before
it in the same clause, or when it continues a list that began with one ("不要3090和4090").
Segments and vendors use the ids of ``engine.specs`` (``consumer``; ``nvidia``,
``huawei``, ``amd``). "国产" means Chinese vendors (huawei among the cards we know, also
hygon and cambricon by name), read as ``domestic_only``. The few Traditional spellings
(國產, 遊戲) are written into the patterns, as the shared table lacks them.
"""

from __future__ import annotations

from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.reading.requirements.vocabulary import Vocabulary
from gpu_advisor.text.lazy import lazy

_REFUSE = (
    r"(?:不要|不用|别用|别给我|别推荐|不推荐|排除|除了|不考虑|不想用|不能用|不买|"
    r"(?<![a-z])(?:no|not|without|avoid|exclude|excluding|except|anything but|skip"
    r"|don'?t (?:want|use|need)|do not (?:want|use|need))(?![a-z]))"
)
# "为什么不用 T4" / "why not a T4?" asks about the card; it does not refuse it.
_NOT_A_QUESTION = r"(?<!为什么)(?<!为啥)(?<!为何)(?<!怎么)(?<!干嘛)(?<!why )(?<!why)"
_REFUSED_NAME = lazy(
    rf"{_NOT_A_QUESTION}{_REFUSE}\s*+(?:推荐|用|要)?\s*+(?:(?<![a-z])the\s++)?(?:nvidia\s*+|英伟达\s*+)?$"
)
_LIST_JOIN = lazy(r"\s*+(?:和|跟|与|或|或者|、|,|，|/|(?<![a-z])(?:or|and|nor)(?![a-z]))\s*+$")
_REFUSED_SEGMENT = lazy(
    rf"{_REFUSE}\s*+(?:要|用)?\s*+(?:消费级|消費級|游戏卡|遊戲卡|民用卡|家用卡|(?<![a-z])(?:consumer|gaming|geforce)(?![a-z]))"
    r"(?:\s*+(?:显卡|卡|cards?|gpus?))?"
    r"|只(?:要|用|考虑)?\s*+(?:数据中心|服务器|企业级)\s*+(?:卡|显卡|gpu)"
    r"|(?<![a-z])(?:datacenter|data center|server)\s*+(?:cards?|gpus?)\s+only(?![a-z])"
)
_ONLY = r"(?:只用|只要|只考虑|只能用|必须用|仅用|(?<![a-z])only(?:\s+use)?(?![a-z]))"
_DOMESTIC = lazy(
    rf"{_ONLY}\s*+(?:[国國][产產]|[国國]内|信创|(?<![a-z])(?:domestic|chinese)(?![a-z]))|[国國][产產]化|信创"
)
_VENDORS = (
    ("nvidia", r"英伟达|n卡|(?<![a-z])nvidia(?![a-z])"),
    ("huawei", r"华为|昇腾|(?<![a-z])(?:huawei|ascend)(?![a-z])"),
    ("amd", r"(?<![a-z])amd(?![a-z])|a卡"),
)
_ONLY_VENDOR = lazy(
    rf"{_ONLY}\s*+(?:" + "|".join(f"(?P<{vendor}>{pattern})" for vendor, pattern in _VENDORS) + ")"
)
_REACH = 16


def read_exclusions(scan: Scan, vocab: Vocabulary) -> None:
    """Refused card names, refused segments, and "only" vendors, into ``scan.constraints``."""
    _read_refused_names(scan, vocab)
    for match in scan.matches(_REFUSED_SEGMENT):
        if "consumer" not in scan.constraints.exclude_segments:
            scan.constraints.exclude_segments.append("consumer")
        scan.claim(*match.span())
    for match in scan.matches(_DOMESTIC):
        scan.constraints.domestic_only = True
        scan.claim(*match.span())
    for match in scan.matches(_ONLY_VENDOR):
        scan.constraints.only_vendor = next(v for v, _ in _VENDORS if match.group(v))
        scan.claim(*match.span())


def _read_refused_names(scan: Scan, vocab: Vocabulary) -> None:
    last_end: int | None = None
    for hit in vocab.gpus.find(scan.text):
        if not scan.is_free(hit.start, hit.end):
            continue
        before = scan.text[max(0, hit.start - _REACH) : hit.start]
        continues = last_end is not None and _LIST_JOIN.fullmatch(scan.text[last_end : hit.start])
        if not (continues or _REFUSED_NAME.search(before)):
            continue
        if hit.id not in scan.constraints.exclude_gpus:
            scan.constraints.exclude_gpus.append(hit.id)
        scan.claim(hit.start, hit.end)
        last_end = hit.end
