from django.db import models


class AuditEvent(models.Model):
    """One audit row: append-only (trigger, migration 0002/0003), chained at write time.

    The table is partitioned by month on `occurred_at` (migration 0003); partitions are
    created ahead by the monthly job and dropped 13 months on, after their export. The
    primary key in the database is (id, occurred_at) because a partitioned table's unique
    constraints must contain the partition key; Django only ever inserts through
    `audit_event_record` and reads by id, which stays unique (one sequence).

    `seq` is the gapless chain position, assigned under the chain-head row lock;
    `row_hash` covers every column except `id` (see ats.audit.chain).
    """

    seq = models.BigIntegerField()
    occurred_at = models.DateTimeField(db_index=True)
    actor = models.CharField(max_length=255)  # "user:<id>", "system:<task>", "cli:<uid>"
    action = models.CharField(max_length=64)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    payload = models.JSONField(default=dict, blank=True)  # ids and codes only, never personal data
    personal_hmac = models.CharField(max_length=64, blank=True, default="")
    prev_hash = models.CharField(max_length=64, blank=True, default="")
    row_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        db_table = "audit_event"
        indexes = [models.Index(fields=["object_type", "object_id", "occurred_at"])]


class AuditEventPersonal(models.Model):
    """Personal details of an audit event, outside the chain and the exports.

    The event row carries only HMAC(key, details); erasure (the retention issue) nulls
    `details` here and the chain stays verifiable. Not append-only on purpose.
    """

    event_id = models.BigIntegerField(primary_key=True)
    occurred_at = models.DateTimeField()
    details = models.JSONField(null=True, blank=True)
    erased_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "audit_event_personal"


class AuditSubjectKey(models.Model):
    """A random key per audited object (a document), on the erasable side.

    Content digests of a person's documents (the file's sha256, the parse output's) would
    be fingerprints in the append-only chain that outlive an erasure: the chained payload
    carries HMAC(this key, digest) instead. Erasing the object deletes its key; the keyed
    digests left in the chain then confirm nothing, and every row_hash still verifies.
    """

    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64)
    key = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "audit_subject_key"
        constraints = [models.UniqueConstraint(fields=["object_type", "object_id"], name="audit_subject_key_once")]


class AuditChainHead(models.Model):
    """The single row every chained write locks (FOR UPDATE): the chain's tail."""

    id = models.SmallIntegerField(primary_key=True)  # always 1
    last_seq = models.BigIntegerField()
    last_hash = models.CharField(max_length=64)
    last_event_id = models.BigIntegerField(null=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "audit_chain_head"


class AuditExport(models.Model):
    """One closed month written to the immutable archive, with the export's own hash."""

    month = models.DateField(unique=True)  # first day of the month
    partition = models.CharField(max_length=63)
    container = models.CharField(max_length=63)
    key = models.CharField(max_length=512)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField()
    rows = models.BigIntegerField()
    first_seq = models.BigIntegerField(null=True)
    last_seq = models.BigIntegerField(null=True)
    prev_hash_in = models.CharField(max_length=64)  # the link into this month
    last_row_hash = models.CharField(max_length=64)  # the link out of it
    exported_at = models.DateTimeField(auto_now_add=True)
    dropped_at = models.DateTimeField(null=True, blank=True)  # partition dropped (13 months)

    class Meta:
        db_table = "audit_export"


class AuditVerification(models.Model):
    """One verification run (nightly task or `ats audit verify`): the result as printed."""

    ran_at = models.DateTimeField(auto_now_add=True, db_index=True)
    ok = models.BooleanField()
    result = models.JSONField()

    class Meta:
        db_table = "audit_verification"
