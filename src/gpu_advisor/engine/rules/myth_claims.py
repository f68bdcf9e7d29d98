"""The claims a request may rest on ("Adam only doubles memory"), by name.

``Workload.claims`` is validated against ``CLAIMS``. Each name is a myth rule's finding
id without ``myth_`` (``engine.rules.myths``); the names are written here, at the
engine's bottom, because the Workload is the engine's input and may not import the myth
rules, which read plans. ``tests/engine/test_import_layers.py`` holds this set equal to
the one the myth declarations generate, so a myth added in one place only fails there.
"""

from __future__ import annotations

CLAIMS: frozenset[str] = frozenset(
    {
        "a100_4g_slice",
        "a100_nvlink_900",
        "adam_doubles_memory",
        "full_finetune_13b_fits_80gb",
        "full_finetune_7b_fits_40gb",
        "h100_10t_tokens_per_day",
        "nvlink_useless_for_inference",
        "pcie_64_gbs",
        "q4_405b_on_one_h100",
        "t4_high_bandwidth",
        "t4_int8_65_tops",
    }
)
