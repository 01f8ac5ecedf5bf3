"""A document of the person arriving while their erasure runs: the candidate step waits
for the erasure (shared/exclusive advisory lock), then sees the tombstone and ends the
document `erased_subject` - it never slips in as a new candidate before the commit."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from ats.candidates import api as candidates_api
from ats.intake import api as intake_api
from ats.intake import services as intake_services
from ats.retention.models import Erasure
from tests.conftest import REPO
from tests.web import helpers as web_helpers

pytestmark = pytest.mark.django_db(transaction=True)


def _parsed_with_text(name: str, text: str) -> intake_api.Attachment:
    att = web_helpers.ingested(name)
    intake_services.parse_attempt_record_success(
        attachment_id=att.pk, attempt_no=1, text=text, page_count=1, result={"kind": "pdf"}, policy_hash="a" * 64
    )
    web_helpers.settle_jobs(att.pk, web_helpers.PARSE)
    return intake_api.Attachment.objects.get(pk=att.pk)


def test_a_document_arriving_during_the_erasure_waits_and_is_held_back(stack_env: dict[str, str]) -> None:
    from ats.pipeline import tasks as candidate_tasks

    text = "Rasmus Racewinder\nrasmus.race@example.org\n+44 20 7946 0777\nPython developer"
    first = _parsed_with_text("first.pdf", text)
    candidate_tasks.create_from_attachment(attachment_id=first.pk, payload_version=1)
    cid = intake_api.Attachment.objects.get(pk=first.pk).candidate_id
    assert cid and candidates_api.Candidate.objects.get(pk=cid).email == "rasmus.race@example.org"
    later = _parsed_with_text("later.pdf", text)

    # The erasure, in its own process, pauses inside its transaction (locks held).
    proc = subprocess.Popen(
        [sys.executable, "-m", "ats.cli", "erase", "candidate", str(cid), "--reason", "art. 17", "--json"],
        env={**stack_env, "ATS_TEST_RETENTION_PAUSE": f"{cid}:4"},
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "retention paused" in line, line + proc.stderr.read()
    finished: dict[str, Any] = {}

    def candidate_step() -> None:
        from django.db import connection

        try:
            candidate_tasks.create_from_attachment(attachment_id=later.pk, payload_version=1)
            finished["at"] = time.time()
        finally:
            connection.close()

    t = threading.Thread(target=candidate_step)
    t.start()
    _, err = proc.communicate(timeout=60)
    t.join(30)
    assert proc.returncode == 0, err
    att = intake_api.Attachment.objects.get(pk=later.pk)
    # On a failure, what the erasure said and when each side finished (a race's evidence).
    erasure_row = Erasure.objects.filter(candidate_id=cid).values("completed_at", "candidate_ids").first()
    evidence = (att.state, att.reason, att.candidate_id, cid, finished, erasure_row, err[-2000:])
    assert att.state == "erased_subject" and att.candidate_id is None, evidence
    # It waited: it finished after the erasure's last write (taken after the pause).
    erasure = Erasure.objects.get(candidate_id=cid)
    assert erasure.completed_at is not None and finished["at"] >= erasure.completed_at.timestamp()
    assert not candidates_api.Candidate.objects.filter(status="active").exists()
