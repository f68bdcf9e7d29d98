"""Dedicated fuzz run: N generated inputs through the parser, the sheet reader and the contract.

``python -m bench.fuzz --n 100000`` prints how many inputs each target took and how many
raised (it must be zero). Inputs mix requirement words, numbers in both scripts, junk
bytes, markup and very long strings, seeded so a failure can be replayed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import time
import traceback
from collections.abc import Callable

from gpu_advisor import knowledge
from gpu_advisor.bot.contract import ContractError, parse_workload
from gpu_advisor.bot.dialog.vocab import vocabulary
from gpu_advisor.reading.requirements import extract
from gpu_advisor.reading.sheet import analyze

WORDS = (
    "部署",
    "训练",
    "微调",
    "13B",
    "七百亿",
    "1.5万",
    "LoRA",
    "QLoRA",
    "int4",
    "AWQ",
    "并发",
    "QPS",
    "预算",
    "$",
    "¥",
    "7×24",
    "跑三天",
    "8x",
    "H100",
    "A100 80G",
    "T4",
    "4090",
    "上下文",
    "32k",
    "-5k",
    "首token",
    "ms",
    "token",
    "亿",
    "万",
    "十三",
    "GPU：",
    "内存：1TB",
    "NVLink",
    "PCIe",
    "2×25GbE",
    "8U",
    "液冷",
    "<script>",
    "'; drop",
    "\x00",
    "😀",
    "𝟏𝟑",
    "１３Ｂ",
    "萬",
    "億",
    "\n",
    " ",
    "/",
    "{",
    "}",
)


def sample(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.6:
        return " ".join(
            rng.choice(WORDS) + (str(rng.randint(-99, 99999)) if rng.random() < 0.3 else "")
            for _ in range(rng.randint(1, 12))
        )
    if kind < 0.9:
        return "".join(chr(rng.randint(1, 0x2FFFF)) for _ in range(rng.randint(0, 60)))
    return rng.choice(WORDS) * rng.randint(100, 3000)


def contract_target(text: str) -> None:
    with contextlib.suppress(ContractError):  # a refusal is the right answer; anything else is a bug
        parse_workload(json.dumps({"task": "infer", "model": text[:40], "context_len": len(text)}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--tiny", action="store_true", help="a few inputs: does the fuzzer still run?")
    args = parser.parse_args()
    if args.tiny:
        args.n = 20
    kb = knowledge.load()
    vocab = vocabulary(kb)
    targets: dict[str, Callable[[str], object]] = {
        "understand.extract": lambda t: extract(t, vocab),
        "sheet.analyze": lambda t: analyze(t, kb),
        "contract.parse_workload": contract_target,
    }
    rng = random.Random(args.seed)
    failures = 0
    print(f"{'target':28} {'inputs':>8} {'raised':>7} {'seconds':>8}")
    for name, fn in targets.items():
        started, raised = time.monotonic(), 0
        for _ in range(args.n):
            text = sample(rng)
            try:
                fn(text)
            except Exception:
                raised += 1
                if raised <= 3:
                    traceback.print_exc()
        failures += raised
        print(f"{name:28} {args.n:>8} {raised:>7} {time.monotonic() - started:>8.1f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
