"""The lost-document detector cannot be fooled: each way a document can be lost makes
`ats intake-verify` exit 1 naming it, and the sweep/rescue turns it into a domain state.

The command runs in the test process (run_ats_in_process: the same management command,
stdout and exit code, without a Python + Django start per call); one test sends it
through the real `ats` process, whose exit code and JSON are what scripts read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection, transaction

from ats.intake import api as intake_api
from ats.jobs import maintenance
from tests.conftest import run_ats_in_process

pytestmark = pytest.mark.django_db(transaction=True)


def _new_document(mutate_job_sql: str | None = None) -> int:
    """An attachment in `received` with its ingest job, the job then altered in the same
    transaction (so no running worker can pick it up first)."""
    with transaction.atomic():
        raw = intake_api.intake_receive(channel="cli", files=[intake_api.IncomingFile("cv.pdf", b"%PDF-1.7\n%%EOF")])
        att = intake_api.raw_intake_attachments(raw.pk)[0]
        if mutate_job_sql:
            with connection.cursor() as cur:
                cur.execute(mutate_job_sql, [str(att.pk)])
    return att.pk


def _verify(ats: Any = run_ats_in_process) -> tuple[int, dict[str, Any]]:
    res = ats("intake-verify", "--json")
    return res.returncode, json.loads(res.stdout)


def test_a_document_with_its_job_is_safe() -> None:
    _new_document(
        "UPDATE procrastinate_jobs SET scheduled_at = now() + interval '1 hour' WHERE args->>'attachment_id' = %s"
    )
    code, out = _verify()
    assert (code, out["lost"]) == (0, 0)


def test_deleted_job_row_is_reported(ats_cli: Any) -> None:
    att = _new_document("DELETE FROM procrastinate_jobs WHERE args->>'attachment_id' = %s")
    code, out = _verify(ats_cli)  # the real process: exit 1 and the JSON on stdout
    assert code == 1
    assert [d["attachment_id"] for d in out["documents"]] == [att]
    assert "no such job exists" in out["documents"][0]["why"]


def test_job_of_a_dead_worker_is_reported_until_rescued() -> None:
    with connection.cursor() as cur:
        cur.execute(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '1 hour') RETURNING id"
        )
        dead_worker = cur.fetchone()[0]
    att = _new_document(
        f"UPDATE procrastinate_jobs SET status = 'doing', worker_id = {int(dead_worker)} "
        "WHERE args->>'attachment_id' = %s"
    )
    code, out = _verify()
    assert code == 1 and out["documents"][0]["attachment_id"] == att
    assert "heartbeat" in out["documents"][0]["why"]
    report = maintenance.rescue_stalled_jobs()
    assert report.rescued  # back to todo, attempt counted
    assert _verify()[0] == 0


def test_failed_job_without_domain_state_is_reported_until_swept() -> None:
    att = _new_document("UPDATE procrastinate_jobs SET status = 'failed' WHERE args->>'attachment_id' = %s")
    code, out = _verify()
    assert code == 1 and out["documents"][0]["attachment_id"] == att
    assert "never resolved" in out["documents"][0]["why"]
    swept = maintenance.sweep_failed_jobs()
    assert swept
    doc = intake_api.Attachment.objects.get(pk=att)
    assert doc.state == "scan_failed" and doc.reason  # the ingest policy's exhaustion state
    assert _verify()[0] == 0
    assert maintenance.sweep_failed_jobs() == []  # idempotent: swept once


def test_periodic_check_records_the_count() -> None:
    _new_document("DELETE FROM procrastinate_jobs WHERE args->>'attachment_id' = %s")
    run = intake_api.verification_run_record()
    assert run.lost_count == 1
    assert intake_api.latest_verification().lost_count == 1  # type: ignore[union-attr]


def test_job_doing_far_past_its_timeout_on_a_live_worker_is_rescued() -> None:
    """A job whose retry was lost (or whose thread hangs) stays `doing` on a worker that
    still heartbeats: after 3 x its wall timeout + 90 s it is retried, not left forever."""
    with connection.cursor() as cur:
        cur.execute("INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now()) RETURNING id")
        live_worker = cur.fetchone()[0]
    att = _new_document(
        f"UPDATE procrastinate_jobs SET status = 'doing', worker_id = {int(live_worker)} "
        "WHERE args->>'attachment_id' = %s"
    )
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM procrastinate_jobs WHERE args->>'attachment_id' = %s", [str(att)])
        job_id = cur.fetchone()[0]
        cur.execute("INSERT INTO procrastinate_events (job_id, type, at) VALUES (%s, 'started', now())", [job_id])
    assert job_id not in maintenance.rescue_stalled_jobs().rescued  # just started: left alone
    with connection.cursor() as cur:
        # ingest's wall timeout is 120 s: 3 x 120 + 90 = 450 s
        cur.execute("UPDATE procrastinate_events SET at = now() - interval '451 seconds' WHERE job_id = %s", [job_id])
    assert job_id in maintenance.rescue_stalled_jobs().rescued


def test_a_sweep_racing_another_over_one_failed_job_records_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two sweeps may select one failed job (the first's row lock is free once it commits,
    and the second read its NOT EXISTS before): the second keeps the first's record - a
    duplicate key failed the whole `jobs.rescue_and_sweep` job, seen in a clean-clone run."""
    import psycopg
    from procrastinate.contrib.django.utils import connector_params

    att = _new_document("UPDATE procrastinate_jobs SET status = 'failed' WHERE args->>'attachment_id' = %s")
    with connection.cursor() as cur:
        cur.execute("SELECT id FROM procrastinate_jobs WHERE args->>'attachment_id' = %s", [str(att)])
        (job_id,) = cur.fetchone()
    handle = maintenance._handle

    def handled_while_another_sweep_commits(*args: Any) -> str:
        with psycopg.connect(**connector_params(), autocommit=True) as other:  # the other sweep's own session
            other.execute(  # every failed job's record, as the other sweep makes it
                "INSERT INTO jobs_swept_job (job_id, task_name, outcome, swept_at)"
                " SELECT id, task_name, 'exhausted', now() FROM procrastinate_jobs WHERE status = 'failed'"
                " ON CONFLICT (job_id) DO NOTHING"
            )
        return handle(*args)

    monkeypatch.setattr(maintenance, "_handle", handled_while_another_sweep_commits)
    assert maintenance.sweep_failed_jobs() == []  # the other sweep's records stand
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM jobs_swept_job WHERE job_id = %s", [job_id])
        assert cur.fetchone()[0] == 1
