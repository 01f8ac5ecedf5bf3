"""Chain steps that follow an event in a lower module, connected at app start."""

from __future__ import annotations

from typing import Any

from ats.candidates import api as candidates_api
from ats.scoring import api as scoring_api


def _apply_attached_document(*, attachment_id: int, candidate_id: int, **_: Any) -> None:
    # A recruiter attached a document sent for a requisition: the candidate applies to it,
    # as the candidate step does (ats.pipeline.tasks). Same transaction as the attach.
    scoring_api.applications_for_document(attachment_id=attachment_id, candidate_id=candidate_id)


def connect() -> None:
    candidates_api.document_attached.connect(_apply_attached_document, dispatch_uid="pipeline.apply_attached_document")
