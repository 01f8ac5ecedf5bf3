"""A run's start record is its connection's health check (issue 26): a persistent task
connection that died between two runs must be replaced before the next run's body, as
CONN_HEALTH_CHECKS' `SELECT 1` did, and the run must not pay that `SELECT 1` when the
connection is fine."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, connections

from ats.jobs import attempts
from tests.jobs.helpers import defer, token, wait_for, wait_status
from tests.testapp.models import Marker

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _task_connections(worker_name: str) -> list[int]:
    """The worker's task connections: idle, last statement the last one of the
    `tests.slow_marker` body (a run's success is recorded by the finish, on the
    procrastinate pool's connection; neither it nor the LISTEN connection sends that)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s AND state = 'idle' AND query LIKE %s",
            [worker_name, 'UPDATE "ats_testapp_marker" SET%'],
        )
        return [r[0] for r in cur.fetchall()]


def test_a_task_connection_that_died_between_runs_is_replaced_before_the_next_body(start_worker: Any) -> None:
    w = start_worker("default", extra=["--queues=test", "--concurrency=1"])
    first = defer("tests.slow_marker", token=token(), seconds=0)
    wait_status(first, {"succeeded"}, timeout=30)
    pids = wait_for(lambda: _task_connections(w.name), 10, "the task connection to be idle")
    with connection.cursor() as cur:
        for pid in pids:
            cur.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
    tok = token()
    second = defer("tests.slow_marker", token=tok, seconds=0)
    final = wait_status(second, {"succeeded", "failed"}, timeout=30)
    # First time: no failed run for the dead socket, and both records of the run written.
    assert final["status"] == "succeeded", w.tail()
    log = attempts.attempt_log(second)
    assert [(r["attempt"], r["status"]) for r in log] == [(1, "succeeded")], w.tail()
    assert Marker.objects.get(token=tok).runs == 1
    assert "could not record" not in w.tail()


class _Job:
    id = 1
    worker_id = 1


def _fresh_checkout() -> None:
    """The state close_old_connections() leaves between two runs: open, check not done."""
    connection.ensure_connection()
    connection.health_check_done = False


def test_a_run_on_a_healthy_connection_sends_no_separate_health_check(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[list[Any]] = []
    monkeypatch.setattr(attempts, "_send", sent.append)
    checks: list[bool] = []
    monkeypatch.setattr(connections["default"], "is_usable", lambda: checks.append(True) or True)
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    _fresh_checkout()
    attempts.record_start(_Job(), 1, "w")
    with connection.cursor() as cur:  # the body's first statement: no `SELECT 1` before it
        cur.execute("SELECT 2")
    assert checks == [] and len(sent) == 1 and sent[0][3] == "start"


def test_a_start_record_that_finds_the_connection_dead_is_sent_again_on_a_fresh_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.db import OperationalError

    sent: list[Any] = []

    def send(args: list[Any]) -> None:
        sent.append(connection.connection)
        if len(sent) == 1:
            raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(attempts, "_send", send)
    usable = {"dead": True}
    wrapper = connections["default"]  # the object itself: the proxy cannot undo a patch
    monkeypatch.setattr(wrapper, "is_usable", lambda: not usable["dead"] or connection.connection is not sent[0])
    _fresh_checkout()
    attempts.record_start(_Job(), 1, "w")
    assert len(sent) == 2 and sent[1] is not sent[0]  # closed, then sent on a new connection
    # A failure on a usable connection (the job is not this worker's, say) is not retried.
    sent.clear()
    usable["dead"] = False
    _fresh_checkout()
    attempts.record_start(_Job(), 1, "w")
    assert len(sent) == 1
