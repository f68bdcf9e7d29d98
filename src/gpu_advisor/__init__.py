"""GPU Advisor (算力选型助手): which GPU server to rent, and why.

One import name, floors from the ground up — a package imports only from the floors
below it, never from one above:

1. :mod:`gpu_advisor.text` — text tools with no domain knowledge: the normaliser, numbers
   (Arabic and Chinese), the name resolver, a pasted sheet cut into lines;
2. :mod:`gpu_advisor.engine` — the pure sizing library (a workload in, a plan out) and its
   record types;
3. :mod:`gpu_advisor.knowledge` — GPUs, models, runtimes and prices: YAML read from disk and
   validated into the engine's records;
4. :mod:`gpu_advisor.reading` — user text read into engine inputs (requirements,
   configuration sheets, the question a message asks);
5. :mod:`gpu_advisor.locales` — findings and replies rendered in Chinese and English;
6. :mod:`gpu_advisor.bot` — the dialog, the turn, storage and every chat surface.

``tests/test_layers.py`` holds the code to this order.
"""
