"""How a card's catalogue name is said to a person: without the vendor's marketing words.

"NVIDIA GeForce RTX 3090" is "RTX 3090" on a phone screen, in a chart label and in a
sentence alike; the engine and the JSON keep the catalogue's full name.
"""

from __future__ import annotations

_VENDOR_WORDS = ("NVIDIA ", "GeForce ", "Tesla ", "Huawei ")


def short_gpu(name: str) -> str:
    """'NVIDIA GeForce RTX 3090' → 'RTX 3090'."""
    for word in _VENDOR_WORDS:
        name = name.replace(word, "")
    return name.strip()
