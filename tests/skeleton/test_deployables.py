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
import django
django.setup()
from procrastinate.contrib.django import app
print(json.dumps({"modules": sorted(m for m in sys.modules if m.startswith("ats.") and m.endswith("tasks")),
                  "apps": sorted(a.name for a in django.apps.apps.get_app_configs()),
                  "tasks": sorted(app.tasks)}))
"""


SETTINGS = {"untrusted": "ats.parse_worker.settings", "default": "ats.config.settings"}


def _probe(deployable: str, settings: str) -> subprocess.CompletedProcess[str]:
    # ATS_EXTRA_APPS as in the test stack: the parse worker's settings must ignore it.
    env = {**os.environ, "ATS_DEPLOYABLE": deployable, "ATS_EXTRA_APPS": "tests.testapp"}
    env["DJANGO_SETTINGS_MODULE"] = settings
    return subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=REPO, capture_output=True, text=True)


def _loaded(deployable: str) -> dict[str, list[str]]:
    out = _probe(deployable, SETTINGS[deployable])
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_worker_untrusted_imports_only_the_parse_task_module() -> None:
    loaded = _loaded("untrusted")
    assert loaded["modules"] == ["ats.parse_worker.tasks"]
    # procrastinate and jobs only: no trusted app, no Django contrib app.
    assert loaded["apps"] == ["ats.jobs", "ats.parse_worker", "procrastinate.contrib.django"]
    # procrastinate registers its own builtin task (queue builtin) in every app.
    ours = [t for t in loaded["tasks"] if not t.startswith(("builtin:", "procrastinate.builtin_tasks."))]
    assert ours == ["intake.parse_attachment"]


def test_trusted_settings_refuse_to_run_the_untrusted_worker() -> None:
    out = _probe("untrusted", "ats.config.settings")
    assert out.returncode != 0
    assert "ats.parse_worker.settings" in out.stderr


def test_worker_default_has_every_trusted_task_and_not_parse() -> None:
    loaded = _loaded("default")
    assert "ats.parse_worker.tasks" not in loaded["modules"]
    assert "ats.parse_worker" not in loaded["apps"]
    assert {
        "intake.ingest_attachment",
        "intake.apply_parse_result",
        "candidates.create_from_attachment",
        "candidates.dedupe",
        "candidates.follow_ups",
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


def test_just_up_hands_the_untrusted_worker_its_own_settings_and_no_trusted_secret() -> None:
    from ats.devtools.up import untrusted_env

    TRUSTED_SECRETS = (
        "ATS_SECRET_KEY",
        "ATS_AZURE_BLOB_CONNECTION_STRING",
        "ATS_GRAPH_CLIENT_SECRET",
        "ATS_AI_API_KEY",
        "ATS_AUDIT_HMAC_KEY",
        "ATS_TOMBSTONE_HMAC_KEY",
        "ATS_METRICS_TOKEN",
    )
    trusted = {name: "secret" for name in TRUSTED_SECRETS}
    env = untrusted_env(
        {**trusted, "DATABASE_URL": "postgresql://ats@h/ats", "ATS_PARSE_DATABASE_URL": "postgresql://ats_parse@h/ats"}
    )
    assert not set(TRUSTED_SECRETS) & set(env)
    assert env["DJANGO_SETTINGS_MODULE"] == "ats.parse_worker.settings"
    assert env["DATABASE_URL"] == "postgresql://ats_parse@h/ats"
