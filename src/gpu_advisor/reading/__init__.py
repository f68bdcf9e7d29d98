"""Reading what people type or paste into the engine's inputs.

- :mod:`gpu_advisor.reading.requirements` — a chat message read into workload slots;
- :mod:`gpu_advisor.reading.sheet` — a pasted configuration sheet read into a
  ``ParsedSheet`` and judged by :mod:`gpu_advisor.engine.sheet`.

Above the engine (it fills engine types), below the bot. The ground-floor text tools it
builds on live in :mod:`gpu_advisor.text`.
"""
