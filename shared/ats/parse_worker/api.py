"""Facade of the untrusted worker's package, for trusted code that lists every task.

The trusted settings do not install this app (its tasks run only in worker-untrusted),
so a trusted process that must know every task name imports them through here.
"""

from __future__ import annotations


def import_tasks() -> None:
    """Register the untrusted worker's tasks with procrastinate in this process."""
    from ats.parse_worker import tasks  # noqa: F401 - imported for its registrations
