from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from django.db import connection, transaction

from ats.jobs import api as jobs_api

_tokens = itertools.count(int(time.time() * 1000) % 10**9 * 100)


def token() -> int:
    return next(_tokens)


def defer(task_name: str, **payload: Any) -> int:
    with transaction.atomic():
        job_id = jobs_api.defer(task_name, payload=payload)
    assert job_id is not None
    return job_id


def job(job_id: int) -> dict[str, Any]:
    with connection.cursor() as cur:
        cur.execute("SELECT status::text, attempts, worker_id FROM procrastinate_jobs WHERE id = %s", [job_id])
        row = cur.fetchone()
    assert row is not None, f"job {job_id} is gone"
    return {"status": row[0], "attempts": row[1], "worker_id": row[2]}


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")


def wait_status(job_id: int, statuses: set[str], timeout: float = 30) -> dict[str, Any]:
    return wait_for(lambda: (j := job(job_id))["status"] in statuses and j, timeout, f"job {job_id} in {statuses}")
