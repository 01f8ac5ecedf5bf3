"""Candidates, their documents, versioned extractions, field values with provenance,
duplicate pairs and the merge journal.

A candidate's current field values are *derived*: each document contributes its newest
successful extraction; a recruiter's edit pins a field (stored with source `recruiter`)
and a later, disagreeing extraction becomes a ProposedChange instead of an overwrite.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q


class CandidateStatus(models.TextChoices):
    ACTIVE = "active"
    MERGED = "merged"  # merged into `merged_into`; frozen, restorable by unmerge
    ERASED = "erased"  # personal data erased; jobs for it are logged no-ops
    # Turned back by `ats candidate review-identity --apply`: it never named a person and a
    # way to reach them; its documents are `no_candidate_details` documents again.
    NO_IDENTITY = "no_identity"


class Candidate(models.Model):
    """One person. `display_name`/`email` mirror the current name / first e-mail for listing."""

    status = models.CharField(max_length=16, choices=CandidateStatus.choices, default=CandidateStatus.ACTIVE)
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    display_name = models.CharField(max_length=255, blank=True, default="")
    email = models.CharField(max_length=320, blank=True, default="")
    document_text = models.TextField(blank=True, default="")  # text of the newest document (search seam)
    # How many extractions have been applied to this candidate (new documents, re-parses).
    extraction_version = models.PositiveIntegerField(default=0)
    # Bumped by every change of fields, documents or status: unmerge restores exactly only
    # when the survivor has not changed since the merge.
    revision = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "candidates_candidate"


class CandidateDocument(models.Model):
    """A document (intake attachment) of a candidate. A document belongs to one candidate."""

    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="documents")
    attachment_id = models.BigIntegerField(unique=True)  # intake owns the attachment
    added_at = models.DateTimeField(auto_now_add=True)
    # What kind of document (candidates.kind: cv, cover_letter, certificate, other), how
    # sure the rule is and why; empty for documents attached before the rule existed.
    kind = models.CharField(max_length=16, blank=True, default="")
    kind_confidence = models.FloatField(null=True, blank=True)
    kind_evidence = models.JSONField(default=list, blank=True)
    # Why a document without identity belongs here ("sent in the same message as ...",
    # "attached by a recruiter"); empty for the document that made the candidate.
    attach_reason = models.TextField(null=True, blank=True, default="")

    class Meta:
        db_table = "candidates_document"


class ExtractionRecord(models.Model):
    """One extraction version: the extractor's full answer for one parse attempt of one
    document, every value with its sources. Never updated; a re-parse adds a row."""

    attachment_id = models.BigIntegerField()
    parse_attempt = models.PositiveIntegerField()
    extractor_version = models.CharField(max_length=64)
    data = models.JSONField()  # Extraction.to_dict()
    # The candidate's extraction_version this record became when it was applied.
    candidate_version = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "candidates_extraction"
        constraints = [
            # Idempotent per (document, parse attempt): a redelivered job finds its row.
            models.UniqueConstraint(fields=["attachment_id", "parse_attempt"], name="candidate_extraction_unique"),
        ]


class FieldSource(models.TextChoices):
    EXTRACTION = "extraction"
    RECRUITER = "recruiter"
    # Contact data an automatic merge kept (issue 21 N3): pinned like an edit, so values
    # from the merged-in documents arrive only as proposed changes, now and on later parses.
    KEPT = "kept"


# Sources a parse never overwrites (a differing extraction becomes a ProposedChange).
PINNED_SOURCES = frozenset({FieldSource.RECRUITER, FieldSource.KEPT})


class CandidateField(models.Model):
    """The current value(s) of one field of one candidate.

    `values` is a list of {"value": ..., "sources": [provenance, ...]}; provenance entries
    carry attachment_id, parse_attempt, page, bbox / part+index, text, rule, extractor_version.
    """

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="fields")
    field = models.CharField(max_length=32)
    values = models.JSONField(default=list)
    source = models.CharField(max_length=16, choices=FieldSource.choices, default=FieldSource.EXTRACTION)
    edited_by = models.CharField(max_length=128, blank=True, default="")
    edited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "candidates_field"
        constraints = [models.UniqueConstraint(fields=["candidate", "field"], name="candidate_field_unique")]


class ChangeStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted"
    DISMISSED = "dismissed"
    SUPERSEDED = "superseded"  # a newer proposal for the same field replaced it


class ProposedChange(models.Model):
    """A newer extraction disagreeing with a recruiter-edited field: accept or dismiss."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="proposed_changes")
    field = models.CharField(max_length=32)
    values = models.JSONField(default=list)  # same shape as CandidateField.values
    extraction = models.ForeignKey(ExtractionRecord, null=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=16, choices=ChangeStatus.choices, default=ChangeStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.CharField(max_length=128, blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "candidates_proposed_change"
        constraints = [
            models.UniqueConstraint(
                fields=["candidate", "field"], condition=Q(status="open"), name="candidate_one_open_change_per_field"
            ),
        ]


class SignalKind(models.TextChoices):
    EMAIL = "email"
    PHONE = "phone"
    LINK = "link"
    LOCATION = "location"
    EMAIL_DOMAIN = "email_domain"
    NAME_TOKEN = "name_token"  # noqa: S105 - not a secret


class CandidateSignal(models.Model):
    """Normalised match keys of active candidates (the dedupe index); rebuilt from fields."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="signals")
    kind = models.CharField(max_length=16, choices=SignalKind.choices)
    value = models.CharField(max_length=512)

    class Meta:
        db_table = "candidates_signal"
        indexes = [models.Index(fields=["kind", "value"])]


class PairKind(models.TextChoices):
    SAME_PERSON = "same_person"
    POSSIBLE_DUPLICATE = "possible_duplicate"


class PairStatus(models.TextChoices):
    OPEN = "open"
    MERGED = "merged"
    DISMISSED = "dismissed"


PAIR_UNIQUE = "candidate_duplicate_pair_unique"


class DuplicatePair(models.Model):
    """`candidate_duplicate_pair` (ADR 0004): stored low id first, so the unique constraint
    on (candidate_low, candidate_high) makes a pair unique per *unordered* pair."""

    candidate_low = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    candidate_high = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=32, choices=PairKind.choices)
    score = models.FloatField()
    reason = models.TextField()
    evidence = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=PairStatus.choices, default=PairStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "candidate_duplicate_pair"
        constraints = [
            models.CheckConstraint(condition=Q(candidate_low__lt=F("candidate_high")), name="candidate_pair_ordered"),
            models.UniqueConstraint(fields=["candidate_low", "candidate_high"], name=PAIR_UNIQUE),
        ]


class CandidateMerge(models.Model):
    """The merge journal: what a merge changed, so unmerge can restore every row."""

    survivor = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    merged = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    actor = models.CharField(max_length=128)
    automatic = models.BooleanField(default=False)
    reason = models.TextField(blank=True, default="")
    snapshot = models.JSONField()  # every row of both candidates before the merge
    survivor_revision = models.PositiveIntegerField()  # the survivor's revision right after the merge
    created_at = models.DateTimeField(auto_now_add=True)
    unmerged_at = models.DateTimeField(null=True, blank=True)
    unmerged_by = models.CharField(max_length=128, blank=True, default="")

    class Meta:
        db_table = "candidates_merge"
