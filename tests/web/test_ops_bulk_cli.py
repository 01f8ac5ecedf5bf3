"""`ats jobs retry|cancel` by filter and `ats queues --json` (issue 24 items 2 and 4 contracts)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from ats.jobs import ops_api as jobs_ops
from tests.conftest import run_ats_in_process
from tests.jobs.helpers import defer, job, token
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


@pytest.fixture
def ats_cli() -> Any:
    """The commands in-process: their output and exit codes are the contract here, not the
    process (a Django start per call; tests/conftest.py run_ats_in_process)."""
    return run_ats_in_process


def _parse_job_failed(att: Any) -> int:
    """Test set-up: the document's parse job ends `failed`, as a worker whose attempts ran out leaves it."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM procrastinate_jobs WHERE task_name = %s AND args->>'attachment_id' = %s ORDER BY id DESC",
            [helpers.PARSE, str(att.pk)],
        )
        job_id = cur.fetchone()[0]
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [job_id])
        cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [job_id])
    return job_id


def _bulk_audit() -> list[dict[str, Any]]:
    with connection.cursor() as cur:
        cur.execute("SELECT action, payload FROM audit_event WHERE object_type = 'job_filter' ORDER BY id")
        return [{"action": a, **(json.loads(p) if isinstance(p, str) else p)} for a, p in cur.fetchall()]


def test_bulk_retry_of_every_failed_parse_of_the_last_hour(ats_cli: Any) -> None:
    docs = [helpers.parse_failed(f"locked-{i}.pdf") for i in range(2)]
    for att in docs:
        _parse_job_failed(att)
    other = defer("tests.slow_marker", token=token(), seconds=0)  # a failed job of another task
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [other])
        cur.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)", [other])
    args = ("jobs", "retry", "--status", "failed", "--task", "intake.parse_attachment", "--since", "1h", "--json")
    out = ats_cli(*args)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["matched"] >= 2 and result["retried"] == 2  # earlier tests may leave failed parses behind
    for att in docs:  # retried through each document's own action: a new parse job waits
        assert helpers.reload(att).parse_attempts_requested == 2
        assert helpers.jobs_for(att.pk, helpers.PARSE)[-1] == "todo"
    assert job(other)["status"] == "failed"  # outside the filter: untouched
    [entry] = [e for e in _bulk_audit() if e["action"] == "jobs.bulk_retry"]
    assert entry["filter"]["task"] == "intake.parse_attachment" and entry["filter"]["since"]
    assert entry["retried"] == 2 and entry["matched"] == result["matched"]
    # Again: every document has moved on, so nothing is retried (and that is what it says).
    again = json.loads(ats_cli(*args).stdout)
    assert again["retried"] == 0 and again["matched"] == result["matched"]
    assert ats_cli("jobs", "retry", "--status", "failed", "--since", "yesterday", "--json").returncode != 0
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'cancelled' WHERE id = %s", [other])


def test_bulk_cancel_of_waiting_jobs_spares_a_job_a_document_waits_for(ats_cli: Any) -> None:
    waiting = [defer("tests.slow_marker", token=token(), seconds=0) for _ in range(3)]
    att = helpers.received()  # its ingest job is what the document waits for
    out = ats_cli("jobs", "cancel", "--status", "todo", "--queue", "test", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["cancelled"] == result["matched"] >= 3
    assert {job(i)["status"] for i in waiting} == {"cancelled"}
    out = json.loads(ats_cli("jobs", "cancel", "--status", "todo", "--task", helpers.INGEST, "--json").stdout)
    # Earlier tests' ingest jobs of vanished documents may be cancelled; this document's is spared.
    assert out["matched"] >= 1 and out["cancelled"] <= out["matched"] - 1
    assert helpers.jobs_for(att.pk, helpers.INGEST) == ["todo"]
    assert [e["action"] for e in _bulk_audit()][-2:] == ["jobs.bulk_cancel", "jobs.bulk_cancel"]
    helpers.finish_ingest(att)


def test_queues_json_contract(ats_cli: Any) -> None:
    out = ats_cli("queues", "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["queue"]: r for r in json.loads(out.stdout)}
    for r in rows.values():
        assert set(r) == {"queue", "concurrency", "paused", "waiting", "running", "oldest_s"}
    assert {q: rows[q]["concurrency"] for q in jobs_ops.QUEUES} == {
        "mail": 1, "ingest": 2, "parse": 2, "score": 2, "ai": 2, "maintenance": 1,
    }  # fmt: skip
    assert ats_cli("queue", "pause", "nosuch").returncode != 0


def test_console_bulk_retry_states_the_count_then_acts_once_audited(login: Any, users: dict[str, Any]) -> None:
    docs = [helpers.parse_failed(f"locked-web-{i}.pdf") for i in range(2)]
    for att in docs:
        _parse_job_failed(att)
    c = login("operator")
    listing = c.get("/ops/jobs/?status=failed&task=intake.parse_attachment").content.decode()
    assert 'id="jobs-bulk"' in listing and "Retry failed…" in listing and 'name="ids"' in listing
    n = len(jobs_ops.job_ids_matching(status="failed", task_name="intake.parse_attachment", since=None))
    confirm = c.get("/ops/jobs/bulk/retry?task=intake.parse_attachment&queue=&since=1h").content.decode()
    assert f"Retry {n} failed job" in confirm and 'id="bulk-confirm"' in confirm
    assert [e for e in _bulk_audit() if e["action"] == "jobs.bulk_retry"] == []  # asked, not acted
    res = c.post("/ops/jobs/bulk/retry", {"task": "intake.parse_attachment", "queue": "", "since": "1h"})
    assert res.status_code == 303
    page = c.get(res["Location"]).content.decode()
    assert f"{n} failed jobs matched; " in page
    for att in docs:
        assert helpers.jobs_for(att.pk, helpers.PARSE)[-1] == "todo"
    with connection.cursor() as cur:
        cur.execute("SELECT actor, payload FROM audit_event WHERE action = 'jobs.bulk_retry' ORDER BY id DESC LIMIT 1")
        actor, payload = cur.fetchone()
    payload = json.loads(payload) if isinstance(payload, str) else payload
    assert actor == f"user:{users['operator'].pk}" and payload["matched"] == n and payload["retried"] >= 2
    # A recruiter cannot; an operator without a match is told there is nothing to do.
    assert login("recruiter").post("/ops/jobs/bulk/retry", {"task": "x"}).status_code == 403


def _gone(job_id: int) -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM procrastinate_jobs WHERE id = %s", [job_id])
        return cur.fetchone()[0] == 0


def _finish(job_id: int, status: str) -> None:
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s", [job_id])
        cur.execute("SELECT procrastinate_finish_job_v1(%s, %s, false)", [job_id, status])


def test_delete_finished_jobs_by_filter_from_the_cli_keeps_unswept_failures(ats_cli: Any) -> None:
    done = [defer("tests.slow_marker", token=token(), seconds=0) for _ in range(2)]
    for j in done:
        _finish(j, "succeeded")
    failed = defer("tests.slow_marker", token=token(), seconds=0)
    _finish(failed, "failed")  # not swept: its document's state may not be recorded yet
    waiting = defer("tests.slow_marker", token=token(), seconds=0)
    out = ats_cli("jobs", "delete", "--status", "succeeded", "--task", "tests.slow_marker", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) == {"matched", "deleted"} and result["deleted"] == result["matched"] >= 2
    assert all(_gone(j) for j in done)
    kept = json.loads(ats_cli("jobs", "delete", "--status", "failed", "--task", "tests.slow_marker", "--json").stdout)
    assert kept["deleted"] == 0 and job(failed)["status"] == "failed"
    refused = ats_cli("jobs", "delete", "--status", "todo", "--json")
    assert refused.returncode != 0 and "finished jobs only" in refused.stderr
    assert job(waiting)["status"] == "todo"
    [entry, *_] = [e for e in _bulk_audit() if e["action"] == "jobs.bulk_delete"]
    assert entry["deleted"] == result["deleted"] and entry["filter"]["status"] == "succeeded"
    jobs_ops.job_cancel(job_id=waiting)


def test_console_acts_on_ticked_jobs_only_and_delete_asks_with_the_count(login: Any) -> None:
    a, b, c3 = (defer("tests.slow_marker", token=token(), seconds=0) for _ in range(3))
    for j in (a, b, c3):
        _finish(j, "succeeded")
    waiting = defer("tests.slow_marker", token=token(), seconds=0)
    c = login("operator")
    ask = c.get("/ops/jobs/bulk/delete", {"scope": "selected", "ids": [a, b, waiting]}).content.decode()
    assert "Delete 2 finished jobs?" in ask and f"{a}, {b}" in ask  # the waiting one is not finished
    res = c.post("/ops/jobs/bulk/delete", {"scope": "selected", "ids": [a, b, waiting]})
    assert res.status_code == 303
    assert _gone(a) and _gone(b) and job(c3)["status"] == "succeeded" and job(waiting)["status"] == "todo"
    [entry, *_] = [e for e in reversed(_bulk_audit()) if e["action"] == "jobs.bulk_delete"]
    assert sorted(entry["ids"]) == sorted([a, b]) and entry["deleted"] == 2
    # Cancel of the ticked: only the waiting one.
    c.post("/ops/jobs/bulk/cancel", {"scope": "selected", "ids": [c3, waiting]})
    assert job(waiting)["status"] == "cancelled" and job(c3)["status"] == "succeeded"
    # Delete of everything matching needs a finished status.
    res = c.get("/ops/jobs/bulk/delete", {"status": "todo"})
    assert res.status_code == 303
    # The list's time filter: only jobs changed within the window.
    listing = c.get("/ops/jobs/", {"task": "tests.slow_marker", "since": "1h"}).content.decode()
    assert f">{c3}<" in listing
    with connection.cursor() as cur:
        cur.execute("UPDATE procrastinate_events SET at = at - interval '2 hours' WHERE job_id = %s", [c3])
    listing = c.get("/ops/jobs/", {"task": "tests.slow_marker", "since": "1h"}).content.decode()
    assert f">{c3}<" not in listing
    assert "not applied" in c.get("/ops/jobs/", {"since": "yesterday"}, follow=True).content.decode()


def test_read_only_operators_see_the_console_without_actions_and_get_403(login: Any) -> None:
    j = defer("tests.slow_marker", token=token(), seconds=0)
    ro = login("operator_readonly")
    for url in ("/ops/", "/ops/jobs/", f"/ops/jobs/{j}", "/ops/charts"):
        page = ro.get(url)
        assert page.status_code == 200, url
        body = page.content.decode()
        assert "<button" not in body.split("</header>")[-1] or url == "/ops/jobs/", url
        assert 'name="ids"' not in body and "Pause queue" not in body and 'id="job-cancel"' not in body
    for url, data in (
        (f"/ops/jobs/{j}/cancel", {}),
        ("/ops/queues/parse/pause", {}),
        ("/ops/jobs/bulk/delete", {"status": "succeeded"}),
    ):
        assert ro.post(url, data).status_code == 403, url
    assert job(j)["status"] == "todo"
    acting = login("operator").get("/ops/").content.decode()
    assert "Pause queue parse" in acting
    jobs_ops.job_cancel(job_id=j)
