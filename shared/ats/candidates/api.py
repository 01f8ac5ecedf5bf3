"""Facade of the candidates module."""

from ats.candidates.erasure import (
    Subject,
    candidate_erase_personal,
    candidate_personal_rows,
    candidate_subject,
    normalise_phone,
)
from ats.candidates.models import Candidate, CandidateStatus, DuplicatePair, PairKind
from ats.candidates.selectors import (
    candidate_current_id,
    candidate_detail,
    candidate_documents_visible_to,
    candidate_list,
    candidate_scoring_inputs,
    candidate_visible,
    candidates_visible_to,
)
from ats.candidates.services import (
    CandidateNotActive,
    NotAllowed,
    candidate_accept_change,
    candidate_apply_document,
    candidate_dedupe,
    candidate_dedupe_exhausted,
    candidate_dismiss_change,
    candidate_edit_field,
    candidate_merge,
    candidate_unmerge,
)

__all__ = [
    "Candidate",
    "CandidateNotActive",
    "CandidateStatus",
    "DuplicatePair",
    "NotAllowed",
    "PairKind",
    "Subject",
    "candidate_accept_change",
    "candidate_apply_document",
    "candidate_current_id",
    "candidate_dedupe",
    "candidate_dedupe_exhausted",
    "candidate_detail",
    "candidate_dismiss_change",
    "candidate_documents_visible_to",
    "candidate_edit_field",
    "candidate_erase_personal",
    "candidate_list",
    "candidate_merge",
    "candidate_personal_rows",
    "candidate_scoring_inputs",
    "candidate_subject",
    "candidate_unmerge",
    "candidate_visible",
    "candidates_visible_to",
    "normalise_phone",
]
