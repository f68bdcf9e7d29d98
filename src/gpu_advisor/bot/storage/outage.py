"""An outage of the database said once, with a count, not once per failed call.

A 0.4 s PostgreSQL restart failed 172 turns and wrote 172 ERROR lines (issue 41): the log said
the same thing 172 times and buried what came before it. Both backends report here instead
(their ``_guarded`` wrappers): the first failed call of an outage writes one ERROR line with
the reason, later failures are only counted, a long outage is reminded of every
``REMIND_S`` with the count so far, and the first call that succeeds again writes one WARNING
line with how long it lasted and how many calls failed. A success outside an outage costs one
attribute read. Each process (server or turn worker) keeps its own count.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

REMIND_S = 60.0
log = logging.getLogger("gpu_advisor.bot.storage")


class Outage:
    """The current outage of one process's database, if any: since when, how many calls failed."""

    def __init__(self, logger: logging.Logger = log, clock: Callable[[], float] = time.monotonic) -> None:
        self.log, self.clock = logger, clock
        self.since: float | None = None
        self.failed_calls = 0
        self._reminded = 0.0
        self._lock = threading.Lock()  # the PostgreSQL store is shared by threads

    def failed(self, reason: str, detail: str) -> bool:
        """Count one failed call; True when it began an outage (and was said)."""
        with self._lock:
            now = self.clock()
            self.failed_calls += 1
            if self.since is None:
                self.since = self._reminded = now
                self.log.error(
                    "the database is unavailable (%s): %s; failed calls are counted until it answers",
                    reason,
                    detail,
                )
                return True
            if now - self._reminded >= REMIND_S:
                self._reminded = now
                self.log.error(
                    "the database is still unavailable (%s) after %.0f s; %d call(s) failed so far",
                    reason,
                    now - self.since,
                    self.failed_calls,
                )
            return False

    def answered(self) -> None:
        """A call succeeded: the end of the outage, if there was one, said with its count."""
        if self.since is None:
            return
        with self._lock:
            if self.since is None:
                return
            lasted, failed = self.clock() - self.since, self.failed_calls
            self.since, self.failed_calls = None, 0
        self.log.warning(
            "the database answers again after %.1f s; %d call(s) failed meanwhile", lasted, failed
        )


OUTAGE = Outage()
"""This process's: both backends report to it."""
