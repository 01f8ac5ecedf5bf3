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


def succeeded(task: str) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM procrastinate_jobs WHERE task_name = %s AND status = 'succeeded'", [task])
        return int(cur.fetchone()[0])


def test_periodic_audit_blob_and_search_jobs_run(start_worker: Any) -> None:
    audit_api.audit_event_record(actor="system:test", action="t", object_type="x", object_id=1)
    start_worker("default", env=CRONS)
    for task in ("audit.verify", "audit.export_verify", "audit.partitions", "blobs.reconcile", "search.refresh_sweep"):
        wait_for(lambda t=task: succeeded(t) > 0, 60, f"a succeeded {task} job")
    assert AuditVerification.objects.filter(ok=True).exists()
    assert BlobReconciliation.objects.exists() and SearchSweep.objects.exists()
