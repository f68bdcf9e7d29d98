"""The words every concept trigger is built from, and the markers of a question.

Moved from ``engine.concepts.base`` (issue 42). Patterns run over ``text.normalize``d text
(Simplified, lower-case, half-width), linear: bounded lazy gaps, no nested quantifiers
(``shared/notes/linear-time-parsing.md``).
"""

from __future__ import annotations

GAP = r".{0,30}?"
"""A short lazy gap between two anchors: keeps every trigger linear in the message length."""
TRAIN = r"(训练|训|微调|预训练|train|fine[- ]?tun|full-?param)"
SERVE = r"(推理|部署|上线|服务|serv|infer|deploy|product)"
QUESTION = (
    r"(吗|么|嘛|呢|吧|哪|几|会不会|多久|多长时间|够不够|能不能|行不行|可不可以|是否|为什么|为啥|为何"
    r"|怎么|怎样|如何|还是|是不是|有没有|要不要|多少|多大|什么|啥|区别|差别|不同|how long"
    r"|\?|\bwhy\b|\bhow\b|\bwhich\b|\bwhat\b|\bshould\b|\bdoes\b|\bdo i\b|\bdo we\b|\bis it\b"
    r"|\bis there\b|\bor\b|\bvs\b|worth|explain"
    r"|^(can|could|must|should|do|does|is|are|will|would|shall)\b)"
)
