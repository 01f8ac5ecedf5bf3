"""Application stages and decisions: a person's, with a reason, recorded with what they saw
(score, fingerprint, config version, explanation), audited; hiring managers only on their
assigned requisitions. Also: a title-only (draft) requisition, and the weights a screen shows
are the explanation's maxima."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from ats.iam import api as iam_api
from ats.scoring import api as scoring_api
from ats.scoring.models import Application, ApplicationDecision
from tests.conftest import run_ats_in_process
from tests.scoring import helpers as sh

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def people(django_user_model: Any) -> dict[str, Any]:
    out = {}
    for role in ("recruiter", "hiring_manager", "operator"):
        out[role] = iam_api.user_create(username=f"{role}-d", password="pw-for-tests-1234", role=role)
    out["recruiter"].first_name, out["recruiter"].last_name = "Ann", "Recruiter"
    out["recruiter"].save()
    return out


@pytest.fixture
def scored() -> dict[str, int]:
    req = sh.requisition(must="Python,PostgreSQL", nice="", min_years=None, title="Backend")
    cand = sh.candidate(skills=("Python",), name="Dana Decided")
    app_id = sh.apply(cand, req.requisition_id)
    assert scoring_api.application_score(application_id=app_id) == "scored"
    return {"req": req.requisition_id, "app": app_id, "cand": cand}


def _audit(app_id: int) -> list[tuple[str, str, dict[str, Any]]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT action, actor, payload FROM audit_event WHERE object_type = 'application' AND object_id = %s"
            " ORDER BY id",
            [str(app_id)],
        )
        return [(a, b, p if isinstance(p, dict) else json.loads(p)) for a, b, p in cur.fetchall()]


def test_decision_records_the_person_and_what_they_saw(people: dict[str, Any], scored: dict[str, int]) -> None:
    app = Application.objects.select_related("current_result").get(pk=scored["app"])
    assert app.stage == "new"
    d = scoring_api.application_decide(
        application_id=app.pk, to_stage="screening", reason="  strong Python  ", actor=people["recruiter"]
    )
    assert (d.from_stage, d.to_stage, d.reason) == ("new", "screening", "strong Python")
    assert d.actor == f"user:{people['recruiter'].pk}" and d.actor_user_id == people["recruiter"].pk
    shown = app.current_result
    assert shown is not None
    assert (d.score, d.input_fingerprint, d.config_version, d.result_id) == (
        shown.score,
        shown.input_fingerprint,
        shown.config_version,
        shown.pk,
    )
    assert d.explanation == shown.explanation
    assert Application.objects.get(pk=app.pk).stage == "screening"
    events = _audit(app.pk)
    assert [(a, b) for a, b, _ in events] == [("application.decided", f"user:{people['recruiter'].pk}")]
    assert events[0][2]["to"] == "screening" and events[0][2]["input_fingerprint"] == shown.input_fingerprint
    detail = scoring_api.application_detail(app.pk, actor=people["recruiter"])
    assert detail is not None and detail["stage"] == "screening"
    assert [x["to"] for x in detail["decisions"]] == ["screening"]
    assert detail["decisions"][0]["score"] == shown.score


def test_decision_keeps_what_was_seen_after_a_rescore(people: dict[str, Any], scored: dict[str, int]) -> None:
    d = scoring_api.application_decide(
        application_id=scored["app"], to_stage="screening", reason="ok", actor=people["recruiter"]
    )
    before = d.score
    scoring_api.requisition_update(requisition_id=scored["req"], must_have=["Python"], actor=sh.ACTOR)
    assert scoring_api.application_score(application_id=scored["app"]) == "scored"
    now = scoring_api.application_detail(scored["app"], actor=people["recruiter"])
    assert now is not None and now["score"] != before  # the score moved on...
    assert ApplicationDecision.objects.get(pk=d.id).score == before  # ...the record did not


@pytest.mark.parametrize(
    ("stage", "reason", "message"),
    [("screening", "   ", "needs a reason"), ("new", "same", "already at new"), ("maybe", "x", "unknown stage")],
)
def test_refused_decisions_change_nothing(
    people: dict[str, Any], scored: dict[str, int], stage: str, reason: str, message: str
) -> None:
    with pytest.raises(scoring_api.DecisionRefused, match=message):
        scoring_api.application_decide(
            application_id=scored["app"], to_stage=stage, reason=reason, actor=people["recruiter"]
        )
    assert Application.objects.get(pk=scored["app"]).stage == "new"
    assert ApplicationDecision.objects.count() == 0 and _audit(scored["app"]) == []


def test_hiring_manager_decides_only_on_assigned_requisitions(people: dict[str, Any], scored: dict[str, int]) -> None:
    hm = people["hiring_manager"]
    with pytest.raises(LookupError):
        scoring_api.application_decide(application_id=scored["app"], to_stage="interview", reason="x", actor=hm)
    assert ApplicationDecision.objects.count() == 0
    scoring_api.requisition_assign(requisition_id=scored["req"], user_id=hm.pk, actor=sh.ACTOR)
    d = scoring_api.application_decide(application_id=scored["app"], to_stage="interview", reason="met", actor=hm)
    assert d.actor == f"user:{hm.pk}"
    with pytest.raises(scoring_api.NotAllowed):
        scoring_api.application_decide(
            application_id=scored["app"], to_stage="rejected", reason="x", actor=people["operator"]
        )


def test_cli_decide_contract(ats_cli: Any, people: dict[str, Any], scored: dict[str, int]) -> None:
    # A decision and a refused one through the real `ats` process (exit codes, JSON and
    # stderr are the contract); the read-back and the hiring manager's refusal run the
    # same commands in the test process.
    res = ats_cli(
        "application", "decide", str(scored["app"]), "--to", "rejected", "--reason", "no PostgreSQL", "--json"
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["application_id"] == scored["app"] and out["stage"] == "rejected"
    assert out["decision"]["reason"] == "no PostgreSQL" and out["decision"]["from"] == "new"
    assert len(out["decision"]["fingerprint"]) == 64 and isinstance(out["decision"]["score"], int)
    shown = run_ats_in_process("application", "show", str(scored["app"]), "--json")
    assert json.loads(shown.stdout)["stage"] == "rejected"
    bad = ats_cli("application", "decide", str(scored["app"]), "--to", "rejected", "--reason", "again", "--json")
    assert bad.returncode != 0 and "already at rejected" in bad.stderr
    hm = run_ats_in_process(
        "application", "decide", str(scored["app"]), "--to", "new", "--reason", "x", "--user", "hiring_manager-d"
    )
    assert hm.returncode != 0 and "does not exist" in hm.stderr  # not assigned: as if absent


def test_title_only_requisition_waits_for_criteria_with_a_reason() -> None:
    v = scoring_api.requisition_create(title="Draft role", actor=sh.ACTOR)
    assert v.must_have == ()
    app_id = sh.apply(sh.candidate(skills=("Python",)), v.requisition_id)
    with pytest.raises(Exception, match="no must-have skills yet"):
        scoring_api.application_score(application_id=app_id)
    with pytest.raises(ValueError, match="at least one must-have"):
        scoring_api.requisition_update(requisition_id=v.requisition_id, nice_to_have=["Go"], actor=sh.ACTOR)
    scoring_api.requisition_update(requisition_id=v.requisition_id, must_have=["Python"], actor=sh.ACTOR)
    assert scoring_api.application_score(application_id=app_id) == "scored"


@pytest.mark.parametrize(("nice", "years"), [("", None), ("Kubernetes", None), ("Kubernetes", 3.0), ("", 5.0)])
def test_weights_shown_are_the_explanations_maxima(nice: str, years: float | None) -> None:
    req = sh.requisition(must="Python,PostgreSQL", nice=nice, min_years=years)
    app_id = sh.apply(sh.candidate(skills=("Python",), years=2), req.requisition_id)
    scoring_api.application_score(application_id=app_id)
    shown = next(r for r in scoring_api.requisition_list(actor=sh.ACTOR) if r["id"] == req.requisition_id)
    detail = scoring_api.application_detail(app_id, actor=sh.ACTOR)
    assert detail is not None
    assert [c["max"] for c in shown["criterion_max"]] == [e["max"] for e in detail["explanation"]]
    assert sum(shown["weights_used"].values()) == 100
    if not nice and years is None:
        assert shown["weights_used"]["must_have"] == 100 and [c["max"] for c in shown["criterion_max"]] == [50, 50]


def test_erasure_deletes_decisions_and_subject_access_lists_them(
    people: dict[str, Any], scored: dict[str, int]
) -> None:
    scoring_api.application_decide(
        application_id=scored["app"], to_stage="rejected", reason="not now", actor=people["recruiter"]
    )
    assert _reasons_in_audit() == 1
    rows = scoring_api.application_personal_rows(candidate_ids=[scored["cand"]])
    assert [r["reason"] for r in rows["scoring_application_decision"]] == ["not now"]
    res = scoring_api.applications_erase_personal(candidate_ids=[scored["cand"]])
    assert res["counts"]["scoring_application_decision"] == 1
    assert ApplicationDecision.objects.count() == 0
    assert _reasons_in_audit() == 0  # the reason lived in the audit's erasable side table: gone too


def _reasons_in_audit() -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM audit_event_personal p JOIN audit_event e ON e.id = p.event_id"
            " WHERE e.object_type = 'application' AND p.details IS NOT NULL"
        )
        return int(cur.fetchone()[0])
