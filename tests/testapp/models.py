from django.db import models


class Marker(models.Model):
    """What a test task did, keyed by the test's token (idempotent writes)."""

    token = models.BigIntegerField(unique=True)
    runs = models.PositiveIntegerField(default=0)
    state = models.CharField(max_length=32, default="")
    started_at = models.DateTimeField(null=True)
    finished_at = models.DateTimeField(null=True)
