"""Named points in race-sensitive services, where the interleaving tests hold a process.

The forced-interleaving and kill-at-a-point tests need a process to stop *inside* a
transaction (holding its locks), or to skip a row lock to show what the lock prevents.
Production code only announces the point; it knows no environment variable and no test.
The receivers live in the test-only Django app `tests.testapp` (loaded through
ATS_EXTRA_APPS by the test harness; the wheel and the images do not contain `tests`), so
no setting of a deployed process can pause a transaction or turn a lock off. With no
receiver connected, each call is one dict lookup.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

# Sent with step=<name>: "MERGE", "DEDUPE", "SCORE", "RESCORE", "verify-row", "export-after-put",
# and "ERASE" with candidate_id= and part= (the erasure step about to run).
reached = Signal()
# Sent with step=<name>: a receiver returning False turns that step's row lock off.
row_lock_wanted = Signal()


def reach(step: str, **context: Any) -> None:
    """The service is at `step`, inside whatever transaction and locks it holds there.
    `context` says where within it (e.g. which subject), for a receiver that holds only one."""
    reached.send(sender=None, step=step, **context)


def row_lock(step: str) -> bool:
    """Whether `step` takes its row lock: always, unless a test's receiver says no."""
    return all(answer is not False for _, answer in row_lock_wanted.send(sender=None, step=step))
