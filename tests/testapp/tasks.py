"""Tasks registered only when ATS_EXTRA_APPS=tests.testapp (the test runner sets it).

They run inside real worker processes to exercise the job machinery: transactional
defer, deadlines, stalled-job rescue, locks, priorities, graceful shutdown.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from procrastinate.contrib.django import app

from ats.audit import api as audit_api
from ats.jobs import api as jobs_api
from ats.jobs import worker_api as jobs_worker
from ats.jobs.data import Backoff, TaskPolicy
from ats.jobs.policy import register_test_policy
from tests.testapp.models import Effect, Marker

TEST_QUEUE = "test"

for _policy in (
    TaskPolicy(
        "tests.slow_marker",
        "test",
        TEST_QUEUE,
        attempts=3,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="marker state exhausted",
        exhaustion_owner="tests.testapp",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.kill_own_worker",
        "test",
        TEST_QUEUE,
        attempts=2,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="marker state exhausted",
        exhaustion_owner="tests.testapp",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.overrun",
        "test",
        TEST_QUEUE,
        attempts=2,
        backoff=Backoff(0, 0),
        timeout_s=1,
        on_exhaustion="marker state exhausted",
        exhaustion_owner="tests.testapp",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.locked_interval",
        "test",
        TEST_QUEUE,
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        lock="entity:{entity}",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.unlocked_interval",
        "test",
        TEST_QUEUE,
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.dedupe_like",
        "test",
        TEST_QUEUE,
        attempts=3,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        lock="dedupe:{entity}",
        queueing_lock="dedupe:{entity}",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.batch_item",
        "test",
        "score",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        priority=0,
        adr_row=False,
    ),
    TaskPolicy(
        "tests.interactive",
        "test",
        "ai",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        priority=20,
        adr_row=False,
    ),
    TaskPolicy(
        "tests.interactive_low",
        "test",
        "ai",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        priority=0,
        adr_row=False,
    ),
    # ADR §1's global caps (ats.jobs.concurrency): an interval on the capped maintenance queue.
    TaskPolicy(
        "tests.maintenance_interval",
        "test",
        "maintenance",
        attempts=1,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        adr_row=False,
    ),
    # Per-attempt records (ats.jobs.attempts): fails with personal data in its message.
    TaskPolicy(
        "tests.fail_with_pii",
        "test",
        TEST_QUEUE,
        attempts=2,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="-",
        adr_row=False,
    ),
    # Hard timeouts (ats.jobs.watchdog): spins in plain Python past a 1 s budget.
    TaskPolicy(
        "tests.spin_overrun",
        "test",
        TEST_QUEUE,
        attempts=2,
        backoff=Backoff(0, 0),
        timeout_s=1,
        on_exhaustion="marker state exhausted",
        exhaustion_owner="tests.testapp",
        adr_row=False,
    ),
    TaskPolicy(
        "tests.sleep_effect",
        "test",
        TEST_QUEUE,
        attempts=3,
        backoff=Backoff(0, 0),
        timeout_s=60,
        on_exhaustion="marker state exhausted",
        exhaustion_owner="tests.testapp",
        adr_row=False,
    ),
    # A task that defers its continuation inside its own transaction (the intake chain's
    # shape: apply_parse_result -> create_from_attachment share the attachment's lock).
    *(
        TaskPolicy(name, "test", TEST_QUEUE, 1, Backoff(0, 0), 60, "-", lock=lock, adr_row=False)
        for name, lock in (
            ("tests.chain_parent", "chain:{entity}"),
            ("tests.chain_child", "chain:{entity}"),
            ("tests.chain_child_unlocked", None),
            ("tests.lock_holder", "chain:{entity}"),
        )
    ),
):
    register_test_policy(_policy)


def mark_exhausted(*, token: int, reason_code: str, reason: str, **_: Any) -> None:
    Marker.objects.update_or_create(token=token, defaults={"state": f"exhausted:{reason_code}"})


# Registered by the owner, as the ats apps do in their AppConfig.ready (ats.jobs.handlers).
for _name in (
    "tests.slow_marker",
    "tests.kill_own_worker",
    "tests.overrun",
    "tests.spin_overrun",
    "tests.sleep_effect",
):
    jobs_api.register_exhaustion_handler(_name, mark_exhausted)


@app.task(name="tests.write_defer_then", queue="maintenance")
def write_defer_then(*, token: int, outcome: str) -> None:
    """Writes a row and defers a job in one transaction, then succeeds or raises."""
    with transaction.atomic():
        audit_api.audit_event_record(actor="test", action="test.marker", object_type="token", object_id=token)
        jobs_api.defer("candidates.create_from_attachment", payload={"attachment_id": -token})
        if outcome == "raise":
            raise RuntimeError("deliberate failure after write + defer")


def _run_started(token: int) -> None:
    with transaction.atomic():
        marker, _ = Marker.objects.get_or_create(token=token)
        Marker.objects.filter(pk=marker.pk).update(runs=F("runs") + 1, started_at=timezone.now(), state="running")


@jobs_api.task("tests.slow_marker")
def slow_marker(*, token: int, seconds: float, payload_version: int) -> None:
    """Idempotent: the effect (state=done) is the same however often it runs."""
    _run_started(token)
    time.sleep(seconds)
    Marker.objects.filter(token=token).update(state="done", finished_at=timezone.now())


@jobs_api.task("tests.kill_own_worker")
def kill_own_worker(*, token: int, payload_version: int) -> None:
    """A poison job: it takes its worker down every time (like an OOM kill would)."""
    _run_started(token)
    os.kill(os.getpid(), signal.SIGKILL)


@jobs_api.task("tests.overrun")
def overrun(*, token: int, payload_version: int) -> None:
    """Writes, then overruns its 1 s budget in the database: nothing may commit."""
    with transaction.atomic(), jobs_api.db_budget():
        audit_api.audit_event_record(actor="test", action="test.overrun", object_type="token", object_id=token)
        with connection.cursor() as cur:
            cur.execute("SELECT pg_sleep(3)")


def _interval(token: int, seconds: float) -> None:
    start = timezone.now()
    time.sleep(seconds)
    Marker.objects.create(token=token, state="done", started_at=start, finished_at=timezone.now(), runs=1)


@jobs_api.task("tests.locked_interval")
def locked_interval(*, token: int, entity: int, seconds: float, payload_version: int) -> None:
    _interval(token, seconds)


@jobs_api.task("tests.unlocked_interval")
def unlocked_interval(*, token: int, entity: int, seconds: float, payload_version: int) -> None:
    _interval(token, seconds)


@jobs_api.task("tests.maintenance_interval")
def maintenance_interval(*, token: int, seconds: float, payload_version: int) -> None:
    _interval(token, seconds)


class CandidateFileError(Exception):
    pass


@jobs_api.task("tests.fail_with_pii")
def fail_with_pii(*, token: int, succeed_on: int, payload_version: int) -> None:
    attempt = jobs_api.current_attempt()
    if attempt is not None and attempt.number >= succeed_on:
        return
    raise CandidateFileError("could not read Jane_Doe_CV.pdf from jane.doe@example.org, call +44 20 7946 0958")


@jobs_api.task("tests.batch_item")
def batch_item(*, token: int, seconds: float, payload_version: int) -> None:
    time.sleep(seconds)


@jobs_api.task("tests.interactive")
def interactive(*, token: int, payload_version: int) -> None:
    Marker.objects.create(token=token, state="done", started_at=timezone.now(), runs=1)


@jobs_api.task("tests.interactive_low")
def interactive_low(*, token: int, payload_version: int) -> None:
    Marker.objects.create(token=token, state="done", started_at=timezone.now(), runs=1)


@jobs_api.task("tests.dedupe_like")
def dedupe_like(*, entity: int, seconds: float, fail_first: bool, payload_version: int) -> None:
    """Per-entity work with lock + queueing_lock; fails on its first run when asked."""
    time.sleep(seconds)
    _, created = Marker.objects.get_or_create(token=entity)
    if fail_first and created:
        raise RuntimeError("first run fails")


@jobs_api.task("tests.chain_parent")
def chain_parent(*, entity: int, child: str, payload_version: int) -> None:
    """Writes, defers `child` in the same transaction, commits, then finishes a moment later."""
    with transaction.atomic():
        Marker.objects.create(token=entity, state="parent", started_at=timezone.now(), runs=1)
        jobs_api.defer(child, payload={"entity": entity})
    # The continuation's NOTIFY arrived at COMMIT; the parent is still `doing` (and holds
    # its lock) until procrastinate records the outcome after this returns.
    time.sleep(0.05)


@jobs_api.task("tests.chain_child")
def chain_child(*, entity: int, payload_version: int) -> None:
    Marker.objects.filter(token=entity).update(state="child", finished_at=timezone.now())


@jobs_api.task("tests.lock_holder")
def lock_holder(*, entity: int, gate: int, payload_version: int) -> None:
    """Holds its lock until the test releases the session advisory lock `gate` (an event,
    not a sleep): the shape of create_from_attachment holding the attachment's lock while
    worker-untrusted defers store_page_images on that lock from its own process."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_lock(%s), pg_advisory_unlock(%s)", [gate, gate])


@jobs_api.task("tests.chain_child_unlocked")
def chain_child_unlocked(*, entity: int, payload_version: int) -> None:
    Marker.objects.filter(token=entity).update(state="child", finished_at=timezone.now())


def _effect(token: int) -> None:
    attempt = jobs_api.current_attempt()
    Effect.objects.create(token=token, attempt=attempt.number if attempt else 0, pid=os.getpid())
    Marker.objects.filter(token=token).update(state="done", finished_at=timezone.now())


@jobs_api.task("tests.spin_overrun")
def spin_overrun(*, token: int, spin_s: float, spin_attempts: int, payload_version: int) -> None:
    """Spins in plain Python (never checks its deadline, never touches the database) for
    `spin_s` on its first `spin_attempts` attempts, then writes its effect."""
    _run_started(token)
    attempt = jobs_api.current_attempt()
    if attempt is not None and attempt.number <= spin_attempts:
        end = time.monotonic() + spin_s
        n = 0
        while time.monotonic() < end:
            n += 1
    _effect(token)


@jobs_api.task("tests.sleep_effect")
def sleep_effect(*, token: int, seconds: float, payload_version: int) -> None:
    _run_started(token)
    time.sleep(seconds)
    _effect(token)


def _slow_start() -> None:
    """A start hook as slow as a sandbox warm-up on a loaded node (tests/jobs/
    test_worker_start.py): ATS_TEST_SLOW_START_DIR names where it says it began and ended;
    it returns once the test creates `release` there."""
    from pathlib import Path

    where = os.environ.get("ATS_TEST_SLOW_START_DIR")
    if not where:
        return
    d = Path(where)
    (d / "began").touch()
    while not (d / "release").exists():
        time.sleep(0.05)
    (d / "ended").touch()


jobs_worker.on_worker_start(_slow_start)
