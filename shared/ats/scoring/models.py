"""Requisitions (versioned), routing, applications, `ats_result`, rescore runs, the scoring log.

Other modules' rows (candidates, attachments, channels, users) are referenced by id only:
each module owns its tables (ADR convention 7).
"""

from __future__ import annotations

from django.db import models


class Requisition(models.Model):
    title = models.CharField(max_length=255)
    current_version = models.PositiveIntegerField(default=0)
    # Closed: no new applications are routed to it; its ranking and decisions stay readable.
    closed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "scoring_requisition"


class RequisitionVersion(models.Model):
    """One version of a requisition's criteria. Never updated: an edit adds a version."""

    requisition = models.ForeignKey(Requisition, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    title = models.CharField(max_length=255)
    must_have = models.JSONField(default=list)  # canonical skill names, in the order given
    nice_to_have = models.JSONField(default=list)
    min_years = models.FloatField(null=True, blank=True)
    weights = models.JSONField(default=dict)
    created_by = models.CharField(max_length=128, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "scoring_requisition_version"
        constraints = [
            models.UniqueConstraint(fields=["requisition", "version"], name="requisition_version_unique"),
        ]


class RequisitionAssignment(models.Model):
    """A hiring manager assigned to a requisition (they see only these)."""

    requisition = models.ForeignKey(Requisition, on_delete=models.CASCADE, related_name="assignments")
    user_id = models.BigIntegerField()

    class Meta:
        db_table = "scoring_requisition_assignment"
        constraints = [models.UniqueConstraint(fields=["requisition", "user_id"], name="requisition_assignment_unique")]


class ChannelRequisition(models.Model):
    """Mailbox channel -> requisition: documents arriving there apply to it."""

    channel_id = models.BigIntegerField(unique=True)
    requisition = models.ForeignKey(Requisition, on_delete=models.CASCADE, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "scoring_channel_requisition"


class ApplicationState(models.TextChoices):
    APPLIED = "applied"
    SCORED = "scored"
    SCORING_FAILED = "scoring_failed"


class Stage(models.TextChoices):
    """Where a person is in the hiring process: moved only by a person's decision."""

    NEW = "new", "New"
    SCREENING = "screening", "Screening"
    INTERVIEW = "interview", "Interview"
    OFFER = "offer", "Offer"
    HIRED = "hired", "Hired"
    REJECTED = "rejected", "Rejected"


class Application(models.Model):
    """One candidate applying to one requisition."""

    candidate_id = models.BigIntegerField()
    requisition = models.ForeignKey(Requisition, on_delete=models.PROTECT, related_name="applications")
    # The version the current state refers to (the one scored, or being scored, against).
    requisition_version = models.ForeignKey(RequisitionVersion, on_delete=models.PROTECT, related_name="+")
    state = models.CharField(max_length=16, choices=ApplicationState.choices, default=ApplicationState.APPLIED)
    reason_code = models.CharField(max_length=64, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    current_result = models.ForeignKey("AtsResult", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # db_default too: application_apply inserts with raw SQL (ON CONFLICT DO NOTHING).
    stage = models.CharField(max_length=16, choices=Stage.choices, default=Stage.NEW, db_default=Stage.NEW)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "scoring_application"
        constraints = [
            models.UniqueConstraint(fields=["candidate_id", "requisition"], name="application_unique_per_requisition"),
        ]
        indexes = [models.Index(fields=["state", "updated_at"])]


class ApplicationDecision(models.Model):
    """A person's decision on an application, with what they saw when they made it.

    Never updated. The score, fingerprint, config version and explanation are copied from
    the result shown at the time (not referenced only), so a fairness report or a
    human-oversight review reads what the decider saw even after a rescore.
    """

    application = models.ForeignKey("Application", on_delete=models.CASCADE, related_name="decisions")
    from_stage = models.CharField(max_length=16, choices=Stage.choices)
    to_stage = models.CharField(max_length=16, choices=Stage.choices)
    reason = models.TextField()
    actor = models.CharField(max_length=128)  # iam's actor label (user:<id> or a system label)
    actor_user_id = models.BigIntegerField(null=True)
    requisition_version_id = models.BigIntegerField()
    result_id = models.BigIntegerField(null=True)
    score = models.PositiveSmallIntegerField(null=True)
    input_fingerprint = models.CharField(max_length=64, blank=True, default="")
    config_version = models.CharField(max_length=32, blank=True, default="")
    explanation = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "scoring_application_decision"
        indexes = [models.Index(fields=["application", "created_at"])]


class ApplicationDocument(models.Model):
    """Which document (intake attachment) brought the application (one per document)."""

    application = models.ForeignKey(Application, on_delete=models.CASCADE, related_name="documents")
    attachment_id = models.BigIntegerField(unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "scoring_application_document"


RESULT_UNIQUE = "ats_result_unique_fingerprint"


class AtsResult(models.Model):
    """`ats_result`: one per (application, input_fingerprint), by the database.

    Keeps everything needed to reconstruct the score: the criteria values, the candidate
    values used, the config version and the explanation.
    """

    application = models.ForeignKey(Application, on_delete=models.CASCADE, related_name="results")
    requisition_version = models.ForeignKey(RequisitionVersion, on_delete=models.PROTECT, related_name="+")
    input_fingerprint = models.CharField(max_length=64)
    config_version = models.CharField(max_length=32)
    score = models.PositiveSmallIntegerField()
    explanation = models.JSONField()
    criteria = models.JSONField()
    inputs = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "ats_result"
        constraints = [
            models.UniqueConstraint(fields=["application", "input_fingerprint"], name=RESULT_UNIQUE),
            models.CheckConstraint(condition=models.Q(score__lte=100), name="ats_result_score_0_100"),
        ]


class ScoringEvent(models.Model):
    """The scoring log: every attempt's outcome with its fingerprint and config version."""

    application_id = models.BigIntegerField(db_index=True)
    requisition_version_id = models.BigIntegerField(null=True)
    outcome = models.CharField(max_length=16)  # scored | unchanged | failed
    input_fingerprint = models.CharField(max_length=64, blank=True, default="")
    config_version = models.CharField(max_length=32)
    result_id = models.BigIntegerField(null=True)
    rescore_run_id = models.BigIntegerField(null=True)
    detail = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "scoring_event"


class RescoreState(models.TextChoices):
    RUNNING = "running"
    COMPLETED = "completed"


class RescoreRun(models.Model):
    """The summary row of one batch rescore (written by the coordinator job)."""

    requisition_version = models.ForeignKey(RequisitionVersion, on_delete=models.PROTECT, related_name="+")
    job_id = models.BigIntegerField(null=True, unique=True)  # the coordinator job (idempotent on retry)
    state = models.CharField(max_length=16, choices=RescoreState.choices, default=RescoreState.RUNNING)
    total = models.PositiveIntegerField(default=0)
    config_version = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "scoring_rescore_run"


class ItemState(models.TextChoices):
    PENDING = "pending"
    SCORED = "scored"
    UNCHANGED = "unchanged"
    FAILED = "failed"


class RescoreItem(models.Model):
    run = models.ForeignKey(RescoreRun, on_delete=models.CASCADE, related_name="items")
    application = models.ForeignKey(Application, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16, choices=ItemState.choices, default=ItemState.PENDING)
    reason = models.TextField(blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "scoring_rescore_item"
        constraints = [models.UniqueConstraint(fields=["run", "application"], name="rescore_item_unique")]
        indexes = [models.Index(fields=["run", "state"])]
