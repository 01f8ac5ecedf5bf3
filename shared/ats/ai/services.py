"""Writes of the ai module: AiRun lifecycle and the circuit breaker.

Order of an invocation (ADR 0004 convention 6):
1. `ai_request` writes the AiRun (pending) and defers `ai.invoke` in one transaction - the
   run exists before any result can be used, whatever happens next.
2. The task re-checks the *human* actor's permission with `iam.can()` (and that they may
   see the subject), then the breaker, then calls the provider outside any transaction.
3. Only a validated answer is stored, as the run's output; a failure never becomes text.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from ats.ai import provider
from ats.ai.data import AiRunRequested
from ats.ai.models import TERMINAL, AiKind, AiRun, AiRunState, BreakerState, CircuitBreaker
from ats.candidates import api as candidates_api
from ats.errors import NotAllowed
from ats.iam import api as iam_api
from ats.jobs import api as jobs_api
from ats.scoring import api as scoring_api

logger = logging.getLogger("ats.ai")

INVOKE = "ai.invoke"
BREAKER = "default"
UNAVAILABLE = "AI unavailable"


# --- the circuit breaker ---------------------------------------------------------------


def _breaker_locked() -> CircuitBreaker:
    CircuitBreaker.objects.get_or_create(name=BREAKER)
    return CircuitBreaker.objects.select_for_update().get(name=BREAKER)


def breaker_allows() -> bool:
    """Closed only: while open or half-open, only the scheduled probe reaches the provider."""
    b = CircuitBreaker.objects.filter(name=BREAKER).first()
    return b is None or b.state == BreakerState.CLOSED


def breaker_record_success() -> None:
    with transaction.atomic():
        b = _breaker_locked()
        b.state, b.consecutive_failures, b.last_success_at = BreakerState.CLOSED, 0, timezone.now()
        b.save()


def breaker_record_failure(error: str) -> bool:
    """Count a failed call; returns True when the breaker is (now) open."""
    with transaction.atomic():
        b = _breaker_locked()
        b.consecutive_failures += 1
        b.last_error, b.last_failure_at = error[:2000], timezone.now()
        if b.state == BreakerState.HALF_OPEN or (
            b.state == BreakerState.CLOSED and b.consecutive_failures >= int(settings.AI_BREAKER_THRESHOLD)
        ):
            b.state, b.opened_at = BreakerState.OPEN, timezone.now()
            logger.warning("ai circuit breaker opened after %s failure(s): %s", b.consecutive_failures, error)
        b.save()
        return b.state == BreakerState.OPEN


def breaker_open(*, reason: str) -> None:
    """Open the breaker now, whatever the failure count: an invocation exhausted its
    attempts (ADR §2's AI row: "circuit breaker opens"). The 15-minute probe closes it."""
    with transaction.atomic():
        b = _breaker_locked()
        if b.state != BreakerState.OPEN:
            b.state, b.opened_at = BreakerState.OPEN, timezone.now()
            logger.warning("ai circuit breaker opened: an invocation exhausted its attempts (%s)", reason)
        b.last_error = reason[:500]
        b.save()


HOW_TO_CONFIGURE = (
    "To use AI, point web and worker-default at an OpenAI-compatible chat-completions endpoint: "
    "ATS_AI_BASE_URL (e.g. https://api.openai.com/v1, or a local server's /v1), ATS_AI_MODEL and, "
    "when the endpoint needs one, ATS_AI_API_KEY (docs/scoring.md)."
)


def unavailable_reason() -> str | None:
    """Why AI is unavailable right now, in plain words (None when it is available): not
    configured (and how to configure it), or switched off by the breaker since when and why."""
    status = breaker_status()
    if not status["enabled"]:
        return f"{UNAVAILABLE}: no AI provider is configured. {HOW_TO_CONFIGURE}"
    if status["state"] == BreakerState.CLOSED:
        return None
    since = ""
    if status["opened_at"]:
        opened = timezone.localtime(datetime.datetime.fromisoformat(status["opened_at"]))
        since = f" since {opened:%Y-%m-%d %H:%M %Z}"
    error = f" (last provider error: {status['last_error']})" if status["last_error"] else ""
    return (
        f"{UNAVAILABLE}: the AI provider kept failing, so AI is switched off{since}{error}. "
        "It is re-checked every 15 minutes and comes back on by itself when the provider answers."
    )


def breaker_probe() -> str:
    """The scheduled half-open probe: one minimal call when the breaker is open; success
    closes it, failure re-opens it. A closed breaker or a disabled provider: no call."""
    cfg = provider.config()
    with transaction.atomic():
        b = _breaker_locked()
        if not cfg.enabled or b.state == BreakerState.CLOSED:
            return b.state
        b.state, b.last_probe_at = BreakerState.HALF_OPEN, timezone.now()
        b.save()
    try:
        provider.chat(cfg, [{"role": "user", "content": "Reply with the single word: ok"}], max_tokens=5)
    except provider.ProviderError as exc:
        breaker_record_failure(f"probe: {exc}")
        return BreakerState.OPEN
    breaker_record_success()
    logger.info("ai circuit breaker closed by the probe")
    return BreakerState.CLOSED


def breaker_status() -> dict[str, Any]:
    b = CircuitBreaker.objects.filter(name=BREAKER).first()
    cfg = provider.config()
    return {
        "enabled": cfg.enabled,
        "model": cfg.model or None,
        "state": b.state if b else BreakerState.CLOSED,
        "consecutive_failures": b.consecutive_failures if b else 0,
        "opened_at": b.opened_at.isoformat() if b and b.opened_at else None,
        "last_error": (b.last_error or None) if b else None,
    }


# --- runs ------------------------------------------------------------------------------


def ai_request(*, kind: str, subject_id: int, actor: Any) -> AiRunRequested:
    """Ask for an AI answer on behalf of a signed-in human. The run row is written first;
    with the provider disabled it ends `unavailable` at once and nothing is queued."""
    if not getattr(actor, "is_authenticated", False) or getattr(actor, "is_system", False):
        raise NotAllowed("AI runs are asked for by a person: their permissions bound what the AI may read")
    if not iam_api.can(actor, "ai.invoke"):
        raise NotAllowed(f"{iam_api.actor_label(actor)} may not ai.invoke")
    kind = AiKind(kind)
    with transaction.atomic():
        run = AiRun.objects.create(kind=kind, subject_id=subject_id, requested_by_id=actor.pk)
        if not provider.config().enabled:
            _finish(run, AiRunState.UNAVAILABLE, code="disabled", reason=unavailable_reason() or UNAVAILABLE)
        else:
            jobs_api.defer(INVOKE, payload={"ai_run_id": run.pk})
        return AiRunRequested(id=run.pk, kind=run.kind, subject_id=run.subject_id, state=run.state)


def _finish(run: AiRun, state: str, *, output: str = "", code: str = "", reason: str = "") -> None:
    run.state, run.output, run.reason_code, run.reason = state, output, code, reason
    run.finished_at = timezone.now()
    run.save()
    logger.info("ai run %s (%s) %s %s", run.pk, run.kind, state, code)


def _human(user_id: int) -> Any:
    return get_user_model().objects.filter(pk=user_id).first()


def _messages(run: AiRun, user: Any) -> list[dict[str, str]] | None:
    """The prompt, read *as the human* (None when they may not see the subject). Never
    includes protected attributes: only criteria, contributions, evidence, skills, years."""
    system = (
        "You help recruiters. Answer in plain language, at most 120 words. Use only the facts given. "
        "Never guess or mention age, gender, nationality, ethnicity, religion, disability or family status."
    )
    if run.kind == AiKind.EXPLAIN_SCORE:
        app = scoring_api.application_detail(run.subject_id, actor=user)
        if app is None or app["score"] is None:
            return None
        facts = {
            "score": app["score"],
            "criteria": [
                {
                    "criterion": e["criterion"],
                    "status": e["status"],
                    "points": f"{e['contribution']}/{e['max']}",
                    "evidence": [ev.get("text") for ev in e["evidence"]],
                }
                for e in app["explanation"]
            ],
        }
        ask = "Explain this applicant tracking score to a recruiter: which criteria gave or cost points and why."
    else:
        if not iam_api.can(user, "candidate.view"):
            return None
        inputs = candidates_api.candidate_scoring_inputs(run.subject_id)
        if inputs is None or inputs["status"] != "active":
            return None
        facts = {
            "skills": [v["value"] for v in inputs["skills"]],
            "years_experience": next((v["value"] for v in inputs["years_experience"]), None),
        }
        ask = "Summarise this candidate's skills and experience for a recruiter."
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"{ask}\n\nFacts (JSON): {json.dumps(facts, sort_keys=True)}"},
    ]


def ai_run_execute(*, ai_run_id: int) -> str:  # noqa: PLR0911 - one return per run state the attempt can leave (ADR 0004 outcomes)
    """The task body. Returns the run's state after this attempt; raises
    provider.ProviderError for a failed call that should be retried."""
    cfg = provider.config()
    with transaction.atomic():
        run = AiRun.objects.select_for_update().filter(pk=ai_run_id).first()
        if run is None or run.state in TERMINAL:
            return run.state if run else "gone"
        user = _human(run.requested_by_id)
        # Convention 6: the human's permission, checked now, inside the task.
        if user is None or not iam_api.can(user, "ai.invoke"):
            _finish(run, AiRunState.REFUSED, code="not_allowed", reason="The person who asked may no longer use AI.")
            return run.state
        messages = _messages(run, user)
        if messages is None:
            _finish(run, AiRunState.REFUSED, code="not_visible", reason="The person who asked may not see this.")
            return run.state
        if not cfg.enabled:
            _finish(run, AiRunState.UNAVAILABLE, code="disabled", reason=unavailable_reason() or UNAVAILABLE)
            return run.state
        if not breaker_allows():
            _finish(run, AiRunState.UNAVAILABLE, code="circuit_open", reason=unavailable_reason() or UNAVAILABLE)
            return run.state
        run.state, run.attempts, run.model = AiRunState.RUNNING, run.attempts + 1, cfg.model[:128]
        run.prompt_sha256 = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        run.save()
    try:
        text = provider.chat(cfg, messages)  # outside any transaction: no row lock held on the network
    except provider.ProviderError as exc:
        opened = breaker_record_failure(str(exc))
        if opened:
            with transaction.atomic():
                run = AiRun.objects.select_for_update().get(pk=ai_run_id)
                if run.state not in TERMINAL:
                    _finish(run, AiRunState.UNAVAILABLE, code="circuit_open", reason=f"{UNAVAILABLE}: {exc}")
            return AiRunState.UNAVAILABLE
        raise
    breaker_record_success()
    with transaction.atomic():
        run = AiRun.objects.select_for_update().get(pk=ai_run_id)
        if run.state not in TERMINAL:
            _finish(run, AiRunState.SUCCEEDED, output=text)
        return run.state


def ai_run_exhausted(*, ai_run_id: int, reason_code: str, reason: str, **_: Any) -> None:
    """Every attempt failed: the run says "AI unavailable" with the provider's error - never
    text - and the breaker opens (ADR §2), so the next requests fail fast until the probe
    finds the provider answering again."""
    with transaction.atomic():
        run = AiRun.objects.select_for_update().filter(pk=ai_run_id).first()
        if run is not None and run.state not in TERMINAL:
            _finish(run, AiRunState.FAILED, code=reason_code[:64], reason=f"{UNAVAILABLE}: provider error: {reason}")
        breaker_open(reason=reason)


# --- erasure and subject access (called by ats.retention) ------------------------------


def _subject_runs(candidate_ids: list[int], application_ids: list[int]) -> Any:
    from django.db.models import Q

    return AiRun.objects.filter(
        Q(kind=AiKind.CV_SUMMARY, subject_id__in=candidate_ids)
        | Q(kind=AiKind.EXPLAIN_SCORE, subject_id__in=application_ids)
    )


def ai_personal_rows(*, candidate_ids: list[int], application_ids: list[int]) -> dict[str, list[dict[str, Any]]]:
    """Every AI run about these candidates or their applications (outputs included)."""
    return {"ai_run": [dict(r) for r in _subject_runs(candidate_ids, application_ids).values()]}


def ai_runs_erase(*, candidate_ids: list[int], application_ids: list[int]) -> dict[str, int]:
    """Delete the AI runs about this subject: outputs and prompts (only the prompt's hash
    is stored; prompts are built on demand from rows erasure removes). Idempotent."""
    return {"ai_run": _subject_runs(candidate_ids, application_ids).delete()[0]}
