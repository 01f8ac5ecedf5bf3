from django.db import models


class Candidate(models.Model):
    """A candidate created from a parsed document (skeleton: holds the document's text).

    Field extraction, dedupe and scoring replace the stub step; this row stays the target.
    """

    source_attachment_id = models.BigIntegerField(unique=True)  # intake owns the attachment
    display_name = models.CharField(max_length=255, blank=True, default="")
    email = models.CharField(max_length=320, blank=True, default="")
    document_text = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "candidates_candidate"
