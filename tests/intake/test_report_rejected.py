"""worker-default re-checks every stored parse report before applying it (issue 21 N1, N6).

The reports here are written straight into intake_parse_result - what the parse role's
ats_parse_submit() lets through - and applied by the trusted service itself. Genuine
ones come from the real fork server, built as ats.parse_worker.runner builds them.
The same probe through the parse role and real workers: tests/parse_role/test_forged_report.py.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from prometheus_client import REGISTRY

from ats.audit import api as audit_api
from ats.intake import services
from ats.intake.models import Attachment, ParseAttempt, ParseResult
from ats.pipeline import tasks as pipeline_tasks
from tests import corpus
from tests.parse_role.helpers import stored_parse_result
from tests.sandbox_parse import production_sandbox, submit_args

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def genuine(django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    sandbox = production_sandbox()
    result = sandbox.run("pdf", corpus.text_pdf())
    failed = sandbox.run("pdf", corpus.encrypted_pdf())
    assert result.ok and not failed.ok
    yield {"ok": submit_args(result), "failed": submit_args(failed)}


def _apply(report: dict[str, Any], *, as_the_job: bool = False) -> tuple[Attachment, ParseAttempt]:
    """Through the service (the candidate step deferred as a job), or as production's
    `intake.apply_parse_result` job does it - the one that records the metrics, after its
    transaction has committed."""
    att, row_id = stored_parse_result(report, corpus.text_pdf())
    if as_the_job:
        pipeline_tasks.apply_parse_result(parse_result_id=row_id, payload_version=1)
    else:
        services.parse_result_apply(parse_result_id=row_id)
    assert not ParseResult.objects.filter(pk=row_id).exists()
    return Attachment.objects.get(pk=att), ParseAttempt.objects.get(attachment_id=att, attempt_no=1)


def _metric(name: str, labels: dict[str, str]) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _candidate_jobs(att: int) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM procrastinate_jobs WHERE task_name = 'candidates.create_from_attachment'"
            " AND args->>'attachment_id' = %s",
            [str(att)],
        )
        return int(cur.fetchone()[0])


def test_genuine_report_is_applied(genuine: dict[str, Any]) -> None:
    att, attempt = _apply(copy.deepcopy(genuine["ok"]))
    assert (att.state, attempt.state, attempt.page_count) == ("parsed", "succeeded", 1)
    assert attempt.text == genuine["ok"]["text"] and _candidate_jobs(att.pk) == 1
    att, attempt = _apply(copy.deepcopy(genuine["failed"]))
    assert (att.state, att.reason_code, attempt.error_code) == ("parse_failed", "encrypted", "encrypted")


def test_forged_report_ends_parse_failed_report_rejected_visible_counted_audited(genuine: dict[str, Any]) -> None:
    report = copy.deepcopy(genuine["ok"])
    report["page_count"] = report["result"]["pages"] = 999
    before = (
        _metric("ats_sandbox_reports_rejected_total", {"check": "page_count"}),
        _metric("ats_sandbox_reports_total", {"code": "report_rejected"}),
    )
    att, attempt = _apply(report, as_the_job=True)
    assert (att.state, att.reason_code, attempt.state, attempt.error_code) == (
        "parse_failed",
        "report_rejected",
        "failed",
        "report_rejected",
    )
    # Plain words in triage (the document's reason), naming the check.
    assert att.reason == "The parser's report failed a safety check (page count); ask an administrator."
    assert attempt.text == "" and attempt.page_count is None and attempt.result == {} and attempt.policy_hash == ""
    assert _candidate_jobs(att.pk) == 0
    after = (
        _metric("ats_sandbox_reports_rejected_total", {"check": "page_count"}),
        _metric("ats_sandbox_reports_total", {"code": "report_rejected"}),
    )
    assert after == (before[0] + 1, before[1] + 1)
    [event] = [e for e in audit_api.events_for(object_type="attachment", object_id=att.pk) if "rejected" in e["action"]]
    assert event["action"] == "intake.parse_report_rejected"


def test_made_up_failure_code_never_becomes_a_label_or_text(genuine: dict[str, Any]) -> None:
    report = copy.deepcopy(genuine["failed"])
    report["code"] = "click_here_now"
    att, attempt = _apply(report, as_the_job=True)
    assert (att.reason_code, attempt.error_code) == ("report_rejected", "report_rejected")
    assert "click_here_now" not in att.reason and "(failure code)" in att.reason
    assert REGISTRY.get_sample_value("ats_sandbox_reports_total", {"code": "click_here_now"}) is None


def test_the_service_hands_out_the_figures_and_counts_nothing_itself(genuine: dict[str, Any]) -> None:
    """The metrics are the committing caller's to record (no transaction.on_commit, ADR
    R1): the service answers with the figures, a rejected report's without its own."""
    forged = copy.deepcopy(genuine["ok"])
    forged["page_count"] = forged["result"]["pages"] = 999
    before = _metric("ats_sandbox_reports_total", {"code": "report_rejected"})
    _, row_id = stored_parse_result(forged, corpus.text_pdf())
    applied = services.parse_result_apply(parse_result_id=row_id)
    assert applied.parsed_attachment_id is None and applied.figures is not None
    assert (applied.figures.ok, applied.figures.code, applied.figures.sandbox, applied.figures.rejected_check) == (
        False,
        "report_rejected",
        None,
        "page_count",
    )
    assert _metric("ats_sandbox_reports_total", {"code": "report_rejected"}) == before
    att, row_id = stored_parse_result(copy.deepcopy(genuine["ok"]), corpus.text_pdf())
    applied = services.parse_result_apply(parse_result_id=row_id)
    assert applied.parsed_attachment_id == att and applied.figures is not None and applied.figures.ok
    assert applied.figures.sandbox == genuine["ok"]["result"]["sandbox"]
    assert services.parse_result_apply(parse_result_id=row_id).figures is None  # applied once


def test_invisible_characters_never_reach_extraction(genuine: dict[str, Any]) -> None:
    """N6 on the trusted side: what the candidate step reads (the attempt) is clean."""
    report = copy.deepcopy(genuine["ok"])
    dirty = "Jane\u202e Doe\u200b\x07\u2066"
    report["text"] = report["result"]["text"] = dirty + "\n" + report["text"]
    report["result"]["blocks"][0]["text"] = dirty
    report["result"]["warnings"] = ["pdf_repaired: \u202egnp.exe\x07"]
    att, attempt = _apply(report)
    assert att.state == "parsed"
    assert attempt.text.startswith("Jane Doe\n") and attempt.result["text"] == attempt.text
    assert attempt.result["blocks"][0]["text"] == "Jane Doe"
    assert attempt.result["warnings"] == ["pdf_repaired: gnp.exe"]


def test_triage_shows_the_rejection_in_plain_words(genuine: dict[str, Any], client: Any) -> None:
    from ats.iam import api as iam_api

    report = copy.deepcopy(genuine["ok"])
    report["result"]["sandbox"]["layers"] = []
    att, _ = _apply(report)
    client.force_login(iam_api.user_create(username="recruiter", password="pw-for-tests-1234", role="recruiter"))
    page = client.get("/").content.decode()
    assert f'data-attachment="{att.pk}"' in page
    assert "The parser&#x27;s report failed a safety check (sandbox layers); ask an administrator." in page
    assert "report_rejected" not in page.split(f'data-attachment="{att.pk}"', 1)[1].split("</tr>", 1)[0]


def test_the_failed_job_sweep_leaves_a_reported_attempt_to_its_apply_job(genuine: dict[str, Any]) -> None:
    """A typed failure ends the parse job `failed` just after its report: the sweep of
    failed jobs may run before intake.apply_parse_result and must not write `exhausted`."""
    att, row_id = stored_parse_result(genuine["failed"], corpus.encrypted_pdf())
    services.parse_exhausted(attachment_id=att, attempt_no=1, reason_code="exhausted", reason="Every attempt failed.")
    assert ParseAttempt.objects.get(attachment_id=att, attempt_no=1).state == "pending"
    services.parse_result_apply(parse_result_id=row_id)
    assert Attachment.objects.get(pk=att).reason_code == "encrypted"
