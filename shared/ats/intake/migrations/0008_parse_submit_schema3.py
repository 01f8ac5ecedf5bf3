"""Re-apply policy/db-role.sql: ats_parse_submit() accepts answer schemas 2 and 3 (the child
returns raw thumbnail pixels from schema 3 on; the trusted side encodes the PNG)."""

from django.db import migrations


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    from importlib import import_module

    policy_sql = import_module("ats.intake.migrations.0004_parse_role").policy_sql
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [("intake", "0007_parse_role_holds_its_jobs")]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
