"""Retention and erasure: due dates, erasures and their tombstones, purge runs and the
per-subject, per-step `retention_action` rows that make a purge's boundary auditable.

None of these rows holds personal data: ids, step names, counts, HMAC digests.
"""

from __future__ import annotations

from django.db import models


class RetentionSubject(models.Model):
    """A candidate's retention clock: when their data is due for the nightly purge."""

    candidate_id = models.BigIntegerField(unique=True)
    last_activity_at = models.DateTimeField()
    consent_until = models.DateField(null=True, blank=True)  # longer retention the person agreed to
    legal_hold = models.BooleanField(default=False)  # never purged while set
    due_on = models.DateField(null=True, blank=True, db_index=True)  # retention_due_on; None = not due
    recomputed_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "retention_subject"


class ErasureOrigin(models.TextChoices):
    REQUEST = "request"  # GDPR art. 17, `ats erase` or the web action
    PURGE = "purge"  # the nightly retention purge
    REPLAY = "replay"  # re-applied from the erasure log after a restore


class ErasureState(models.TextChoices):
    RUNNING = "running"
    COMPLETED = "completed"


class Erasure(models.Model):
    """One person erased. The same facts go to the erasure log (blob storage, outside the
    database) so a restore of an older backup can be made to forget them again."""

    candidate_id = models.BigIntegerField(db_index=True)  # the candidate holding the documents
    candidate_ids = models.JSONField(default=list)  # it and every candidate merged into it
    attachment_ids = models.JSONField(default=list)
    application_ids = models.JSONField(default=list)
    origin = models.CharField(max_length=16, choices=ErasureOrigin.choices)
    state = models.CharField(max_length=16, choices=ErasureState.choices, default=ErasureState.RUNNING)
    actor = models.CharField(max_length=128)
    reason = models.TextField()
    steps = models.JSONField(default=list)
    purged_blobs = models.JSONField(default=list)  # container/key (the weekly verifier re-checks)
    requested_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "retention_erasure"


class Tombstone(models.Model):
    """HMAC(key, normalised e-mail or phone) of an erased person - never the value."""

    digest = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=8)  # email | phone
    erasure = models.ForeignKey(Erasure, on_delete=models.PROTECT, related_name="tombstones")
    created_at = models.DateTimeField(auto_now_add=True)
    lifted_at = models.DateTimeField(null=True, blank=True)  # an admin re-admitted the person
    lifted_by = models.CharField(max_length=128, blank=True, default="")

    class Meta:
        db_table = "retention_tombstone"


class PurgeState(models.TextChoices):
    RUNNING = "running"
    COMPLETED = "completed"
    HALTED = "halted"  # stopped at the first unexplained failure (ADR 0004 §2, R6)


class PurgeRun(models.Model):
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=16, choices=PurgeState.choices, default=PurgeState.RUNNING)
    job_id = models.BigIntegerField(null=True, blank=True)
    due_count = models.PositiveIntegerField(default=0)
    done_count = models.PositiveIntegerField(default=0)
    resumed_from = models.BigIntegerField(null=True, blank=True)  # the candidate the previous run halted at
    halted_at = models.BigIntegerField(null=True, blank=True)  # candidate id of the failure
    error = models.TextField(blank=True, default="")

    class Meta:
        db_table = "retention_purge_run"


class RetentionAction(models.Model):
    """`retention_action`: one row per subject and step (erasure or purge)."""

    run = models.ForeignKey(PurgeRun, null=True, blank=True, on_delete=models.PROTECT, related_name="actions")
    erasure = models.ForeignKey(Erasure, null=True, blank=True, on_delete=models.PROTECT, related_name="actions")
    candidate_id = models.BigIntegerField(db_index=True)
    step = models.CharField(max_length=32)
    outcome = models.CharField(max_length=16)  # done | failed
    detail = models.JSONField(default=dict)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "retention_action"


class PurgeVerification(models.Model):
    """The weekly verifier: purged blob keys re-checked against the store."""

    ran_at = models.DateTimeField(auto_now_add=True, db_index=True)
    ok = models.BooleanField()
    checked = models.PositiveIntegerField()
    still_present = models.JSONField(default=list)

    class Meta:
        db_table = "retention_purge_verification"
