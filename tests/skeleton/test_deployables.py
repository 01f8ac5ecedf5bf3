"""Each deployable imports only its own task modules, and payload versions are honoured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "ats.config.settings"
import django
django.setup()
from procrastinate.contrib.django import app
print(json.dumps({"modules": sorted(m for m in sys.modules if m.startswith("ats.") and m.endswith("tasks")),
                  "tasks": sorted(app.tasks)}))
"""


def _loaded(deployable: str) -> dict[str, list[str]]:
    env = {**os.environ, "ATS_DEPLOYABLE": deployable, "ATS_EXTRA_APPS": ""}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_worker_untrusted_imports_only_the_parse_task_module() -> None:
    loaded = _loaded("untrusted")
    assert loaded["modules"] == ["ats.intake.parse_tasks"]
    # procrastinate registers its own builtin task (queue builtin) in every app.
    ours = [t for t in loaded["tasks"] if not t.startswith(("builtin:", "procrastinate.builtin_tasks."))]
    assert ours == ["intake.parse_attachment"]


def test_worker_default_has_every_trusted_task_and_not_parse() -> None:
    loaded = _loaded("default")
    assert "ats.intake.parse_tasks" not in loaded["modules"]
    assert {
        "intake.ingest_attachment",
        "intake.apply_parse_result",
        "candidates.create_from_attachment",
        "candidates.dedupe",
        "mail.poll_channel",
        "jobs.rescue_and_sweep",
        "intake.verify_documents",
    } <= set(loaded["tasks"])
    assert "intake.parse_attachment" not in loaded["tasks"]


@pytest.mark.django_db
def test_payload_versions_outside_the_window_fail_permanently() -> None:
    from procrastinate import JobContext
    from procrastinate.contrib.django import app
    from procrastinate.jobs import Job

    from ats.jobs import api as jobs_api

    task = app.tasks["candidates.create_from_attachment"]
    job = Job(id=1, queue="ingest", lock=None, queueing_lock=None, task_name=task.name, attempts=0)
    context = JobContext(app=app, job=job, worker_name="test", start_timestamp=0.0, abort_reason=lambda: None)
    # v1 (current) runs: the attachment does not exist, so the task is a no-op.
    task.func(context, attachment_id=-1, v=1)
    with pytest.raises(jobs_api.PermanentFailure, match="outside the supported window"):
        task.func(context, attachment_id=-1, v=99)
