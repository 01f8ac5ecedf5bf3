"""AiRun (every invocation, written before any result is usable) and the circuit breaker."""

from __future__ import annotations

from django.db import models


class AiKind(models.TextChoices):
    EXPLAIN_SCORE = "explain_score"  # a plain-language explanation of an application's score
    CV_SUMMARY = "cv_summary"  # a short summary of a candidate's skills and experience


class AiRunState(models.TextChoices):
    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # the provider failed on every attempt
    UNAVAILABLE = "unavailable"  # disabled, or the breaker is open: no call was made
    REFUSED = "refused"  # the human actor may not (checked inside the task)


TERMINAL = frozenset({AiRunState.SUCCEEDED, AiRunState.FAILED, AiRunState.UNAVAILABLE, AiRunState.REFUSED})


class AiRun(models.Model):
    kind = models.CharField(max_length=32, choices=AiKind.choices)
    subject_id = models.BigIntegerField()  # application (explain_score) or candidate (cv_summary)
    # The human who asked: the task checks *their* permission (ADR convention 6).
    requested_by_id = models.BigIntegerField()
    state = models.CharField(max_length=16, choices=AiRunState.choices, default=AiRunState.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    model = models.CharField(max_length=128, blank=True, default="")
    prompt_sha256 = models.CharField(max_length=64, blank=True, default="")
    output = models.TextField(blank=True, default="")  # shown only when state = succeeded
    reason_code = models.CharField(max_length=64, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "ai_run"


class BreakerState(models.TextChoices):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker(models.Model):
    """One row per provider ("default"). Failures are consecutive failed calls."""

    name = models.CharField(max_length=32, primary_key=True)
    state = models.CharField(max_length=16, choices=BreakerState.choices, default=BreakerState.CLOSED)
    consecutive_failures = models.PositiveIntegerField(default=0)
    opened_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    last_failure_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_probe_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "ai_circuit_breaker"
