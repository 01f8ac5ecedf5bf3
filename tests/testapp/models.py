from django.db import models


class Marker(models.Model):
    """What a test task did, keyed by the test's token (idempotent writes)."""

    token = models.BigIntegerField(unique=True)
    runs = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=32, default="")
    started_at = models.DateTimeField(null=True)
    finished_at = models.DateTimeField(null=True)


class Effect(models.Model):
    """One row per run that got to its effect - deliberately NOT idempotent, so a job that
    ran twice at once shows two rows."""

    token = models.BigIntegerField(db_index=True)
    attempt = models.PositiveIntegerField()
    pid = models.IntegerField()
    at = models.DateTimeField(auto_now_add=True)
