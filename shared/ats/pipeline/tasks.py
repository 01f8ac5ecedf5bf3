"""The chain steps that cross modules: each takes ids, re-checks state and calls the
owning modules' facades in one transaction.

The candidate step reads intake's parsed document, asks retention whether the person was
erased, makes or updates the candidate and applies them to scoring's requisitions: it
imports modules on four layers, so it lives above all of them (docs/architecture.md).
Its task name stays `candidates.create_from_attachment` (job rows and the policy table
name it).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction

from ats.candidates import api as candidates_api
from ats.extraction import api as extraction_api
from ats.intake import api as intake_api
from ats.jobs import api as jobs_api
from ats.retention import api as retention_api
from ats.scoring import api as scoring_api

logger = logging.getLogger(__name__)


@jobs_api.task("candidates.create_from_attachment")
def create_from_attachment(*, attachment_id: int, payload_version: int, readmitted: bool = False) -> None:
    with transaction.atomic(), jobs_api.db_budget():
        doc = intake_api.parsed_document_for_update(attachment_id=attachment_id)
        if doc is None:
            return  # superseded, deleted or already done: nothing to do (convention 5)
        # Pure and bounded (no super-linear rules): safe inside the locked transaction.
        # A national phone number's region: the CV's own signals, else the channel's, else
        # the deployment's (docs/extraction.md, "Phone regions").
        extraction = extraction_api.extract(
            doc.result, default_region=settings.DEFAULT_PHONE_REGION, channel_region=doc.channel_region
        )
        # Read once: nothing below writes a candidate link before both checks have used it.
        is_new = not candidates_api.document_has_candidate(attachment_id=attachment_id)
        # An erased person's later document ends `erased_subject` (their tombstone matches
        # the e-mail or phone it carries), unless an admin re-admitted it. A re-parse of a
        # document that already has a candidate is not a new arrival: no check.
        if is_new and not readmitted:
            erasure_id = retention_api.tombstone_match(
                emails=[*extraction.values("emails"), *extraction.contact_emails], phones=extraction.values("phones")
            )
            if erasure_id is not None:
                intake_api.attachment_mark_erased_subject(attachment_id=attachment_id, erasure_id=erasure_id)
                return
        # The creation gate (candidates.identity): a NEW document makes a candidate only
        # when it names a person and a way to reach them. Otherwise its extraction is
        # kept and it waits, in `no_candidate_details`, for a recruiter to attach it or
        # create the person by hand. A re-parse of a document that has a candidate
        # stays with that candidate (its owner already passed the gate, or a recruiter
        # attached it).
        if is_new:
            lacking = candidates_api.missing_for_document(extraction, result=doc.result, text=doc.text)
            if lacking:
                candidates_api.document_record_extraction(
                    attachment_id=attachment_id, parse_attempt=doc.parse_attempt, extraction=extraction
                )
                # A cover letter / certificate sent with a CV belongs to the CV's person.
                if candidates_api.document_attach_to_message_cv(attachment_id=attachment_id, text=doc.text) is None:
                    intake_api.attachment_mark_no_candidate_details(attachment_id=attachment_id, missing=lacking)
                return
        candidate = candidates_api.candidate_apply_document(
            attachment_id=attachment_id, parse_attempt=doc.parse_attempt, extraction=extraction, text=doc.text
        )
        if candidate is None:
            intake_api.attachment_mark_candidate_failed(
                attachment_id=attachment_id,
                code="candidate_erased",
                reason="The candidate this document belongs to was erased.",
            )
            return
        intake_api.attachment_mark_candidate_created(attachment_id=attachment_id, candidate_id=candidate.pk)
        candidates_api.document_set_kind(attachment_id=attachment_id, text=doc.text, has_identity=True)
        # Documents of the same message read before this CV wait in no_candidate_details.
        candidates_api.candidate_collect_message_companions(attachment_id=attachment_id, candidate_id=candidate.pk)
        # The application step: one application per requisition the document (or a
        # byte-identical duplicate) was sent for; none = talent pool.
        scoring_api.applications_for_document(attachment_id=attachment_id, candidate_id=candidate.pk)
