"""What a newcomer types, through `just` and real workers: a CV whose name has spaces,
quotes and parentheses; a batch with a missing path; `--json` output a script can read."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ats.intake import api as intake_api
from tests import corpus

JUST = shutil.which("just")
REPO = Path(__file__).resolve().parents[2]
NAME = "Jane O'Neil CV (2026).pdf"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(JUST is None, reason="just is installed by ./just or bootstrap"),
]


def _just_ats(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # --justfile: the CV sits outside the checkout (as in ~/Downloads); [no-cd] keeps cwd.
    return subprocess.run(
        [JUST, "--justfile", str(REPO / "Justfile"), "ats", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_a_cv_named_like_a_real_one_reaches_a_candidate(stack: Any, stack_env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(corpus.text_pdf())
    res = _just_ats(stack_env, tmp_path, "ingest", "--wait", "--json", "--timeout", "90", NAME)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 1  # exactly one JSON object per file, nothing else on stdout
    row = json.loads(lines[0])
    assert row["path"] == NAME and row["state"] == "candidate_created" and row["terminal"] is True
    assert row["candidate_id"]
    assert intake_api.Attachment.objects.get(pk=row["attachment_id"]).filename == NAME
    # Not a terminal: no progress line either (scripts read stderr too).
    assert "terminal; waiting" not in res.stderr


def test_a_batch_with_a_missing_path_ingests_nothing(stack_env: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(corpus.text_pdf())
    (tmp_path / "unreadable dir").mkdir()
    before = intake_api.RawIntake.objects.count()
    res = _just_ats(stack_env, tmp_path, "ingest", "--json", NAME, "missing (1).pdf", "unreadable dir")
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stdout == ""
    assert "nothing ingested: 2 of 3 path(s) cannot be read" in res.stderr
    assert "missing (1).pdf: no such file" in res.stderr
    assert "unreadable dir: not a regular file" in res.stderr
    assert NAME + ":" not in res.stderr  # the good file is not blamed
    assert intake_api.RawIntake.objects.count() == before
    # The corrected command then ingests the good file as new, not as a duplicate.
    ok = _just_ats(stack_env, tmp_path, "ingest", "--json", NAME)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["state"] != "duplicate"
