"""The words of each myth claim: how "Adam only doubles memory" is heard in a message.

Moved from ``engine.rules.myths`` (issue 42): the engine keeps each myth's check and the
true figures, the reading hears the claim. Patterns are anchored on the numbers that make
each claim specific, so ordinary questions do not trigger them, and linear (short lazy
gaps, no nested quantifiers over overlapping classes); each claim is phrased in any
order of its anchors.
"""

from __future__ import annotations

from itertools import permutations

_GAP = r".{0,24}?"  # a short lazy gap between a claim's anchors keeps every pattern linear
_USELESS = (
    "(没用|没意义|无意义|无用|用不到|用不上|不需要|没必要|白花钱|useless|pointless|no use|not needed"
    "|unnecessary|irrelevant|doesn'?t matter|waste|(don'?t|doesn'?t|do not|does not|no) need)"
)
_TWICE = r"(两倍|2 ?倍|二倍|翻倍|翻一倍|x ?2(?!\d)|(?<![\d.])2 ?x(?![a-z])|乘以?2|\* ?2|twice|double)"
_WEIGHTS = r"(权重|weights?|模型大小|模型体积|model size|参数量)"
_FULL = r"(全参|全量|full)"
_ONE = r"(一张|一块|单卡|单张|单块|\bone|\bsingle|\ba|(?<!\d)1 ?x?)"
_WIDE = r"(高带宽|高频宽|大带宽|high.?bandwidth)"
_CHEAP = r"(便宜|廉价|低价|平价|cheap|budget|low.?cost)"
_ALL = r"(都|全|也|all|every|always|any)"
_DAILY = r"(一天|每天|日处理|per day|a day|/ ?day|daily)"


def _orders(*anchors: str) -> tuple[str, ...]:
    """One pattern per order of the anchors (a claim is phrased in any order), each a short gap apart."""
    return tuple(_GAP.join(p) for p in permutations(anchors))


CLAIM_WORDS: dict[str, tuple[str, ...]] = {
    "adam_doubles_memory": (
        rf"(adam|优化器|optimizer){_GAP}{_TWICE}",
        *_orders(r"(训练|train|adam)", _WEIGHTS, _TWICE),
        rf"权重{_GAP}(x|乘以?) ?2",
    ),
    "full_finetune_7b_fits_40gb": _orders(r"(?<![\d.])7b", _FULL, r"(?<![\d.])40 ?g"),
    "full_finetune_13b_fits_80gb": _orders(r"(?<![\d.])13b", _FULL, r"(?<![\d.])80 ?g"),
    "q4_405b_on_one_h100": (
        rf"405b{_GAP}{_ONE} ?h100",
        rf"{_ONE} ?h100{_GAP}405b",
        rf"405b{_GAP}(单卡|单张卡|one card|single card)",
    ),
    "t4_int8_65_tops": (
        rf"t4{_GAP}(?<![\d.])65 ?(tops|t(?![a-z])|万亿)",
        rf"65 ?tops{_GAP}t4",
        rf"t4{_GAP}int8{_GAP}(?<![\d.])65(?![\d.])",
        rf"int8{_GAP}t4{_GAP}(?<![\d.])65(?![\d.])",
    ),
    "a100_nvlink_900": (
        *_orders(r"a100", r"nvlink", r"(?<![\d.])900(?![\d.])"),
        rf"a100{_GAP}(?<![\d.])900 ?g",
        rf"(?<![\d.])900 ?g{_GAP}a100",
    ),
    "pcie_64_gbs": (rf"pcie{_GAP}(?<![\d.])64 ?g", rf"(?<![\d.])64 ?gb?/?s?{_GAP}pcie"),
    "a100_4g_slice": (
        rf"a100{_GAP}(?<![\d.])4 ?gb?(?![.\da-z])\s?(的)?\s?(切片|slice|mig|分片|实例|instance)",
        rf"a100{_GAP}(切片|slice|mig|分片){_GAP}(?<![\d.])4 ?gb?(?![.\da-z])",
        rf"a100{_GAP}(?<![\d.])4 ?gb?(?![.\da-z]){_GAP}(切片|slice|mig|分片)",
        r"(?<![\d.])4 ?gb?(?![.\da-z])\s?(的)?\s?(mig\s?)?(切片|slice|mig|分片)",
    ),
    "h100_10t_tokens_per_day": (
        rf"(?<![\d.])10 ?(t(?![a-z])|万亿|兆|trillion){_GAP}token{_GAP}{_DAILY}",
        rf"{_DAILY}{_GAP}(?<![\d.])10 ?(t(?![a-z])|万亿|兆|trillion){_GAP}token",
    ),
    "t4_high_bandwidth": (
        rf"t4{_GAP}{_WIDE}",
        rf"{_WIDE}{_GAP}t4",
        rf"{_CHEAP}{_GAP}{_ALL}{_GAP}({_WIDE}|带宽|频宽|bandwidth)",
        rf"{_CHEAP}{_GAP}(带宽|频宽|bandwidth){_GAP}{_ALL}",
    ),
    "nvlink_useless_for_inference": (*_orders("nvlink", r"(推理|inference|serving)", _USELESS),),
}
"""Each claim's patterns, by the claim id a ``Workload`` carries (the myth's id without ``myth_``)."""
