from django.db import models


class BlobReconciliation(models.Model):
    """One orphan-blob reconciliation run (nightly task or `ats blobs reconcile`)."""

    ran_at = models.DateTimeField(auto_now_add=True, db_index=True)
    ok = models.BooleanField()
    orphan_count = models.PositiveIntegerField()
    deleted_count = models.PositiveIntegerField()
    missing_count = models.PositiveIntegerField()
    report = models.JSONField()  # as printed by --json (lists capped)

    class Meta:
        db_table = "evidence_blob_reconciliation"
