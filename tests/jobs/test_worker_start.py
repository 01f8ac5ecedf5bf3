"""A worker whose start hooks are slow (worker-untrusted's sandbox warm-up on a loaded
node) is not declared dead by a worker starting meanwhile.

The hooks block the event loop, so no heartbeat runs while they do. They used to run after
the worker's row was registered: a worker starting then (its prune_stalled_workers(), the
stalled timeout - 4 s here) deleted the row, and the watchdog exited the slow worker as
evicted - in the suite, a parse worker gone before its first document, whose `ingest
--wait` then timed out with the document `promoted` (issue 22, the h28flake hunt).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FAST_ENV

pytestmark = [pytest.mark.django_db(transaction=True)]


def _wait_for(path: Path, worker: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert worker.proc.poll() is None, worker.tail()
        assert time.monotonic() < deadline, f"{path.name} not reached: {worker.tail()}"
        time.sleep(0.05)


def _worker_ids() -> list[int]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT id FROM procrastinate_workers ORDER BY id")
        return [r[0] for r in cur.fetchall()]


def test_a_worker_slow_to_start_is_not_pruned_by_one_starting_meanwhile(start_worker: Any, tmp_path: Path) -> None:
    slow = start_worker("default", env={"ATS_TEST_SLOW_START_DIR": str(tmp_path)}, wait=False)
    _wait_for(tmp_path / "began", slow)
    # Longer than the stalled timeout: a row registered before the hook is stale by now.
    time.sleep(float(FAST_ENV["ATS_STALLED_WORKER_TIMEOUT_S"]) + 1)
    other = start_worker("default")  # registered: its start-up prune has run
    (tmp_path / "release").touch()
    _wait_for(tmp_path / "ended", slow)
    slow.wait_registered()
    # The slow worker's watchdog ticks every second: an evicted worker would exit now.
    deadline = time.monotonic() + 30
    while len(_worker_ids()) < 2 and time.monotonic() < deadline and slow.proc.poll() is None:
        time.sleep(0.1)
    time.sleep(float(FAST_ENV["ATS_HEARTBEAT_INTERVAL_S"]) * 3)  # three watchdog ticks
    assert slow.proc.poll() is None, f"the slow worker exited ({slow.proc.returncode}): {slow.tail()}"
    assert other.proc.poll() is None
    assert len(_worker_ids()) == 2, (_worker_ids(), slow.tail())
