"""Apply services/worker-untrusted/policy/db-role.sql: the parse worker's least-privilege role.

The SQL lives beside the sandbox policies so security reviewers read it in one place;
this migration only substitutes the role name (ATS_PARSE_DB_ROLE, default ats_parse).
"""

import os
import re
from pathlib import Path

from django.db import migrations

from ats.config.env import REPO_ROOT


def policy_sql() -> str:
    policy_dir = Path(os.environ.get("ATS_SANDBOX_POLICY_DIR") or REPO_ROOT / "services" / "worker-untrusted" / "policy")
    role = os.environ.get("ATS_PARSE_DB_ROLE", "ats_parse")
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", role):
        raise ValueError(f"ATS_PARSE_DB_ROLE {role!r} is not a plain lower-case identifier")
    return (policy_dir / "db-role.sql").read_text().replace(":role", role)


def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
    # params=None: the SQL has literal % (format()) that must not be read as placeholders.
    schema_editor.execute(policy_sql(), params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("intake", "0003_parse_result"),
        ("procrastinate", "0041_post_retry_failed_job"),
    ]
    operations = [migrations.RunPython(apply, migrations.RunPython.noop)]
