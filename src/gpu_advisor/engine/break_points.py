"""Break points shared across plans, keyed by what the queue is made of and the targets.

``queueing.break_qps`` finds the largest rate at which a replica's p99 targets hold by
~10 evaluations of the queue; a plan with targets sizes every layout of the catalog
(43 at the default one, ~230 at 10,000 offers), and that search was almost all of such
a plan's time (issue 41). Sizing now runs each search only until the replica count is
settled (``queueing.BreakPoint``) and to its end for the options a plan shows; the
table keeps where each search stopped, and the next plan goes on from there. Each plan
builds its layouts afresh, so the memo a ``ReplicaShape`` carries dies with the plan;
this one outlives it. Two plans that share
layouts — the same model at another QPS, a what-if, the next turn of a chat — and two
machines of one catalog that make the same replica (an L4 alone and one of an 8×L4
box at TP 1) then search each break point once.

The key is everything the search reads: the shape's numbers, the identity of its
step-time function (``model_identity``: every field of the step-time model, which is a
pure function of them) and the two targets. Equal keys hold equal floats in the same
places, so a hit returns the very float the search would return. A shape built with a
bare function (``identity`` None: tests, the disaggregated decode pool) is not shared.

The table is bounded (``MAX_ENTRIES``, oldest out first) and can be switched off
(``SHARED``) so the benches can plan once each way and compare the answers.
"""

from __future__ import annotations

from collections.abc import Hashable

from pydantic import BaseModel

SHARED = True  # False: every break point is searched afresh (the benches' reference run)
MAX_ENTRIES = 2048  # ~9 plans of 10,000 offers (~175 replicas each); ~1 kB an entry: ~2 MB at most

Stored = float | tuple[float | int | bool, ...]
"""A break point, or where its search stopped (``queueing.BreakPoint``'s bracket and counters)."""

_points: dict[Hashable, Stored] = {}


def lookup(key: Hashable) -> Stored | None:
    """The break point stored under ``key``, or where its search stopped; None when never stored
    (or switched off)."""
    if not SHARED:
        return None
    return _points.get(key)


def store(key: Hashable, value: Stored) -> None:
    """Keep ``value`` under ``key``, dropping the oldest entry when the table is full."""
    if not SHARED:
        return
    if key in _points:  # a search gone further, or finished: its place in the order stays
        _points[key] = value
        return
    while len(_points) >= MAX_ENTRIES:
        try:
            del _points[next(iter(_points))]
        except (KeyError, StopIteration, RuntimeError):  # another thread emptied or changed it first
            break
    _points[key] = value


def clear() -> None:
    """Forget every stored break point (a cold start, for the benches and tests)."""
    _points.clear()


def size() -> int:
    """How many break points are stored."""
    return len(_points)


def model_identity(model: object) -> Hashable | None:
    """Every field of ``model`` (a ``__slots__`` object: ``throughput.ReplicaModel``), frozen.

    All fields, not the ones ``step_s`` reads today, so a field added later is keyed too.
    None for no model, or when a field cannot be frozen into something hashable: that
    shape is not shared. Worked out once per model object (a step-time model is never
    changed once built, and ``replica.speed`` hands the same one to every plan that builds
    that replica), not once per layout sized.
    """
    if model is None:
        return None
    got = _identities.get(id(model))
    if got is not None and got[0] is model:
        return got[1]
    names: tuple[str, ...] = getattr(type(model), "__slots__", ())
    try:
        identity: Hashable | None = (
            type(model).__qualname__,
            *(_frozen(getattr(model, n, None)) for n in names),
        )
    except TypeError:
        identity = None
    if len(_identities) >= IDENTITIES_KEPT:
        _identities.clear()
    _identities[id(model)] = (model, identity)
    return identity


IDENTITIES_KEPT = 1024  # as many as ``replica.SPEEDS_KEPT``: the models a process keeps built
_identities: dict[int, tuple[object, Hashable | None]] = {}  # id -> (the model, kept alive; its identity)


_PLAIN = (float, int, str, bool, type(None))


def _frozen(value: object) -> Hashable:
    """``value`` with lists and dicts as tuples and a record (pydantic model) as its fields.

    Raises TypeError for anything else (a function, an object of unknown equality): two
    such values could differ in what they compute while looking alike here.
    """
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    if isinstance(value, BaseModel):
        return _record(value)
    raise TypeError(f"cannot key a {type(value).__name__}")


def frozen_record(value: BaseModel) -> Hashable:
    """A record's fields, frozen (lists and dicts as tuples): equal records give equal keys."""
    return _record(value)


RECORDS_KEPT = 64
_records: dict[
    int, tuple[BaseModel, Hashable]
] = {}  # id -> (the record, kept alive so no id is reused; frozen)


def _record(value: BaseModel) -> Hashable:
    """A record's fields, frozen once per record object: a plan's layouts share one model."""
    got = _records.get(id(value))
    if got is not None and got[0] is value:
        return got[1]
    frozen = (type(value).__qualname__, _frozen(value.__dict__))
    if len(_records) >= RECORDS_KEPT:
        _records.clear()
    _records[id(value)] = (value, frozen)
    return frozen
