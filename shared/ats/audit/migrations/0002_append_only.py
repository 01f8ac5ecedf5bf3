from django.db import migrations

# Append-only in the database itself, not only by convention: UPDATE and DELETE raise.
# TRUNCATE is a table-owner privilege the application roles are not meant to hold in
# production; it is left to the owner (the test runner truncates between tests).
SQL = """
CREATE OR REPLACE FUNCTION audit_event_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_event is append-only (% refused)', TG_OP;
END;
$$;
CREATE TRIGGER audit_event_no_update BEFORE UPDATE OR DELETE ON audit_event
    FOR EACH ROW EXECUTE FUNCTION audit_event_append_only();
"""

REVERSE = """
DROP TRIGGER IF EXISTS audit_event_no_update ON audit_event;
DROP FUNCTION IF EXISTS audit_event_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
