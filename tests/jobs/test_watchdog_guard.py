"""The watchdog wraps procrastinate's private Worker methods: an upgrade that changes one
must fail here, by name, before a worker runs with a wrapper written for other code."""

from __future__ import annotations

import pytest


@pytest.mark.unit
def test_the_upstream_methods_the_watchdog_wraps_are_the_ones_it_was_written_against() -> None:
    """When this fails, read the new upstream method, re-check ats.jobs.watchdog (and the
    tests in tests/upstream), then update UPSTREAM_SOURCE_SHA256."""
    from ats.jobs import watchdog

    assert watchdog.changed_upstream_methods() == []
    assert watchdog.upstream_source_sha256() == watchdog.UPSTREAM_SOURCE_SHA256


@pytest.mark.unit
def test_the_guard_hashes_upstream_not_the_installed_subclasses() -> None:
    """The hash is of procrastinate's own class even after ats.jobs.wakeup and the watchdog
    replaced procrastinate.worker.Worker (as they do in every worker process)."""
    from procrastinate import worker as procrastinate_worker

    from ats.jobs import wakeup, watchdog

    installed = procrastinate_worker.Worker
    try:
        procrastinate_worker.Worker = watchdog.worker_class(wakeup.Worker)  # type: ignore[misc]
        assert watchdog.upstream_worker_class() is wakeup._Upstream
        assert watchdog.changed_upstream_methods() == []
    finally:
        procrastinate_worker.Worker = installed  # type: ignore[misc]
