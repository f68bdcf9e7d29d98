"""Claims a user repeats from the seed articles' known errors, and free-GPU platforms.

When a request rests on one of those claims ("Adam only doubles memory", "405B Q4 runs
on one H100"), the engine corrects it with the true numbers (``engine.myths``); here we
only recognise the claim in the user's words. Patterns are anchored on the numbers
that make each claim specific, so ordinary questions do not trigger them.
"""

from __future__ import annotations

import re

from bot.understand import normalize

_GAP = r".{0,24}?"
CLAIM_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    name: tuple(re.compile(p) for p in patterns)
    for name, patterns in {
        "adam_doubles_memory": (rf"(adam|优化器){_GAP}(翻倍|乘以?2|x ?2|double)", rf"权重{_GAP}(x|乘以?) ?2"),
        "full_finetune_7b_fits_40gb": (
            rf"7b{_GAP}(全参|全量|full){_GAP}40 ?g",
            rf"40 ?g{_GAP}(全参|全量|full){_GAP}7b",
        ),
        "q4_405b_on_one_h100": (rf"405b{_GAP}(一张|单卡|单张|one|single|1 ?x?) ?h100", rf"h100{_GAP}405b"),
        "t4_int8_65_tops": (rf"t4{_GAP}65 ?tops",),
        "a100_nvlink_900": (rf"a100{_GAP}nvlink{_GAP}900", rf"a100{_GAP}900 ?gb"),
        "pcie_64_gbs": (rf"pcie{_GAP}64 ?gb",),
        "a100_4g_slice": (rf"a100{_GAP}4 ?g ?(切片|slice|mig)", r"4 ?g ?(切片|slice)"),
        "h100_10t_tokens_per_day": (rf"10 ?t{_GAP}token", rf"10 ?万亿{_GAP}token"),
        "t4_high_bandwidth": (rf"t4{_GAP}(高带宽|high.bandwidth)",),
        "nvlink_useless_for_inference": (
            rf"nvlink{_GAP}(推理|inference){_GAP}(没用|没意义|无用|useless|pointless)",
            rf"(推理|inference){_GAP}nvlink{_GAP}(没用|没意义|无用|useless|pointless)",
        ),
    }.items()
}
FREE_PLATFORM = re.compile(r"colab|kaggle|(免费|free)\s*(的)?\s*(gpu|算力|平台|显卡|tier)")


def claims_in(text: str) -> list[str]:
    low = normalize(text)
    return [name for name, patterns in CLAIM_PATTERNS.items() if any(p.search(low) for p in patterns)]


def mentions_free_platform(text: str) -> bool:
    return FREE_PLATFORM.search(normalize(text)) is not None
