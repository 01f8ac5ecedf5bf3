"""Re-apply policy/db-role.sql: the parse role's guard admits ats_jobs_fetch_v2.

Jobs migration 0007 added the capped fetch that also says whether another fetch could find
a job; the guard `ats_parse_jobs_guard` lets the role start a parse job only from inside
procrastinate's fetch or its capped copies, named one by one.
"""

from django.db import migrations


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    from importlib import import_module

    policy_sql = import_module("ats.intake.migrations.0004_parse_role").policy_sql
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [("intake", "0013_default_privileges_global"), ("ats_jobs", "0007_fetch_says_no_more")]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
