"""`ats_missing_migrations(text[])`: the health check's one window on django_migrations.

worker-untrusted's role cannot read `django_migrations` (or any domain table). This
SECURITY DEFINER function answers only "which of these migration names are not
applied?" - no other row, column or table - so the parse worker's probe can fail on a
schema its code does not match. Same hardening as ats_parse_submit (db-role.sql):
pg_temp last in search_path, EXECUTE revoked from PUBLIC, granted to the parse role.
"""

import os
import re

from django.db import migrations

SQL = """
CREATE OR REPLACE FUNCTION ats_missing_migrations(expected text[])
RETURNS text[]
LANGUAGE sql STABLE
SECURITY DEFINER
SET search_path = pg_catalog, public, pg_temp
AS $$
    SELECT COALESCE(array_agg(e ORDER BY e), '{}')
      FROM unnest(expected[1:1000]) AS e
     WHERE NOT EXISTS (SELECT 1 FROM public.django_migrations m WHERE m.app || '.' || m.name = e)
$$;
REVOKE ALL ON FUNCTION ats_missing_migrations(text[]) FROM PUBLIC;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = ':role') THEN
        GRANT EXECUTE ON FUNCTION ats_missing_migrations(text[]) TO ":role";
    END IF;
END
$$;
"""


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    role = os.environ.get("ATS_PARSE_DB_ROLE", "ats_parse")
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise ValueError(f"ATS_PARSE_DB_ROLE {role!r} is not a plain lower-case identifier")
    schema_editor.execute(SQL.replace(":role", role), params=None)


def revert(apps, schema_editor):  # type: ignore[no-untyped-def]
    schema_editor.execute("DROP FUNCTION IF EXISTS ats_missing_migrations(text[])")


class Migration(migrations.Migration):
    dependencies = [("intake", "0004_parse_role")]
    operations = [migrations.RunPython(apply, revert)]
