"""Mixture-of-experts sizes written as a shape: "30B-A3B", "235B-A22B", "8x7B", "8x22B".

A shape carries two numbers that are one fact: "235B-A22B" is 235B parameters of which
22B are active per token (Qwen's naming), "8x7B" is eight 7B-sized experts (Mistral's).
Read as plain sizes they would conflict (235 vs 22) or be nonsense (8 GPUs and a 7B
model). The Workload sizes memory by total parameters and has no active-parameter
field, so a shape resolves to the library model whose id ends with it (the shortest
such id: "30B-A3B" is qwen3-30b-a3b, not qwen3-coder-30b-a3b) and says so. A total-
active shape the library lacks still gives its total (memory depends on it); an
"NxM" shape the library lacks is reported, not guessed (8x7B is 46.7B, not 56B).

Runs after known model names, so "Qwen3-30B-A3B" and "Mixtral 8x7B" are already read.
"""

from __future__ import annotations

import re

from gpu_advisor.reading.requirements.scan import Scan
from gpu_advisor.reading.requirements.vocabulary import Vocabulary
from gpu_advisor.text.lazy import lazy
from gpu_advisor.text.names import key

_NUMBER = r"\d{1,4}(?:\.\d{1,2})?"
_TOTAL_ACTIVE = lazy(rf"(?<![\w.])(?P<total>{_NUMBER}) ?b[-_ ]?a(?P<active>{_NUMBER})b(?![a-z0-9])")
_EXPERTS = lazy(rf"(?<![\w.])\d{{1,3}} ?x ?{_NUMBER} ?b(?![a-z0-9])")


def read_shapes(scan: Scan, vocab: Vocabulary) -> None:
    """MoE shapes become the library model they name, else a total size or an issue."""
    for pattern in (_TOTAL_ACTIVE, _EXPERTS):
        for match in scan.matches(pattern):
            _read_shape(scan, vocab, match)


def _read_shape(scan: Scan, vocab: Vocabulary, match: re.Match[str]) -> None:
    name = match.group()
    model_id = model_of_shape(name, vocab.model_ids)
    if model_id is not None and "model" not in scan.slots:
        scan.put("model", model_id)
        scan.report("model_from_shape", "model", name=name, model=model_id)
        scan.claim(*match.span())
        return
    scan.claim(*match.span(), understood=False)
    if not scan.has_issue("unknown_model"):  # one unknown name said once, not once per repeat
        scan.report("unknown_model", "model", name=name, closest=vocab.closest_model(name))
    if model_id is None and "total" in match.re.groupindex and "model" not in scan.slots:
        scan.put_number("params_b", float(match.group("total")), match.span())


def model_of_shape(shape: str, model_ids: list[str]) -> str | None:
    """The shortest library id that ends with the shape ("8x7b" → "mixtral-8x7b")."""
    wanted = key(shape)
    fits = [model_id for model_id in model_ids if key(model_id).endswith(wanted)]
    return min(fits, key=lambda model_id: (len(model_id), model_id)) if fits else None
