"""Re-apply policy/db-role.sql: PUBLIC loses EXECUTE on functions created from now on.

Until now db-role.sql revoked the default only `IN SCHEMA public`, which cannot remove
PostgreSQL's global default (EXECUTE to PUBLIC on every new function): a function a later
migration created stayed callable by the parse role until db-role.sql ran again. The trap-4
test passed only because of migration order.
"""

from django.db import migrations


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    from importlib import import_module

    policy_sql = import_module("ats.intake.migrations.0004_parse_role").policy_sql
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [("intake", "0012_page_images")]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
