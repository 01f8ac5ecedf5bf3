"""Requisitions, applications and scoring through the facade, in-process (no workers)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ats.candidates.models import Candidate
from ats.iam import api as iam_api
from ats.scoring import api as scoring_api
from ats.scoring.models import Application, AtsResult, Requisition, RescoreRun, ScoringEvent
from ats.scoring.services import ScoringImpossible, rescore_requisition_version
from tests.scoring.helpers import ACTOR, apply, candidate, count, jobs, requisition

pytestmark = pytest.mark.django_db(transaction=True)


def test_unknown_skill_is_an_error_listing_close_matches() -> None:
    with pytest.raises(scoring_api.UnknownSkill) as err:
        requisition(must="Pyton,PostgreSQL", nice="Kubernets")
    msg = str(err.value)
    assert "unknown skill 'Pyton'" in msg and "Python" in msg
    assert "unknown skill 'Kubernets'" in msg and "Kubernetes" in msg
    assert Requisition.objects.count() == 0


def test_aliases_become_canonical_names_and_update_changes_only_what_is_given() -> None:
    v1 = requisition(must="python3,postgres", nice="", min_years=2, title="Backend engineer")
    assert v1.version == 1 and v1.must_have == ("Python", "PostgreSQL") and v1.min_years == 2
    v2 = scoring_api.requisition_update(requisition_id=v1.requisition_id, nice_to_have=["Docker"], actor=ACTOR)
    assert (v2.version, v2.title, v2.must_have, v2.nice_to_have, v2.min_years) == (
        2,
        "Backend engineer",
        ("Python", "PostgreSQL"),
        ("Docker",),
        2,
    )
    # The new version's rescore is queued in the update's own transaction.
    assert jobs("scoring.rescore_requisition_version", "requisition_version_id", v2.id) == ["todo"]
    assert [r["version"] for r in scoring_api.requisition_list(actor=ACTOR)] == [2]


def test_application_scores_with_an_explanation_that_adds_up() -> None:
    v = requisition()
    cid = candidate(skills=("Python", "Kubernetes"), prose_skills=("PostgreSQL",), years=5)
    app_id = apply(cid, v.requisition_id)
    assert jobs("scoring.score_application", "application_id", app_id) == ["todo"]
    assert scoring_api.application_score(application_id=app_id) == "scored"
    d = scoring_api.application_detail(app_id, actor=ACTOR)
    assert d is not None and d["state"] == "scored" and d["requisition_version"] == 1
    assert d["score"] == sum(e["contribution"] for e in d["explanation"]) == 35 + 17 + 15 + 15
    python = next(e for e in d["explanation"] if e["criterion"] == "must-have: Python")
    assert python["evidence"][0]["rule"] == "skill.section" and python["evidence"][0]["page"] == 1
    assert [r["fingerprint"] for r in d["results"]] == [d["fingerprint"]] and len(d["fingerprint"]) == 64
    assert d["results"][0]["created_at"].endswith("Z")
    event = ScoringEvent.objects.get(application_id=app_id)
    assert (event.outcome, event.input_fingerprint, event.config_version) == (
        "scored",
        d["fingerprint"],
        scoring_api.CONFIG_VERSION,
    )


def test_unchanged_inputs_are_a_no_op() -> None:
    v = requisition()
    app_id = apply(candidate(skills=("Python",), years=4), v.requisition_id)
    assert scoring_api.application_score(application_id=app_id) == "scored"
    with CaptureQueriesContext(connection) as q:
        assert scoring_api.application_score(application_id=app_id) == "unchanged"
    sql = [x["sql"] for x in q.captured_queries]
    assert not [s for s in sql if 'INSERT INTO "ats_result"' in s or "INSERT INTO ats_result" in s]
    assert not [s for s in sql if s.startswith('UPDATE "scoring_application"')]
    lookups = [s for s in sql if 'FROM "ats_result"' in s]
    assert len(lookups) == 1 and '"input_fingerprint" =' in lookups[0]  # the index lookup
    assert len(sql) <= 12, sql
    # A title-only edit (a typo fix) keeps every fingerprint: rescoring writes nothing new.
    scoring_api.requisition_update(requisition_id=v.requisition_id, title="Backend (fixed typo)", actor=ACTOR)
    assert scoring_api.application_score(application_id=app_id) == "unchanged"
    assert AtsResult.objects.filter(application_id=app_id).count() == 1
    assert scoring_api.application_detail(app_id, actor=ACTOR)["requisition_version"] == 2  # type: ignore[index]
    # A criteria edit changes the fingerprint: a second result.
    scoring_api.requisition_update(requisition_id=v.requisition_id, min_years=6, actor=ACTOR)
    assert scoring_api.application_score(application_id=app_id) == "scored"
    assert AtsResult.objects.filter(application_id=app_id).count() == 2


def test_erased_candidate_fails_with_a_reason_and_no_score() -> None:
    v = requisition()
    cid = candidate(skills=("Python",))
    app_id = apply(cid, v.requisition_id)
    Candidate.objects.filter(pk=cid).update(status="erased")
    with pytest.raises(ScoringImpossible):
        scoring_api.application_score(application_id=app_id)
    scoring_api.application_score_exhausted(
        application_id=app_id, reason_code="candidate_erased", reason="The candidate of this application is erased."
    )
    d = scoring_api.application_detail(app_id, actor=ACTOR)
    assert d is not None and d["state"] == "scoring_failed" and d["score"] is None and d["explanation"] == []
    assert d["reason"] == "The candidate of this application is erased."
    assert count("ats_result", "application_id = %s", [app_id]) == 0


def test_one_application_per_candidate_and_requisition() -> None:
    v = requisition()
    cid = candidate(skills=("Python",))
    assert apply(cid, v.requisition_id) == apply(cid, v.requisition_id)
    assert Application.objects.filter(candidate_id=cid).count() == 1


def test_hiring_managers_see_only_assigned_requisitions() -> None:
    a, b = requisition(title="A"), requisition(title="B")
    app_b = apply(candidate(skills=("Python",)), b.requisition_id)
    hm = iam_api.user_create(username="hm", password="x" * 12, role="hiring_manager")
    scoring_api.requisition_assign(requisition_id=a.requisition_id, user_id=hm.pk, actor=ACTOR)
    assert [r["id"] for r in scoring_api.requisition_list(actor=hm)] == [a.requisition_id]
    assert scoring_api.application_detail(app_b, actor=hm) is None
    assert scoring_api.application_list(requisition_id=b.requisition_id, actor=hm) == []
    rec = iam_api.user_create(username="rec", password="x" * 12, role="recruiter")
    assert {r["id"] for r in scoring_api.requisition_list(actor=rec)} == {a.requisition_id, b.requisition_id}
    with pytest.raises(scoring_api.NotAllowed):
        scoring_api.requisition_create(title="x", must_have=["Python"], actor=hm)
    anon = get_user_model()(username="anon")
    with pytest.raises(scoring_api.NotAllowed):
        scoring_api.requisition_list(actor=anon)


def test_coordinator_writes_summary_items_and_jobs_in_one_transaction() -> None:
    v = requisition()
    apps = [apply(candidate(skills=("Python",)), v.requisition_id) for _ in range(3)]
    # procrastinate's table outlives other tests' flushes: count this test's jobs only.
    mine = "task_name = 'scoring.rescore_application' AND (args->>'application_id')::bigint = ANY(%s)"
    with transaction.atomic():
        run = rescore_requisition_version(requisition_version_id=v.id, job_id=None)
        assert run is not None and count("procrastinate_jobs", mine, [apps]) == 3
        transaction.set_rollback(True)
    assert count("scoring_rescore_run") == 0
    assert count("procrastinate_jobs", mine, [apps]) == 0  # rolled back together
    run = rescore_requisition_version(requisition_version_id=v.id, job_id=None)
    assert run is not None and run.total == 3
    assert count("procrastinate_jobs", mine, [apps]) == 3
    scoring_api.application_score(application_id=apps[0], run_id=run.pk)
    scoring_api.application_score(application_id=apps[1], run_id=run.pk)
    scoring_api.rescore_application_exhausted(
        application_id=apps[2], run_id=run.pk, reason_code="error", reason="RuntimeError: boom"
    )
    s = scoring_api.rescore_summary(RescoreRun.objects.get(pk=run.pk))
    assert (s["state"], s["total"], s["scored"], s["unchanged"], s["failed"]) == ("completed", 3, 2, 0, 1)
    assert s["failures"] == [{"application_id": apps[2], "reason": "RuntimeError: boom"}]


def test_lost_applications_are_reported() -> None:
    v = requisition()
    app_id = apply(candidate(skills=("Python",)), v.requisition_id)
    assert scoring_api.lost_applications() == []  # its score job is waiting
    with connection.cursor() as cur:
        cur.execute("DELETE FROM procrastinate_jobs WHERE task_name = 'scoring.score_application'")
    [lost] = scoring_api.lost_applications()
    assert lost.application_id == app_id and "no score job" in lost.why


def test_a_new_document_rescores_the_candidates_other_applications() -> None:
    a, b = requisition(title="A"), requisition(title="B")
    cid = candidate(skills=("Python",))
    app_a = apply(cid, a.requisition_id)
    scoring_api.application_score(application_id=app_a)
    with transaction.atomic():
        scoring_api.applications_for_document(attachment_id=-1, candidate_id=cid)  # a document with no routing
    assert jobs("scoring.score_application", "application_id", app_a) == ["todo", "todo"]
    assert Application.objects.filter(candidate_id=cid).count() == 1
    assert b.requisition_id not in Application.objects.values_list("requisition_id", flat=True)
