from django.db import models


class AuditEvent(models.Model):
    """Append-only: a trigger (migration 0002) refuses UPDATE and DELETE.

    Shaped for later monthly partitioning (`occurred_at` is the partition key and part of
    every lookup) and hash-chaining (`prev_hash`/`row_hash` filled by the exporter that
    seals a closed month; left empty while a month is open).
    """

    occurred_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.CharField(max_length=255)  # "user:<id>", "system:<task>", "cli:<uid>"
    action = models.CharField(max_length=64)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    payload = models.JSONField(default=dict, blank=True)
    prev_hash = models.CharField(max_length=64, blank=True, default="")
    row_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        db_table = "audit_event"
        indexes = [models.Index(fields=["object_type", "object_id", "occurred_at"])]
