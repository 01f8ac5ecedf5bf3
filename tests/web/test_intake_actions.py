"""The recruiter actions behind the advertised failure states, and their CLI twins."""

from __future__ import annotations

from typing import Any

import pytest

from ats.intake import api as intake_api
from tests.conftest import run_ats_in_process as ats_cli
from tests.web import helpers

# Rolled back, not flushed, after each test (a flush of every table was ~0.45 CPU s a test):
# nothing here needs a commit - no other connection, thread or process reads the rows, and
# the code defers nothing to on_commit (ADR R1); deferred constraints are still checked.
pytestmark = pytest.mark.django_db


def test_retry_scan_puts_a_scan_failed_document_back_with_a_fresh_ingest_job(users: dict[str, Any]) -> None:
    att = helpers.scan_failed()
    assert att.state == "scan_failed" and att.virus_scan_status == "scan_failed"
    intake_api.attachment_retry_scan(attachment_id=att.pk, actor=users["recruiter"])
    att = helpers.reload(att)
    assert att.state == "received" and att.virus_scan_status == "pending"
    assert helpers.jobs_for(att.pk, "intake.ingest_attachment") == ["succeeded", "todo"]
    assert ("intake.retry_scan", f"user:{users['recruiter'].pk}") in helpers.audit_actions(att.pk)
    # The retried scan really runs: clean bytes are promoted to documents.
    from ats.intake import services

    services.attachment_ingest(attachment_id=att.pk)
    helpers.settle_jobs(att.pk, helpers.INGEST)
    assert helpers.reload(att).state == "promoted"


def test_retry_candidate_reuses_the_parse_and_defers_a_candidate_job() -> None:
    att = helpers.candidate_failed()
    assert att.state == "candidate_failed"
    intake_api.attachment_retry_candidate(attachment_id=att.pk, actor="cli:0")
    att = helpers.reload(att)
    assert att.state == "parsed" and att.parse_attempts_requested == 1
    assert helpers.jobs_for(att.pk, "candidates.create_from_attachment")[-1] == "todo"
    assert ("intake.retry_candidate", "cli:0") in helpers.audit_actions(att.pk)
    with pytest.raises(intake_api.ActionRefused):  # no longer failed: the action is refused
        intake_api.attachment_retry_candidate(attachment_id=att.pk)


@pytest.mark.parametrize("maker", [helpers.malware, helpers.parse_failed, helpers.scan_failed])
def test_discard_closes_a_failure_with_its_reason_and_the_detector_counts_it_resolved(maker: Any) -> None:
    att = maker()
    intake_api.attachment_discard(attachment_id=att.pk, reason="spam from a known sender", actor="cli:0")
    att = helpers.reload(att)
    assert att.state == "discarded" and intake_api.is_terminal(att.state)
    assert "spam from a known sender" in att.reason
    assert ("intake.discarded", "cli:0") in helpers.audit_actions(att.pk)
    assert all(lost.attachment_id != att.pk for lost in intake_api.lost_documents())


def test_discard_needs_a_reason_and_a_failed_state() -> None:
    att = helpers.parse_failed()
    with pytest.raises(intake_api.ActionRefused, match="reason"):
        intake_api.attachment_discard(attachment_id=att.pk, reason="  ")
    ok = helpers.parsed_ok("fine.pdf")
    with pytest.raises(intake_api.ActionRefused, match="only a failed or duplicate"):
        intake_api.attachment_discard(attachment_id=ok.pk, reason="no")


def test_actions_refuse_the_wrong_state_with_the_reason() -> None:
    att = helpers.malware()
    assert att.state == "blocked_malware"
    with pytest.raises(intake_api.ActionRefused, match="only a failed scan"):
        intake_api.attachment_retry_scan(attachment_id=att.pk)
    with pytest.raises(intake_api.ActionRefused, match="only a failed candidate"):
        intake_api.attachment_retry_candidate(attachment_id=att.pk)
    with pytest.raises(LookupError):
        intake_api.attachment_retry_scan(attachment_id=10**9)


def test_every_advertised_action_has_code_behind_it() -> None:
    """A state's recruiter-facing action text is backed by an action the code performs."""
    backed = {
        "Re-parse": "reparse",
        "Retry the scan": "retry_scan",
        "Retry candidate creation": "retry_candidate",
    }
    for state, info in intake_api.INFO.items():
        if info.action in backed:
            assert backed[info.action] in intake_api.allowed_actions(state), state
    for state in intake_api.DISCARDABLE:
        assert "discard" in intake_api.allowed_actions(state)


# The twins run the management commands in-process (docs/testing.md, "Calling the ats CLI
# from a test"): what they prove is what each command does to the rows, not the process;
# two `ats` subprocesses a test were 5-10 CPU s of Django starts.
def test_cli_twins() -> None:
    failed = helpers.scan_failed()
    res = ats_cli("retry-scan", str(failed.pk))
    assert res.returncode == 0, res.stderr
    assert helpers.reload(failed).state == "received"
    assert helpers.jobs_for(failed.pk, helpers.INGEST)[-1] == "todo"

    cand = helpers.candidate_failed()
    res = ats_cli("retry-candidate", str(cand.pk))
    assert res.returncode == 0, res.stderr
    assert helpers.reload(cand).state == "parsed"

    bad = helpers.malware()
    res = ats_cli("discard", str(bad.pk))
    assert res.returncode != 0 and "--reason" in res.stderr
    res = ats_cli("discard", str(bad.pk), "--reason", "handled by security")
    assert res.returncode == 0, res.stderr
    assert helpers.reload(bad).state == "discarded"
    actor = helpers.audit_actions(bad.pk)[-1][1]
    assert actor.startswith("cli:")
    res = ats_cli("retry-scan", str(bad.pk))
    assert res.returncode == 1 and "only a failed scan can be retried" in res.stderr


def test_user_add_creates_a_login_with_a_role_and_changes_it() -> None:
    from django.contrib.auth import get_user_model

    from ats.iam import api as iam_api

    res = ats_cli("user-add", "olga", "--role", "operator")
    assert res.returncode == 0 and res.stdout.startswith("login: olga / "), res.stderr
    user = get_user_model().objects.get(username="olga")
    assert iam_api.role_of(user) == iam_api.Role.OPERATOR and iam_api.can(user, "ops.view")
    assert ats_cli("user-add", "olga", "--role", "recruiter").returncode == 0
    assert iam_api.role_of(get_user_model().objects.get(username="olga")) == iam_api.Role.RECRUITER
    assert ats_cli("user-add", "x", "--role", "root").returncode != 0
