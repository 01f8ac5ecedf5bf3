"""Re-apply policy/db-role.sql (issue 9): the parse role may no longer squat a trusted
job's lock (its parse jobs keep their own lock, priority and a bounded schedule), may
report only on a job its own worker holds, gets its connection limit and timeouts pinned,
and ats_parse_submit()'s bounds now come from limits.toml."""

from django.db import migrations


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    from importlib import import_module

    policy_sql = import_module("ats.intake.migrations.0004_parse_role").policy_sql
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [("intake", "0006_parse_submit_schema2")]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
