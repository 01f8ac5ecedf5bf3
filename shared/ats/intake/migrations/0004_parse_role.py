"""Apply services/worker-untrusted/policy/db-role.sql: the parse worker's least-privilege role.

The SQL lives beside the sandbox policies so security reviewers read it in one place;
this migration only substitutes the role name (ATS_PARSE_DB_ROLE, default ats_parse).
"""

import os
from pathlib import Path

from django.db import migrations

from ats.config.env import REPO_ROOT


def policy_sql() -> str:
    # Always the current file with the current limits.toml: every later migration that
    # re-applies it calls this, so applying an old migration on a fresh database runs the
    # newest SQL (the file is idempotent).
    from ats.jobs.data import policy_for
    from ats.parse_worker.data import PARSE_TASK, role_sql

    policy_dir = Path(os.environ.get("ATS_SANDBOX_POLICY_DIR") or REPO_ROOT / "services" / "worker-untrusted" / "policy")
    role = os.environ.get("ATS_PARSE_DB_ROLE", "ats_parse")
    return role_sql(policy_dir, role, parse_priority=policy_for(PARSE_TASK).priority)


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    # params=None: the SQL has literal % (format()) that must not be read as placeholders.
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("intake", "0003_parse_result"),
        ("procrastinate", "0041_post_retry_failed_job"),
    ]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
