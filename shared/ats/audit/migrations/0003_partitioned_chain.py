"""audit_event becomes a monthly-partitioned, hash-chained table (issue 11).

The existing rows are re-written in id order into the new table, chained, with their
personal payload keys moved to the erasable side table (ats.audit.chain.PERSONAL_KEYS).
"""

import datetime
import json

from django.db import migrations, models

from ats.audit import chain
from ats.audit.keys import hmac_key

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION audit_event_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_event is append-only (% refused)', TG_OP;
END;
$$;
CREATE TRIGGER audit_event_no_update BEFORE UPDATE OR DELETE ON audit_event
    FOR EACH ROW EXECUTE FUNCTION audit_event_append_only();
"""


def _month(dt):
    return datetime.date(dt.year, dt.month, 1)


def _next(month):
    return datetime.date(month.year + (month.month == 12), month.month % 12 + 1, 1)


def _create_partition(cur, month):
    name = f"audit_event_y{month:%Y}m{month:%m}"
    cur.execute(
        f"CREATE TABLE IF NOT EXISTS {name} PARTITION OF audit_event "
        f"FOR VALUES FROM ('{month.isoformat()} 00:00:00+00') TO ('{_next(month).isoformat()} 00:00:00+00')"
    )


def forwards(apps, schema_editor):
    conn = schema_editor.connection
    AuditEvent = apps.get_model("audit", "AuditEvent")
    occurred_index = schema_editor._create_index_name("audit_event", ["occurred_at"], suffix="")
    with conn.cursor() as cur:
        cur.execute("DROP TRIGGER IF EXISTS audit_event_no_update ON audit_event")
        cur.execute("ALTER TABLE audit_event RENAME TO audit_event_unpartitioned")
        cur.execute("SELECT id, occurred_at, actor, action, object_type, object_id, payload "
                    "FROM audit_event_unpartitioned ORDER BY id")
        old = cur.fetchall()
        cur.execute("DROP TABLE audit_event_unpartitioned")
        cur.execute("CREATE SEQUENCE IF NOT EXISTS audit_event_row_id_seq AS bigint")
        cur.execute(
            """
            CREATE TABLE audit_event (
                id bigint NOT NULL DEFAULT nextval('audit_event_row_id_seq'),
                seq bigint NOT NULL,
                occurred_at timestamptz NOT NULL,
                actor varchar(255) NOT NULL,
                action varchar(64) NOT NULL,
                object_type varchar(64) NOT NULL,
                object_id varchar(64) NOT NULL,
                payload jsonb NOT NULL,
                personal_hmac varchar(64) NOT NULL DEFAULT '',
                prev_hash varchar(64) NOT NULL DEFAULT '',
                row_hash varchar(64) NOT NULL DEFAULT '',
                PRIMARY KEY (id, occurred_at)
            ) PARTITION BY RANGE (occurred_at)
            """
        )
        cur.execute("ALTER SEQUENCE audit_event_row_id_seq OWNED BY audit_event.id")
        cur.execute(f"CREATE INDEX {occurred_index} ON audit_event (occurred_at)")
        cur.execute(
            "CREATE INDEX audit_event_object__03919f_idx ON audit_event (object_type, object_id, occurred_at)"
        )
        cur.execute("CREATE INDEX audit_event_seq_idx ON audit_event (seq)")
        cur.execute(APPEND_ONLY)
        now = datetime.datetime.now(datetime.UTC)
        months = {_month(now)}
        months.add(_next(_month(now)))
        months.add(_next(_next(_month(now))))
        months.update(_month(r[1]) for r in old)
        for m in sorted(months):
            _create_partition(cur, m)
        key = hmac_key()
        prev = chain.GENESIS
        seq = 0
        last_id = None
        for event_id, occurred_at, actor, action, object_type, object_id, payload in old:
            payload = json.loads(payload) if isinstance(payload, str) else (payload or {})
            kept, personal = chain.split_personal(chain.normalise(payload))
            seq += 1
            mac = chain.personal_hmac(key, personal)
            digest = chain.row_hash(
                seq=seq, occurred_at=occurred_at, actor=actor, action=action, object_type=object_type,
                object_id=object_id, payload=kept, personal_hmac=mac, prev_hash=prev,
            )
            cur.execute(
                "INSERT INTO audit_event (id, seq, occurred_at, actor, action, object_type, object_id, payload,"
                " personal_hmac, prev_hash, row_hash) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                [event_id, seq, occurred_at, actor, action, object_type, object_id, chain.canonical_json(kept),
                 mac, prev, digest],
            )
            if personal:
                cur.execute(
                    "INSERT INTO audit_event_personal (event_id, occurred_at, details) VALUES (%s, %s, %s)",
                    [event_id, occurred_at, chain.canonical_json(personal)],
                )
            prev, last_id = digest, event_id
        if old:
            cur.execute("SELECT setval('audit_event_row_id_seq', %s)", [max(r[0] for r in old)])
        cur.execute(
            "INSERT INTO audit_chain_head (id, last_seq, last_hash, last_event_id, updated_at)"
            " VALUES (1, %s, %s, %s, now())",
            [seq, prev, last_id],
        )
    del AuditEvent


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_append_only")]

    operations = [
        migrations.CreateModel(
            name="AuditEventPersonal",
            fields=[
                ("event_id", models.BigIntegerField(primary_key=True, serialize=False)),
                ("occurred_at", models.DateTimeField()),
                ("details", models.JSONField(blank=True, null=True)),
                ("erased_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={"db_table": "audit_event_personal"},
        ),
        migrations.CreateModel(
            name="AuditChainHead",
            fields=[
                ("id", models.SmallIntegerField(primary_key=True, serialize=False)),
                ("last_seq", models.BigIntegerField()),
                ("last_hash", models.CharField(max_length=64)),
                ("last_event_id", models.BigIntegerField(null=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"db_table": "audit_chain_head"},
        ),
        migrations.CreateModel(
            name="AuditExport",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("month", models.DateField(unique=True)),
                ("partition", models.CharField(max_length=63)),
                ("container", models.CharField(max_length=63)),
                ("key", models.CharField(max_length=512)),
                ("sha256", models.CharField(max_length=64)),
                ("size_bytes", models.BigIntegerField()),
                ("rows", models.BigIntegerField()),
                ("first_seq", models.BigIntegerField(null=True)),
                ("last_seq", models.BigIntegerField(null=True)),
                ("prev_hash_in", models.CharField(max_length=64)),
                ("last_row_hash", models.CharField(max_length=64)),
                ("exported_at", models.DateTimeField(auto_now_add=True)),
                ("dropped_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={"db_table": "audit_export"},
        ),
        migrations.CreateModel(
            name="AuditVerification",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("ran_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("ok", models.BooleanField()),
                ("result", models.JSONField()),
            ],
            options={"db_table": "audit_verification"},
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="auditevent",
                    name="seq",
                    field=models.BigIntegerField(default=0),
                    preserve_default=False,
                ),
                migrations.AddField(
                    model_name="auditevent",
                    name="personal_hmac",
                    field=models.CharField(blank=True, default="", max_length=64),
                ),
                migrations.AlterField(
                    model_name="auditevent",
                    name="occurred_at",
                    field=models.DateTimeField(db_index=True),
                ),
            ],
            # Irreversible: the old unpartitioned, unchained shape is not coming back.
            database_operations=[migrations.RunPython(forwards)],
        ),
    ]
