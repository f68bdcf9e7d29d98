"""Checks that need the knowledge base: names the Workload refers to must exist."""

from __future__ import annotations

from gpu_advisor.engine.architecture import find_model
from gpu_advisor.engine.errors import EngineError
from gpu_advisor.engine.specs import GpuSpec, Knowledge
from gpu_advisor.engine.workload import Workload
from gpu_advisor.text.names import resolve


def find_gpu(name: str, gpus: dict[str, GpuSpec]) -> GpuSpec | None:
    """The card ``name`` stands for, resolved as chat resolves it (see text.names)."""
    return resolve(name, gpus)


def check_references(w: Workload, kb: Knowledge) -> None:
    """Raise EngineError naming the field when the workload names something unknown."""
    if w.gpu is not None and find_gpu(w.gpu, kb.gpus) is None:
        raise EngineError("unknown_gpu", "gpu", name=w.gpu)
    if w.model is not None and w.hf_config is None and find_model(w.model, kb.models) is None:
        raise EngineError("unknown_model", "model", name=w.model)


def canonical(w: Workload, kb: Knowledge) -> Workload:
    """The workload with ``gpu`` and ``model`` replaced by their knowledge ids."""
    check_references(w, kb)
    update: dict[str, str] = {}
    if w.gpu is not None:
        gpu = find_gpu(w.gpu, kb.gpus)
        assert gpu is not None
        update["gpu"] = gpu.id
    if w.model is not None and w.hf_config is None:  # with a config.json, the name is a label
        arch = find_model(w.model, kb.models)
        assert arch is not None
        update["model"] = arch.id
    return w.model_copy(update=update)
