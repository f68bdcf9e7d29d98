"""Common server CPUs and their core counts, so "2×EPYC 7763" becomes 128 cores.

Core counts per socket from the vendors' product pages: AMD EPYC 7002/7003/9004/9005
specifications (https://www.amd.com/en/products/specifications/processors) and Intel
ARK for Xeon Scalable 2nd-5th gen (https://ark.intel.com). "F" EPYC parts are AMD's
frequency-optimised line, which seed 004's "single-socket high-clock CPU" describes.
An EPYC model ending in "P" is a single-socket part.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_advisor.text.lazy import lazy


@dataclass(frozen=True)
class CpuModel:
    key: str
    name: str
    cores: int
    high_clock: bool = False


def _amd(key: str, cores: int, high_clock: bool = False) -> CpuModel:
    return CpuModel(key, f"AMD EPYC {key.upper()}", cores, high_clock)


def _intel(key: str, cores: int, line: str) -> CpuModel:
    return CpuModel(key, f"Intel Xeon {line} {key.upper()}", cores)


CPUS: tuple[CpuModel, ...] = (
    # AMD EPYC 7002 (Rome) and 7003 (Milan)
    _amd("7742", 64), _amd("7h12", 64), _amd("7702", 64), _amd("7542", 32), _amd("7502", 32),
    _amd("7452", 32), _amd("7402", 24), _amd("7302", 16), _amd("7763", 64), _amd("7713", 64),
    _amd("7663", 56), _amd("7543", 32), _amd("7513", 32), _amd("7453", 28), _amd("7413", 24),
    _amd("7343", 16), _amd("7313", 16), _amd("75f3", 32, True), _amd("74f3", 24, True),
    _amd("73f3", 16, True),
    # AMD EPYC 9004 (Genoa) and 9005 (Turin)
    _amd("9654", 96), _amd("9554", 64), _amd("9534", 64), _amd("9454", 48), _amd("9354", 32),
    _amd("9334", 32), _amd("9254", 24), _amd("9124", 16), _amd("9754", 128), _amd("9474f", 48, True),
    _amd("9374f", 32, True), _amd("9274f", 24, True), _amd("9174f", 16, True), _amd("9965", 192),
    _amd("9755", 128), _amd("9655", 96), _amd("9575f", 64, True),
    # Intel Xeon Scalable 2nd gen (Cascade Lake)
    _intel("8280", 28, "Platinum"), _intel("8260", 24, "Platinum"), _intel("6248r", 24, "Gold"),
    _intel("6248", 20, "Gold"), _intel("6240", 18, "Gold"), _intel("6230", 20, "Gold"),
    _intel("5218", 16, "Gold"), _intel("5220r", 24, "Gold"), _intel("4214", 12, "Silver"),
    _intel("4210", 10, "Silver"),
    # 3rd gen (Ice Lake)
    _intel("8380", 40, "Platinum"), _intel("8368", 38, "Platinum"), _intel("8362", 32, "Platinum"),
    _intel("8360y", 36, "Platinum"), _intel("8358", 32, "Platinum"), _intel("8352y", 32, "Platinum"),
    _intel("8352v", 36, "Platinum"), _intel("6348", 28, "Gold"), _intel("6346", 16, "Gold"),
    _intel("6342", 24, "Gold"), _intel("6338", 32, "Gold"), _intel("6336y", 24, "Gold"),
    _intel("6330", 28, "Gold"), _intel("6326", 16, "Gold"), _intel("5320", 26, "Gold"),
    _intel("5318y", 24, "Gold"), _intel("4316", 20, "Silver"), _intel("4314", 16, "Silver"),
    _intel("4310", 12, "Silver"),
    # 4th gen (Sapphire Rapids) and 5th gen (Emerald Rapids)
    _intel("8490h", 60, "Platinum"), _intel("8480+", 56, "Platinum"), _intel("8470", 52, "Platinum"),
    _intel("8468", 48, "Platinum"), _intel("8462y+", 32, "Platinum"), _intel("8460y+", 40, "Platinum"),
    _intel("8458p", 44, "Platinum"), _intel("6454s", 32, "Gold"), _intel("6448y", 32, "Gold"),
    _intel("6438y+", 32, "Gold"), _intel("6430", 32, "Gold"), _intel("5418y", 24, "Gold"),
    _intel("4410y", 12, "Silver"), _intel("8592+", 64, "Platinum"), _intel("8580", 60, "Platinum"),
    _intel("8568y+", 48, "Platinum"), _intel("6548y+", 32, "Gold"),
)  # fmt: skip
_BY_KEY = {c.key: c for c in CPUS}
_TOKEN = lazy(r"(?<![a-z0-9])(\d[0-9a-z]{2}\d[a-z]?\+?)(?![a-z0-9])")


def find_cpu(text: str) -> tuple[CpuModel, bool] | None:
    """The first known CPU model in ``text`` and whether it is a single-socket ("P") part."""
    for match in _TOKEN.finditer(text):
        token = match.group(1)
        for key in (token, token.removesuffix("+"), token.removesuffix("p"), token + "+"):
            if key in _BY_KEY:
                single = key != token and token.endswith("p") and _BY_KEY[key].name.startswith("AMD")
                return _BY_KEY[key], single
    return None
