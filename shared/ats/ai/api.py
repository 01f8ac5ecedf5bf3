"""Facade of the ai module."""

from ats.ai.models import AiKind, AiRunState, BreakerState
from ats.ai.provider import AiError
from ats.ai.selectors import ai_run_detail
from ats.ai.services import (
    HOW_TO_CONFIGURE,
    UNAVAILABLE,
    NotAllowed,
    ai_personal_rows,
    ai_request,
    ai_run_execute,
    ai_run_exhausted,
    ai_runs_erase,
    breaker_probe,
    breaker_status,
    unavailable_reason,
)

__all__ = [
    "HOW_TO_CONFIGURE",
    "UNAVAILABLE",
    "AiError",
    "AiKind",
    "AiRunState",
    "BreakerState",
    "NotAllowed",
    "ai_personal_rows",
    "ai_request",
    "ai_run_detail",
    "ai_run_execute",
    "ai_run_exhausted",
    "ai_runs_erase",
    "breaker_probe",
    "breaker_status",
    "unavailable_reason",
]
