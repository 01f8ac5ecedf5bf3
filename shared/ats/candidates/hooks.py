"""What modules above candidates plug into it at app start.

Candidates sits below scoring and the pipeline in the layers (docs/architecture.md), so
it may not import them; where its own behaviour depends on theirs, they register here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.dispatch import Signal

# A recruiter attached a document to a candidate (by hand or by creating the person):
# sent inside the attaching transaction with attachment_id= and candidate_id=. The
# pipeline's receiver applies the candidate to the requisitions the document was sent
# for, as the candidate step does. A receiver's error rolls the attachment back.
document_attached = Signal()

# user id -> candidate ids (a queryset or list) a hiring manager may see. Scoring owns
# requisition assignments and registers it; unregistered, a hiring manager sees nobody.
_assigned_candidates: Callable[[int], Any] | None = None


def register_assigned_candidates(lookup: Callable[[int], Any]) -> None:
    global _assigned_candidates  # noqa: PLW0603 - one registration per process, at app start
    _assigned_candidates = lookup


def assigned_candidate_ids(user_id: int) -> Any:
    return _assigned_candidates(user_id) if _assigned_candidates is not None else []
