"""Thin tasks: take ids, re-check state, call the owning modules' services."""

from __future__ import annotations

from django.db import transaction

from ats.candidates import services
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api


@jobs_api.task("candidates.create_from_attachment")
def create_from_attachment(*, attachment_id: int, payload_version: int) -> None:
    with transaction.atomic(), jobs_api.db_budget():
        doc = intake_api.parsed_document_for_update(attachment_id=attachment_id)
        if doc is None:
            return  # superseded, deleted or already done: nothing to do (convention 5)
        candidate = services.candidate_create_from_document(
            attachment_id=attachment_id, text=doc.text, filename=doc.filename
        )
        intake_api.attachment_mark_candidate_created(attachment_id=attachment_id, candidate_id=candidate.pk)
