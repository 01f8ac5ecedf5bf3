"""Thin intake tasks for worker-default (queue `ingest`)."""

from __future__ import annotations

import os

from django.db import transaction

from ats.intake import adapters, pages, services
from ats.jobs import api as jobs_api


@jobs_api.task("intake.ingest_attachment")
def ingest_attachment(*, attachment_id: int, payload_version: int, raised_limits: bool = False) -> None:
    try:
        services.attachment_ingest(attachment_id=attachment_id, raised_limits=raised_limits)
    except adapters.ScannerUnavailable as exc:
        attempt = jobs_api.current_attempt()
        if attempt is not None and attempt.is_last:
            # Written here, with the reason, rather than left to the generic handler.
            with transaction.atomic():
                services.attachment_mark_scan_failed(attachment_id=attachment_id, reason=str(exc))
            raise jobs_api.PermanentFailure("scan_failed", str(exc)) from exc
        raise


@jobs_api.task("intake.verify_documents", periodic=os.environ.get("ATS_VERIFY_CRON", "*/5 * * * *"))
def verify_documents(*, timestamp: int, payload_version: int) -> None:
    # Settle parse jobs that "succeeded" with no report first (issue 21 N5), so their
    # documents are not counted lost: they end parse_failed / report_missing.
    services.parse_jobs_settle_unreported()
    services.verification_run_record()


# `intake.apply_parse_result` (deferred with each parse report) is registered by
# ats.pipeline.tasks since issue 26: it applies the report AND runs the candidate step in
# one transaction, which needs modules above intake. Same name, queue and payload.


@jobs_api.task("intake.store_page_images")
def store_page_images(*, attachment_id: int, attempt_no: int, payload_version: int) -> None:
    # Deferred by ats_parse_pages_done() (policy/page-images.sql) once worker-untrusted
    # has handed off every page; the checks are all in the service.
    pages.page_images_store(attachment_id=attachment_id, attempt_no=attempt_no)
