"""Re-apply policy/db-role.sql: ats_parse_submit() now checks the answer schema (1 or 2).

The file is idempotent (CREATE OR REPLACE, IF [NOT] EXISTS), so applying it again only
replaces the function on databases migrated before the parse answer's schema 2.
"""

from django.db import migrations


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    from importlib import import_module

    policy_sql = import_module("ats.intake.migrations.0004_parse_role").policy_sql
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [("intake", "0004_parse_role")]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
