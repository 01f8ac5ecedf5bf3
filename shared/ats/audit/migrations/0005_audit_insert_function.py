"""ats_audit_insert_v1(): append one chained audit event in one round trip (issue 26).

The Python writer took four to six statements per event (lock the head, read the clock,
a savepoint around the INSERT for the missing-partition case, the INSERT, the personal
row, the head UPDATE). This function does the same steps, in the same order and under the
same lock, server-side, and computes row_hash exactly as ats.audit.chain.row_hash does:
sha256 of the canonical JSON array

    [seq, occurred_at, actor, action, object_type, object_id, payload, personal_hmac, prev_hash]

with `payload` passed in as the caller's canonical JSON text (chain.canonical_json), the
strings escaped as Python's json.dumps(ensure_ascii=False) escapes them (to_json does the
same: \\" \\\\ \\b \\f \\n \\r \\t, other control characters as \\u00xx) and occurred_at as
UTC ISO-8601 with microseconds. The caller re-computes the hash from the returned values
and refuses a mismatch (ats.audit.services), so a divergence can fail a unit of work but
never write a broken link.

It creates nothing: when the head row or the month's partition is missing it writes
nothing and says which (`missing`), and the caller creates it and calls again - the rare
path stays in Python, where it was.
"""

from django.db import migrations

SQL = r"""
CREATE OR REPLACE FUNCTION ats_audit_insert_v1(
    p_actor text, p_action text, p_object_type text, p_object_id text,
    p_payload text, p_personal_hmac text, p_details jsonb,
    OUT missing text, OUT event_id bigint, OUT seq bigint, OUT occurred_at timestamptz,
    OUT prev_hash text, OUT row_hash text)
LANGUAGE plpgsql AS $$
DECLARE
    v_last bigint;
BEGIN
    -- The lock that keeps the chain linear; held until the caller commits.
    SELECT h.last_seq, h.last_hash INTO v_last, prev_hash FROM audit_chain_head h WHERE h.id = 1 FOR UPDATE;
    IF NOT FOUND THEN
        missing := 'head';
        RETURN;
    END IF;
    -- Read after the lock is granted, so occurred_at grows with seq.
    occurred_at := clock_timestamp();
    IF to_regclass('audit_event_y' || to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY"m"MM')) IS NULL THEN
        missing := 'partition';
        RETURN;
    END IF;
    seq := v_last + 1;
    row_hash := encode(sha256(convert_to(
        '[' || seq::text
        || ',' || to_json(to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '+00:00')::text
        || ',' || to_json(p_actor)::text
        || ',' || to_json(p_action)::text
        || ',' || to_json(p_object_type)::text
        || ',' || to_json(p_object_id)::text
        || ',' || p_payload
        || ',' || to_json(p_personal_hmac)::text
        || ',' || to_json(prev_hash)::text
        || ']', 'UTF8')), 'hex');
    INSERT INTO audit_event (seq, occurred_at, actor, action, object_type, object_id, payload, personal_hmac,
                             prev_hash, row_hash)
    VALUES (seq, occurred_at, p_actor, p_action, p_object_type, p_object_id, p_payload::jsonb, p_personal_hmac,
            prev_hash, row_hash)
    RETURNING audit_event.id INTO event_id;
    IF p_details IS NOT NULL THEN
        INSERT INTO audit_event_personal (event_id, occurred_at, details) VALUES (event_id, occurred_at, p_details);
    END IF;
    UPDATE audit_chain_head SET last_seq = seq, last_hash = row_hash, last_event_id = event_id, updated_at = now()
     WHERE id = 1;
END;
$$;
"""

REVERSE = "DROP FUNCTION IF EXISTS ats_audit_insert_v1(text, text, text, text, text, text, jsonb);"


class Migration(migrations.Migration):
    dependencies = [("audit", "0004_subject_key")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
