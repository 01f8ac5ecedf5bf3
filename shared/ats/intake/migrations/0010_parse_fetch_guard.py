"""Issue 21 N5: the parse role moves parse jobs only through procrastinate's protocol.

Creates `intake_parse_fetch` (the database's record of who fetched which parse job), then
re-applies policy/db-role.sql: the trigger `ats_parse_jobs_guard` refuses every UPDATE of
the role that is not a fetch/finish/retry made by procrastinate's own functions (finished
rows read-only, no `succeeded` without a report), records fetches, and ats_parse_submit()
accepts a report only for a recorded fetch.
"""

from django.db import migrations, models


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    from importlib import import_module

    policy_sql = import_module("ats.intake.migrations.0004_parse_role").policy_sql
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [("intake", "0009_erased_subject_state")]
    operations = [
        migrations.CreateModel(
            name="ParseFetch",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("job_id", models.BigIntegerField(unique=True)),
                ("worker_id", models.BigIntegerField()),
                ("attempts", models.IntegerField()),
                ("fetched_by", models.CharField(max_length=63)),
                ("client_addr", models.GenericIPAddressField(null=True)),
                ("fetched_at", models.DateTimeField()),
            ],
            options={"db_table": "intake_parse_fetch"},
        ),
        migrations.RunPython(apply, migrations.RunPython.noop),
    ]
