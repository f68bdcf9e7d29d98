"""Prometheus metrics for the web surface: turns, plan latency, errors by kind, refusals, queue depth,
and admission control (requests queued for a worker, requests refused for overload).

Each metric is registered once per process, here at import, on prometheus-client's
default registry (registering twice raises ``Duplicated timeseries``; importing a
module twice does not re-run it).

Several server processes (``gpu-advisor web --processes N``, or compose's web ×2)
share one port, so a scrape lands on whichever process the kernel picks. Set
``PROMETHEUS_MULTIPROC_DIR`` to an empty directory writable by every process *before*
they start: prometheus-client then keeps each process's samples in files there and
``/metrics`` sums them (``MultiProcessCollector``) — counters and histograms add up,
the queue-depth gauge is ``livesum`` (the live processes' depths added). Without it
each process exposes its own numbers only: right for one process, a random one of N
otherwise. The directory must be emptied when the service restarts (compose mounts a
tmpfs; the systemd unit uses ``RuntimeDirectory=``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    PLATFORM_COLLECTOR,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
# No python_info{version="3.11.7", …}: a scrape need not tell anyone which CVEs to try.
REGISTRY.unregister(PLATFORM_COLLECTOR)
# Plan latency buckets (seconds): a cached plan answers in milliseconds, a cold catalog
# search in tens of them, and the turn deadline (10 s by default) ends the tail.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

TURNS = Counter("gpu_advisor_turns", "Chat turns answered, by surface", ["surface"])
PLAN_SECONDS = Histogram(
    "gpu_advisor_plan_seconds",
    "Wall time of a request that runs the engine (chat turn, estimate, recommend, analyze)",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
ERRORS = Counter("gpu_advisor_errors", "Requests answered with an error, by error code", ["kind"])
RATE_LIMITED = Counter("gpu_advisor_rate_limited", "Requests refused by a rate limit (HTTP 429)")
QUEUE_DEPTH = Gauge(
    "gpu_advisor_queue_depth",
    "Requests in flight waiting for a turn worker",
    multiprocess_mode="livesum",
)
ADMISSION_WAITING = Gauge(
    "gpu_advisor_admission_waiting",
    "Requests queued by admission control for a free turn worker (bot.admission)",
    multiprocess_mode="livesum",
)
ADMISSION_REJECTED = Counter(
    "gpu_advisor_admission_rejected",
    "Requests refused by admission control (HTTP 503), by reason",
    ["reason"],
)
ADMISSION_RECLAIMED = Counter(
    "gpu_advisor_admission_reclaimed",
    "Worker slots taken back by the watchdog from requests that ended or overran without releasing",
)
WORKERS_RESTARTED = Counter(
    "gpu_advisor_workers_restarted",
    "Dead turn workers the watchdog started again before any request asked for them",
)


def exposition() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type: this process's, or every process's summed."""
    if os.environ.get(MULTIPROCESS_VARIABLE):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(LiveProcesses(os.environ[MULTIPROCESS_VARIABLE]))
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST


class LiveProcesses(Collector):
    """``process_cpu_seconds_total``, ``process_resident_memory_bytes`` and the rest of
    prometheus-client's process series for every live process that keeps samples in
    ``directory``, each labelled with its ``pid`` (issue 41: multi-process mode had none).

    The default registry's process collector describes the one process that serves the
    scrape, a random one of N; the summing collector knows nothing of CPU or memory. The
    processes here are the server processes and their turn workers (every process that
    loaded this module leaves ``<kind>_<pid>.db`` files); whichever process is scraped reads
    each one's /proc entry, so no process has to publish its own numbers on a timer. A
    process gone (killed with -9, say) has no /proc entry and no series.
    """

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def pids(self) -> list[int]:
        found = set()
        for name in os.listdir(self.directory):
            digits = name.removesuffix(".db").rpartition("_")[2]
            if name.endswith(".db") and digits.isdigit():
                found.add(int(digits))
        return sorted(pid for pid in found if os.path.exists(f"/proc/{pid}"))

    def collect(self) -> Iterator[Metric]:
        families: dict[str, Metric] = {}
        for pid in self.pids():
            one = ProcessCollector(pid=functools.partial(int, pid), registry=None)
            for family in one.collect():
                merged = families.setdefault(
                    family.name, Metric(family.name, family.documentation, family.type, family.unit)
                )
                for sample in family.samples:
                    merged.add_sample(sample.name, {**sample.labels, "pid": str(pid)}, sample.value)
        yield from families.values()
