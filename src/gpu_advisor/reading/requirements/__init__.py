"""Deterministic understanding of free-text requirements, in Chinese and English.

``extract(text, vocab)`` turns one message ("我想微调一个130亿参数的模型，预算每月一万",
"serve Llama-3.1-70B at 20 QPS with 8k context") into an :class:`Extraction`: slots
named exactly like the fields of ``engine.workload.Workload``, flags for the dialog
(``gpu_owned``, ``skip``), :class:`Issue` records for what could not be used, and the
spans that were understood. No model, no statistical detector: normalization, anchored
regular expressions, and ``text.numbers`` on matched number spans only. Input is cut at
:data:`MAX_INPUT_CHARS` characters before parsing.
"""

from gpu_advisor.reading.requirements.extract import MAX_INPUT_CHARS, extract
from gpu_advisor.reading.requirements.result import Extraction, Issue
from gpu_advisor.reading.requirements.vocabulary import Vocabulary
from gpu_advisor.text.normalize import normalize

__all__ = ["MAX_INPUT_CHARS", "Extraction", "Issue", "Vocabulary", "extract", "normalize"]
