"""The issue's periodic jobs run in a real worker-default (crons shrunk to seconds)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from ats.audit import api as audit_api
from ats.audit.models import AuditVerification
from ats.evidence.models import BlobReconciliation
from ats.search.models import SearchSweep
from tests.jobs.helpers import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

FAST = "* * * * * */2"
CRONS = {
    "ATS_AUDIT_VERIFY_CRON": FAST,
    "ATS_AUDIT_EXPORT_CRON": FAST,
    "ATS_AUDIT_PARTITIONS_CRON": FAST,
    "ATS_BLOBS_RECONCILE_CRON": FAST,
    "ATS_SEARCH_SWEEP_CRON": FAST,
}


def _last_job_id() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT coalesce(max(id), 0) FROM procrastinate_jobs")
        return int(cur.fetchone()[0])


def succeeded(task: str, after: int) -> int:
    """This test's succeeded jobs of a task: the job table outlives a test's flush, so an
    earlier test's periodic job in the same database must not count (a clean-clone run
    found one: its sweep's job counted, and this worker's sweep had not yet run)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = %s AND status = 'succeeded' AND id > %s",
            [task, after],
        )
        return int(cur.fetchone()[0])


def test_periodic_audit_blob_and_search_jobs_run(start_worker: Any) -> None:
    audit_api.audit_event_record(actor="system:test", action="t", object_type="x", object_id=1)
    before = _last_job_id()
    start_worker("default", env=CRONS)
    for task in ("audit.verify", "audit.export_verify", "audit.partitions", "blobs.reconcile", "search.refresh_sweep"):
        wait_for(lambda t=task: succeeded(t, before) > 0, 60, f"a succeeded {task} job")
    assert AuditVerification.objects.filter(ok=True).exists()
    assert BlobReconciliation.objects.exists() and SearchSweep.objects.exists()
