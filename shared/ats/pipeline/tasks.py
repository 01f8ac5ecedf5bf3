"""The chain steps that cross modules: each takes ids, re-checks state and calls the
owning modules' facades in one transaction.

The candidate step reads intake's parsed document, asks retention whether the person was
erased, makes or updates the candidate and applies them to scoring's requisitions: it
imports modules on four layers, so it lives above all of them (docs/architecture.md).
Its task name stays `candidates.create_from_attachment` (job rows and the policy table
name it).

Issue 26 (fewer jobs per document): the step normally runs inside `intake.apply_parse_result`,
in the transaction that applies the parse report (one job and one transaction fewer per
document); the candidates' dedupe and search indexing it triggers go out as ONE
`candidates.follow_ups` job per candidate instead of three. A candidate step that fails
there rolls back to a savepoint and is deferred alone as `candidates.create_from_attachment`
(the report stays applied, the document `parsed`), so its retries and its failure state
(`candidate_failed`) are what they were. `candidates.create_from_attachment`,
`candidates.dedupe` and `search.index` stay registered: jobs queued under them before an
upgrade still run, and other writers (merges, edits, retries) still use them.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from ats.audit import api as audit_api
from ats.candidates import api as candidates_api
from ats.extraction import api as extraction_api
from ats.intake import api as intake_api
from ats.intake import data as intake_data
from ats.jobs import api as jobs_api
from ats.observability import api as observability_api
from ats.pipeline.follow_ups import FOLLOW_UP_STEPS, FOLLOW_UPS, known_steps
from ats.retention import api as retention_api
from ats.scoring import api as scoring_api

logger = logging.getLogger(__name__)

CANDIDATE = "candidates.create_from_attachment"


@jobs_api.task("intake.apply_parse_result")
def apply_parse_result(*, parse_result_id: int, payload_version: int) -> None:
    # Audit events at the end (issue 26): the chain head is locked from just before the
    # commit, not from the first event on, so other writers of the chain wait less.
    with transaction.atomic(), jobs_api.db_budget(), audit_api.audit_events_at_end():
        # A rejected or failed report ends the attempt (and the document) `parse_failed`
        # with its reason here, as before; only a document now `parsed` goes on.
        applied = intake_api.parse_result_apply(parse_result_id=parse_result_id, defer_candidate=False)
        attachment_id = applied.parsed_attachment_id
        if attachment_id is not None:
            try:
                # A savepoint: a failing step must not undo the parse; its kept audit events go with it.
                with transaction.atomic(), audit_api.audit_events_at_end():
                    _candidate_step_with_follow_ups(
                        attachment_id=attachment_id, readmitted=False, just_parsed=applied.parsed
                    )
            except Exception:
                # The step's own job takes over: its attempts, backoff and exhaustion
                # handler (`candidate_failed` with the reason) are unchanged.
                logger.warning(
                    "candidate step of attachment %s failed inside apply_parse_result: deferred alone",
                    attachment_id,
                    exc_info=True,
                )
                jobs_api.defer(CANDIDATE, payload={"attachment_id": attachment_id})
    # Committed: the report's figures count now (a rolled-back apply raised past here and
    # counts nothing; its retry counts once). Recorded after the block rather than with
    # transaction.on_commit, which ADR R1 keeps out of the code base.
    if applied.figures is not None:
        f = applied.figures
        observability_api.record_parse_report(ok=f.ok, code=f.code, sandbox=f.sandbox, rejected_check=f.rejected_check)


@jobs_api.task(CANDIDATE)
def create_from_attachment(*, attachment_id: int, payload_version: int, readmitted: bool = False) -> None:
    # Alone: a retry of a failed candidate step, a re-admission, a fallback from the
    # folded path above, or a job queued before the upgrade.
    with transaction.atomic(), jobs_api.db_budget(), audit_api.audit_events_at_end():
        _candidate_step_with_follow_ups(attachment_id=attachment_id, readmitted=readmitted)


@jobs_api.task(FOLLOW_UPS)
def follow_ups(*, candidate_id: int, steps: list[list[Any]], payload_version: int) -> None:
    # Only the steps this module batches: the payload is a job row, not a command line.
    unknown = sorted({str(s[0]) for s in steps if s not in known_steps([s])})
    if unknown:
        raise jobs_api.PermanentFailure("unknown_step", f"follow-up steps not batched here: {', '.join(unknown)}")
    jobs_api.run_follow_ups(steps)


def _candidate_step_with_follow_ups(
    *, attachment_id: int, readmitted: bool, just_parsed: intake_data.ParsedAttempt | None = None
) -> None:
    # The score jobs the step defers go out with the follow-ups, in one statement.
    with jobs_api.follow_ups(*FOLLOW_UP_STEPS, together=scoring_api.SCORE_TASKS) as batch:
        candidate_id = _candidate_step(attachment_id=attachment_id, readmitted=readmitted, just_parsed=just_parsed)
        # Ended inside the block: the batch refuses to be left with held jobs unsent.
        if candidate_id is not None:
            batch.defer_as_one(FOLLOW_UPS, candidate_id=candidate_id)
        else:
            batch.defer_alone()


def _candidate_step(
    *, attachment_id: int, readmitted: bool, just_parsed: intake_data.ParsedAttempt | None = None
) -> int | None:
    """The candidate step in the caller's transaction; the candidate's id, if any.
    `just_parsed`: the parse the same transaction recorded (not read back)."""
    doc = intake_api.parsed_document_for_update(attachment_id=attachment_id, just_parsed=just_parsed)
    if doc is None:
        return None  # superseded, deleted or already done: nothing to do (convention 5)
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
            return None
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
            return None
    candidate = candidates_api.candidate_apply_document(
        attachment_id=attachment_id,
        parse_attempt=doc.parse_attempt,
        extraction=extraction,
        text=doc.text,
        has_candidate=not is_new,
        classify=True,  # its kind (cv, cover letter, ...) with the link, not one UPDATE more
    )
    if candidate is None:
        intake_api.attachment_mark_candidate_failed(
            attachment_id=attachment_id,
            code="candidate_erased",
            reason="The candidate this document belongs to was erased.",
        )
        return None
    intake_api.attachment_mark_candidate_created(attachment_id=attachment_id, candidate_id=candidate.id)
    # Documents of the same message read before this CV wait in no_candidate_details.
    candidates_api.candidate_collect_message_companions(
        attachment_id=attachment_id, candidate_id=candidate.id, by_mail=doc.by_mail
    )
    # The application step: one application per requisition the document (or a
    # byte-identical duplicate) was sent for; none = talent pool.
    scoring_api.applications_for_document(
        attachment_id=attachment_id, candidate_id=candidate.id, candidate_created=candidate.created
    )
    return candidate.id
