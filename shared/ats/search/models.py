from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models


class SearchEntry(models.Model):
    """The full-text index: one row per indexed candidate or document (a side table,
    never columns on the owners' tables). Rebuilt from the owners' rows at any time."""

    kind = models.CharField(max_length=16)  # candidate | document
    object_id = models.BigIntegerField()
    candidate_id = models.BigIntegerField(null=True, db_index=True)  # what a search returns
    tsv = SearchVectorField()
    source_hash = models.CharField(max_length=64)  # unchanged source -> no rewrite
    indexed_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        db_table = "search_entry"
        constraints = [models.UniqueConstraint(fields=["kind", "object_id"], name="search_entry_unique_object")]
        indexes = [GinIndex(fields=["tsv"], name="search_entry_tsv_gin")]


class SearchSweep(models.Model):
    """One hourly sweep; `started_at` of the last one is the next one's watermark."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(auto_now_add=True, db_index=True)
    indexed = models.PositiveIntegerField()
    removed = models.PositiveIntegerField()

    class Meta:
        db_table = "search_sweep"
