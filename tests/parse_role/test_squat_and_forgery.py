"""Probes of the security review (issue 9), run as the parse role itself.

Lock squatting: procrastinate serialises jobs by `lock`, across queues. The parse role may
update its parse jobs (the worker protocol needs it); before the fix it could give one a
trusted job's lock, the highest priority and an infinite schedule, and the trusted job
(the rescue, the purge...) would wait behind it forever. Forged submit: a report for a
parse job this worker does not hold (never fetched, fetched by another pod, or marked
`doing` by hand) must be refused - only the worker running the job may report on it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from ats.config.env import with_user
from ats.jobs import api as jobs_api
from tests.jobs.helpers import defer, job, token, wait_for
from tests.parse_role.helpers import fetch_as_role, parse_job_for_new_document
from tests.testapp.models import Marker

pytestmark = pytest.mark.django_db(transaction=True)

SUBMIT = "SELECT ats_parse_submit(%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"


@pytest.fixture
def parse_role() -> Iterator[psycopg.Connection[Any]]:
    s = connection.settings_dict
    url = with_user(f"postgresql://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}", "ats_parse")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("ats_parse",)
        yield conn


def _refused(conn: psycopg.Connection[Any], sql: str, params: Any = None) -> bool:
    """True when the statement raised or changed no row (RLS hides rows silently)."""
    try:
        cur = conn.execute(sql, params)
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.RaiseException):
        # RaiseException: procrastinate's own "job not found" when RLS hid the row from it.
        return True
    return cur.rowcount == 0


SQUATS = {
    "lock + max priority + infinite schedule": (
        "UPDATE procrastinate_jobs SET lock = %(lock)s, priority = 2147483647, scheduled_at = 'infinity'"
        " WHERE id = %(job)s"
    ),
    "lock alone": "UPDATE procrastinate_jobs SET lock = %(lock)s WHERE id = %(job)s",
    "lock while doing": "UPDATE procrastinate_jobs SET lock = %(lock)s, status = 'doing' WHERE id = %(job)s",
    "max priority": "UPDATE procrastinate_jobs SET priority = 2147483647 WHERE id = %(job)s",
    "infinite schedule": "UPDATE procrastinate_jobs SET scheduled_at = 'infinity' WHERE id = %(job)s",
}


@pytest.mark.parametrize("squat", sorted(SQUATS))
def test_lock_squat_is_refused_and_the_trusted_job_runs(squat: str, parse_role: Any, start_worker: Any) -> None:
    _, parse_job = parse_job_for_new_document()
    entity = token()
    trusted_lock = jobs_api.policy_for("tests.locked_interval").lock_for({"entity": entity})
    refused = _refused(parse_role, SQUATS[squat], {"lock": trusted_lock, "job": parse_job})
    # Through procrastinate's own retry function too (the role may call it), on the job it
    # fetched (a hand-written `doing` is refused since issue 21 N5).
    wid = fetch_as_role(parse_role, parse_job)
    refused_retry = _refused(
        parse_role, "SELECT procrastinate_retry_job_v2(%s, 'infinity', 2147483647, NULL, %s)", [parse_job, trusted_lock]
    )
    tok = token()
    trusted = defer("tests.locked_interval", token=tok, entity=entity, seconds=0)
    start_worker("default", extra=["--queues=test"])
    try:
        wait_for(lambda: job(trusted)["status"] == "succeeded", 20, "the trusted job")
        ran = True
    except TimeoutError:
        ran = False
    with connection.cursor() as cur:
        cur.execute("SELECT lock, priority, scheduled_at::text FROM procrastinate_jobs WHERE id = %s", [parse_job])
        after = cur.fetchone()
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [wid])
    assert (refused, refused_retry, ran) == (True, True, True), f"parse job now {after}"
    assert Marker.objects.filter(token=tok, state="done").exists()


def _other_pod_worker() -> int:
    """A worker row of another worker-untrusted pod (same role, another address)."""
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO procrastinate_workers (ats_owner, ats_client_addr) VALUES ('ats_parse', '10.99.0.7')"
            " RETURNING id"
        )
        return int(cur.fetchone()[0])


def _report(parse_job: int, att: int) -> list[Any]:
    return [parse_job, att, 1, True, None, "", "forged text", 1, json.dumps({"schema": 2, "pages": 1}), "ab" * 32]


def _submits(conn: psycopg.Connection[Any], args: list[Any]) -> bool:
    try:
        conn.execute(SUBMIT, args)
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True


def test_forged_submit_for_a_job_this_worker_does_not_hold(parse_role: Any) -> None:
    own = parse_role.execute("SELECT procrastinate_register_worker_v1()").fetchone()[0]
    outcomes = {}
    # 1. Never fetched: the job waits (todo).
    att, parse_job = parse_job_for_new_document()
    outcomes["todo"] = _submits(parse_role, _report(parse_job, att))
    # 2. Marked `doing` by hand, with no worker holding it: the UPDATE itself is refused
    #    since issue 21 N5 (test_protocol_only.py); in that state anyway (set by the
    #    owner), no report either.
    att, parse_job = parse_job_for_new_document()
    outcomes["hand-marked doing applied"] = not _refused(
        parse_role, "UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [parse_job]
    )
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [parse_job])
    outcomes["doing, no worker"] = _submits(parse_role, _report(parse_job, att))
    # 3. Running on another pod's worker.
    att, parse_job = parse_job_for_new_document()
    other = _other_pod_worker()
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing', worker_id = %s WHERE id = %s", [other, parse_job])
    outcomes["held by another pod"] = _submits(parse_role, _report(parse_job, att))
    # 4. ... and taken over by rewriting its worker_id first.
    _refused(parse_role, "UPDATE procrastinate_jobs SET worker_id = %s WHERE id = %s", [own, parse_job])
    outcomes["taken over"] = _submits(parse_role, _report(parse_job, att))
    outcomes["worker_id rewritten"] = job(parse_job)["worker_id"] != other
    assert outcomes == dict.fromkeys(outcomes, False), outcomes
    # The real path still works: this worker fetched the job through fetch_job_v2.
    att, parse_job = parse_job_for_new_document()
    fetch_as_role(parse_role, parse_job, own)
    assert parse_role.execute(SUBMIT, _report(parse_job, att)).fetchone() == (True,)
    parse_role.execute("SELECT procrastinate_unregister_worker_v1(%s)", [own])
