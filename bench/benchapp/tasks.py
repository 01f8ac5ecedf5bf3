"""The same no-op twice: through the project's task wrapper and as a bare procrastinate task.

Registered only when ATS_EXTRA_APPS=bench.benchapp (bench/e2e_bench.py sets it), on a
queue of their own ("bench") so no deployed worker ever fetches them.
"""

from __future__ import annotations

from procrastinate.contrib.django import app

from ats.jobs import api as jobs_api
from ats.jobs.data import Backoff, TaskPolicy
from ats.jobs.policy import register_test_policy

BENCH_QUEUE = "bench"
WRAPPED = "bench.noop_wrapped"
BARE = "bench.noop_bare"

register_test_policy(
    TaskPolicy(
        WRAPPED,
        "bench",
        BENCH_QUEUE,
        attempts=2,  # a retry strategy, like every project task
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        adr_row=False,
    )
)


@jobs_api.task(WRAPPED)
def noop_wrapped(*, i: int, payload_version: int) -> None:
    """Policy lookup, payload envelope, attempt + deadline, log context, exhaustion check."""


@app.task(name=BARE, queue=BENCH_QUEUE)
def noop_bare(*, i: int) -> None:
    """procrastinate's own decorator: nothing around the call but procrastinate itself."""
