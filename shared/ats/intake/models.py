from __future__ import annotations

from django.conf import settings
from django.db import models

from ats.intake.states import CHOICES, State


class Channel(models.TextChoices):
    UPLOAD = "upload", "Web upload"
    CLI = "cli", "Command line"
    MAIL = "mail", "Mailbox"


class RawIntake(models.Model):
    """One inbound unit as received (an upload, a CLI file, a mail message)."""

    channel = models.CharField(max_length=16, choices=Channel.choices)
    source_ref = models.CharField(max_length=1024, blank=True, default="")
    received_at = models.DateTimeField(auto_now_add=True)
    received_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "intake_raw_intake"


class VirusScanStatus(models.TextChoices):
    PENDING = "pending"
    CLEAN = "clean"
    INFECTED = "infected"
    SCAN_FAILED = "scan_failed"
    # clamd stopped at a limit (Heuristics.Limits.Exceeded.*): neither clean nor infected.
    INCOMPLETE = "incomplete"
    NOT_SCANNED = "not_scanned"  # rejected before scanning (empty, too large, wrong type)


class Attachment(models.Model):
    """One inbound document; its `state` is the recruiter-visible truth (see states.py)."""

    raw_intake = models.ForeignKey(RawIntake, on_delete=models.PROTECT, related_name="attachments")
    filename = models.CharField(max_length=512)  # display only: never used to decide the type
    size_bytes = models.BigIntegerField(null=True)
    sha256 = models.CharField(max_length=64, blank=True, default="", db_index=True)
    declared_content_type = models.CharField(max_length=255, blank=True, default="")
    detected_type = models.CharField(max_length=32, blank=True, default="")
    storage_container = models.CharField(max_length=64, blank=True, default="")
    storage_key = models.CharField(max_length=512, blank=True, default="")
    state = models.CharField(max_length=32, choices=CHOICES, default=State.RECEIVED, db_index=True)
    state_changed_at = models.DateTimeField(auto_now_add=True)
    reason_code = models.CharField(max_length=64, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    virus_scan_status = models.CharField(
        max_length=16, choices=VirusScanStatus.choices, default=VirusScanStatus.PENDING
    )
    scan_signature = models.CharField(max_length=255, blank=True, default="")
    scan_engine = models.CharField(max_length=255, blank=True, default="")
    duplicate_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    parse_attempts_requested = models.PositiveIntegerField(default=0)
    candidate_id = models.BigIntegerField(null=True, blank=True)  # candidates module owns the row
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "intake_attachment"
        indexes = [models.Index(fields=["state", "state_changed_at"])]

    def __str__(self) -> str:
        return f"attachment {self.pk} ({self.filename}) {self.state}"


class ParseAttemptState(models.TextChoices):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class ParseAttempt(models.Model):
    """`intake_parse_attempt`: parse keyed on (attachment, attempt_no) - ADR convention 1."""

    attachment = models.ForeignKey(Attachment, on_delete=models.CASCADE, related_name="parse_attempts")
    attempt_no = models.PositiveIntegerField()
    state = models.CharField(max_length=16, choices=ParseAttemptState.choices, default=ParseAttemptState.PENDING)
    error_code = models.CharField(max_length=64, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    text = models.TextField(blank=True, default="")
    page_count = models.PositiveIntegerField(null=True)
    result = models.JSONField(default=dict, blank=True)  # validated structured result
    policy_hash = models.CharField(max_length=64, blank=True, default="")
    requested_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True)

    class Meta:
        db_table = "intake_parse_attempt"
        constraints = [
            models.UniqueConstraint(fields=["attachment", "attempt_no"], name="parse_attempt_unique_no"),
        ]


class ParseHandoff(models.Model):
    """The parse hand-off: document bytes for worker-untrusted, through Postgres.

    The untrusted worker holds no blob-storage credentials; the trusted side copies a
    promoted document's bytes here in the transaction that defers the parse job, and the
    row is deleted in the transaction that records the parse result.
    """

    attachment = models.ForeignKey(Attachment, on_delete=models.CASCADE, related_name="+")
    attempt_no = models.PositiveIntegerField()
    kind = models.CharField(max_length=16)  # detected by magic bytes on the trusted side
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "intake_parse_handoff"
        constraints = [
            models.UniqueConstraint(fields=["attachment", "attempt_no"], name="parse_handoff_unique"),
        ]


class VerificationRun(models.Model):
    """One run of the lost-document detector (periodic or `ats intake-verify`)."""

    ran_at = models.DateTimeField(auto_now_add=True, db_index=True)
    lost_count = models.PositiveIntegerField()
    lost = models.JSONField(default=list, blank=True)  # capped list of {attachment_id, state, why}

    class Meta:
        db_table = "intake_verification_run"


class ParseResult(models.Model):
    """`intake_parse_result`: what worker-untrusted reported, through ats_parse_submit().

    The untrusted role can write nothing else; the trusted `intake.apply_parse_result`
    task applies the row to the attempt and the attachment, then deletes it.
    """

    attachment_id = models.BigIntegerField()
    attempt_no = models.PositiveIntegerField()
    job_id = models.BigIntegerField()
    ok = models.BooleanField()
    code = models.CharField(max_length=32, blank=True, default="")
    detail = models.TextField(blank=True, default="")
    text = models.TextField(blank=True, default="")
    page_count = models.IntegerField(null=True)
    result = models.JSONField(default=dict, blank=True)
    policy_hash = models.CharField(max_length=64, blank=True, default="")
    received_at = models.DateTimeField()

    class Meta:
        db_table = "intake_parse_result"
        constraints = [
            models.UniqueConstraint(fields=["attachment_id", "attempt_no"], name="parse_result_unique_attempt"),
        ]


class ParseFetch(models.Model):
    """`intake_parse_fetch`: which worker fetched which parse job, recorded by the database.

    Written only by the trigger `ats_parse_jobs_guard` (policy/db-role.sql) when the parse
    role takes a job through procrastinate_fetch_job_v2 - never by the role itself, which
    has no privilege on this table. ats_parse_submit() accepts a report only for a job
    whose current run (job, worker, attempts) has a row here (issue 21 N5).
    """

    job_id = models.BigIntegerField(unique=True)
    worker_id = models.BigIntegerField()
    attempts = models.IntegerField()
    fetched_by = models.CharField(max_length=63)
    client_addr = models.GenericIPAddressField(null=True)
    fetched_at = models.DateTimeField()

    class Meta:
        db_table = "intake_parse_fetch"


class PageImageHandoff(models.Model):
    """One rendered page from worker-untrusted: zlib of 8-bit grey samples, as declared.

    Written only through ats_parse_page_submit() (policy/page-images.sql), by the parse
    role, for the job it runs; nothing here is believed until the trusted side has inflated
    it into a buffer of exactly width x height (ats.sandbox.pages). Deleted once read.
    """

    attachment = models.ForeignKey(Attachment, on_delete=models.CASCADE, related_name="+")
    attempt_no = models.PositiveIntegerField()
    page_no = models.PositiveIntegerField()
    untrusted_width = models.IntegerField()
    untrusted_height = models.IntegerField()
    untrusted_unit_width = models.FloatField()
    untrusted_unit_height = models.FloatField()
    untrusted_data = models.BinaryField()
    received_at = models.DateTimeField()

    class Meta:
        db_table = "intake_page_image_handoff"
        constraints = [
            models.UniqueConstraint(fields=["attachment", "attempt_no", "page_no"], name="page_image_handoff_unique"),
        ]


class PageImageSetState(models.TextChoices):
    READY = "ready"
    REFUSED = "refused"  # a page broke a hand-off rule: no image of this document is served


class PageImageSet(models.Model):
    """The viewer's page images of a document (ADR 0004's derivatives), one set per
    document: the latest rendered attempt's, replaced on re-parse, erased with it."""

    attachment = models.OneToOneField(Attachment, on_delete=models.CASCADE, related_name="page_images")
    attempt_no = models.PositiveIntegerField()
    state = models.CharField(max_length=16, choices=PageImageSetState.choices)
    reason_code = models.CharField(max_length=32, blank=True, default="")
    reason = models.TextField(blank=True, default="")
    page_count = models.PositiveIntegerField(default=0)
    thumbnail_key = models.CharField(max_length=512, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "intake_page_image_set"


class PageImage(models.Model):
    """One page image: a PNG the trusted side encoded, in the `derivatives` container."""

    page_set = models.ForeignKey(PageImageSet, on_delete=models.CASCADE, related_name="pages")
    page_no = models.PositiveIntegerField()
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    # The page's size in its provenance boxes' units (bbox_unit): where a box lands on the
    # image. Declared by the child and range-checked; it only places a highlight.
    unit_width = models.FloatField()
    unit_height = models.FloatField()
    blob_key = models.CharField(max_length=512)
    sha256 = models.CharField(max_length=64)

    class Meta:
        db_table = "intake_page_image"
        constraints = [models.UniqueConstraint(fields=["page_set", "page_no"], name="page_image_unique")]
