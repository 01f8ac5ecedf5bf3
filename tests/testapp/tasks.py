"""Tasks registered only when ATS_EXTRA_APPS=tests.testapp (the test runner sets it)."""

from __future__ import annotations

from django.db import transaction
from procrastinate.contrib.django import app

from ats.audit import api as audit_api
from ats.jobs import api as jobs_api


@app.task(name="tests.write_defer_then", queue="maintenance")
def write_defer_then(*, token: int, outcome: str) -> None:
    """Writes a row and defers a job in one transaction, then succeeds or raises."""
    with transaction.atomic():
        audit_api.audit_event_record(actor="test", action="test.marker", object_type="token", object_id=token)
        jobs_api.defer("candidates.create_from_attachment", payload={"attachment_id": -token})
        if outcome == "raise":
            raise RuntimeError("deliberate failure after write + defer")
