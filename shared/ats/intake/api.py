"""Facade of the intake module."""

from ats.intake.models import Attachment, Channel, RawIntake
from ats.intake.selectors import (
    LostDocument,
    ParsedDocument,
    attachment_status,
    latest_verification,
    lost_documents,
    parsed_document_for_update,
    raw_intake_attachments,
    raw_intake_get,
    state_counts,
)
from ats.intake.services import (
    IncomingFile,
    attachment_mark_candidate_created,
    attachment_mark_candidate_failed,
    attachment_reparse,
    candidate_exhausted,
    ingest_exhausted,
    intake_receive,
    max_upload_bytes,
    parse_exhausted,
    verification_run_record,
)
from ats.intake.states import INFO, TERMINAL, WAITING, State, is_terminal

__all__ = [
    "INFO",
    "TERMINAL",
    "WAITING",
    "Attachment",
    "Channel",
    "IncomingFile",
    "LostDocument",
    "ParsedDocument",
    "RawIntake",
    "State",
    "attachment_mark_candidate_created",
    "attachment_mark_candidate_failed",
    "attachment_reparse",
    "attachment_status",
    "candidate_exhausted",
    "ingest_exhausted",
    "intake_receive",
    "is_terminal",
    "latest_verification",
    "lost_documents",
    "max_upload_bytes",
    "parse_exhausted",
    "parsed_document_for_update",
    "raw_intake_attachments",
    "raw_intake_get",
    "state_counts",
    "verification_run_record",
]
