"""Reads of the ai module: what a person sees of a run."""

from __future__ import annotations

from typing import Any

from ats.ai.models import TERMINAL, AiRun, AiRunState
from ats.ai.services import UNAVAILABLE


def ai_run_detail(ai_run_id: int, *, actor: Any) -> dict[str, Any] | None:
    """Only the person who asked sees a run. `text` is set only for a succeeded run; every
    other terminal state shows "AI unavailable" (or the refusal) - never substitute text."""
    user_id = getattr(actor, "pk", None)
    if user_id is None:
        return None
    run = AiRun.objects.filter(pk=ai_run_id, requested_by_id=int(user_id)).first()
    if run is None:
        return None
    message = None
    if run.state in (AiRunState.FAILED, AiRunState.UNAVAILABLE):
        message = UNAVAILABLE
    elif run.state == AiRunState.REFUSED:
        message = "Not allowed"
    return {
        "id": run.pk,
        "kind": run.kind,
        "subject_id": run.subject_id,
        "state": run.state,
        "terminal": run.state in TERMINAL,
        "text": run.output if run.state == AiRunState.SUCCEEDED else None,
        "message": message,
        "reason": run.reason or None,
        "model": run.model or None,
        "attempts": run.attempts,
        "created_at": run.created_at.isoformat(),
    }
