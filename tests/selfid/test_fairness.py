"""Issue 27 items 3-4: the fairness report on seeded decisions (a known four-fifths
violation, one without, small groups suppressed), Fisher's exact test against published
values, the report with no data, and who may read self-identification (every role)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from ats.candidates.models import Candidate
from ats.iam import api as iam_api
from ats.scoring import api as scoring_api
from ats.scoring.models import Application, ApplicationDecision, AtsResult
from ats.selfid import api as selfid_api
from ats.selfid.models import SelfIdentification

ADMIN = iam_api.SystemActor("test:admin")
STAGE_KEYS = {"stage", "groups", "explanation"}
GROUP_KEYS = {"group", "n", "selected", "selection_rate", "impact_ratio", "four_fifths", "fisher_p"}


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # scipy.stats.fisher_exact's documented example.
        ((8, 2, 1, 5), 0.0349650349650),
        # The textbook two-sided example (men/women dieting): R's fisher.test gives 0.002759.
        ((1, 9, 11, 3), 0.0027594561852),
        # Fisher's lady tasting tea, two-sided.
        ((3, 1, 1, 3), 0.4857142857143),
        ((5, 5, 5, 5), 1.0),
    ],
)
def test_fisher_exact_matches_published_values(table: tuple[int, int, int, int], expected: float) -> None:
    assert selfid_api.fisher_exact_p(*table) == pytest.approx(expected, rel=1e-9)


_next_candidate = [10_000]


def _seed(req: Any, sex: str, *, advanced: int, rejected: int, score: int = 60) -> None:
    """People of one self-identified sex decided at `new`: some advanced to screening,
    the rest rejected there (each decision stored as the workspace stores it)."""
    for i in range(advanced + rejected):
        _next_candidate[0] += 1
        cid = _next_candidate[0]
        to = "screening" if i < advanced else "rejected"
        app = Application.objects.create(
            candidate_id=cid, requisition_id=req.requisition_id, requisition_version_id=req.id, stage=to, state="scored"
        )
        result = AtsResult.objects.create(
            application=app,
            requisition_version_id=req.id,
            input_fingerprint=f"{cid:064d}",
            config_version="v-test",
            score=score,
            explanation=[],
            criteria={},
            inputs={},
        )
        app.current_result = result
        app.save(update_fields=["current_result"])
        ApplicationDecision.objects.create(
            application=app,
            from_stage="new",
            to_stage=to,
            reason="seeded",
            actor="test:recruiter",
            requisition_version_id=req.id,
            score=score,
        )
        selfid_api.selfid_record(
            candidate_id=cid, sex=sex, race_ethnicity="prefer_not_to_say", source="admin_survey", actor=ADMIN
        )


def _report(*args: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("fairness", "report", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def _groups(report: dict[str, Any], stage: str) -> dict[str, dict[str, Any]]:
    [s] = [s for s in report["stages"] if s["stage"] == stage]
    return {g["group"]: g for g in s["groups"]}


@pytest.mark.django_db
def test_with_no_decisions_every_stage_is_listed_with_an_explanation() -> None:
    report = _report()
    assert report["suppressed_under"] == 5
    assert [s["stage"] for s in report["stages"]] == ["screening", "interview", "offer", "hire"]
    for s in report["stages"]:
        assert set(s) == STAGE_KEYS and s["groups"] == [] and "No decisions" in s["explanation"], s


@pytest.mark.django_db
def test_a_known_four_fifths_violation_is_flagged() -> None:
    req = scoring_api.requisition_create(title="Violation", must_have=["Python"], actor=ADMIN)
    _seed(req, "female", advanced=2, rejected=8, score=40)
    _seed(req, "male", advanced=8, rejected=2, score=70)
    _seed(req, "another", advanced=1, rejected=2)  # 3 people: suppressed
    report = _report("--requisition", str(req.requisition_id))
    groups = _groups(report, "screening")
    assert all(set(g) == GROUP_KEYS for g in groups.values())
    female, male = groups["sex=female"], groups["sex=male"]
    assert (female["n"], female["selected"], female["selection_rate"]) == (10, 2, 0.2)
    assert (male["n"], male["selected"], male["selection_rate"]) == (10, 8, 0.8)
    assert male["impact_ratio"] == 1.0 and male["four_fifths"] is True
    assert female["impact_ratio"] == 0.25 and female["four_fifths"] is False
    # Female vs everyone else at the stage (13 others, 9 selected): [[2, 8], [9, 4]].
    assert female["fisher_p"] == pytest.approx(selfid_api.fisher_exact_p(2, 8, 9, 4), abs=1e-6)
    assert female["fisher_p"] < 0.05
    assert "sex=another" not in groups, "a group of 3 is suppressed"
    assert "under 5" in next(s for s in report["stages"] if s["stage"] == "screening")["explanation"]
    # "Prefer not to say" is counted but never compared or flagged.
    assert groups["race=prefer_not_to_say"]["impact_ratio"] is None
    assert groups["race=prefer_not_to_say"]["four_fifths"] is None
    # Later stages had no decisions.
    assert _groups(report, "interview") == {}
    # (The intersection with an undisclosed race is counted, not compared.)
    assert selfid_api.below_four_fifths(report) == [{"stage": "screening", "group": "sex=female", "impact_ratio": 0.25}]
    # Score distributions per group and scoring version.
    scores = {(d["scoring_version"], d["group"]): d for d in report["scores"]}
    assert scores[("v-test", "sex=female")]["median"] == 40 and scores[("v-test", "sex=male")]["mean"] == 70
    assert ("v-test", "sex=another") not in scores
    # The stored report feeds the alert.
    latest = selfid_api.fairness_latest()
    assert latest is not None and latest.below_four_fifths == 1


@pytest.mark.django_db
def test_no_violation_when_rates_are_within_four_fifths() -> None:
    req = scoring_api.requisition_create(title="Fair", must_have=["Python"], actor=ADMIN)
    _seed(req, "female", advanced=7, rejected=3)
    _seed(req, "male", advanced=8, rejected=2)
    report = _report("--requisition", str(req.requisition_id))
    groups = _groups(report, "screening")
    assert groups["sex=female"]["impact_ratio"] == 0.875 and groups["sex=female"]["four_fifths"] is True
    assert selfid_api.below_four_fifths(report) == []


@pytest.mark.django_db
def test_answers_are_erased_with_the_person() -> None:
    selfid_api.selfid_record(candidate_id=77, sex="female", race_ethnicity="asian", source="admin_survey", actor=ADMIN)
    assert selfid_api.selfid_erase(candidate_ids=[77]) == {"selfid_response": 1}
    assert not SelfIdentification.objects.filter(candidate_id=77).exists()


# ------------------------------------------------------------------------------ who may read


@pytest.fixture
def users(django_user_model: Any) -> dict[str, Any]:
    return {
        role: iam_api.user_create(username=role, password="pw-for-tests-1234", role=role)
        for role in ("recruiter", "hiring_manager", "operator", "admin")
    }


@pytest.mark.django_db
def test_no_recruiter_hiring_manager_or_operator_reads_self_identification(client: Any, users: dict[str, Any]) -> None:
    # The admin's entry is for a real person (the page refuses an unknown number).
    Candidate.objects.create(pk=4242, display_name="Sam Survey", email="sam.survey@example.org")
    selfid_api.selfid_record(
        candidate_id=4242,
        sex="female",
        race_ethnicity="american_indian_alaska_native",
        source="admin_survey",
        actor=ADMIN,
    )
    for role, user in users.items():
        client.force_login(user)
        page = client.get("/fairness/")
        enter = client.post("/fairness/enter", {"candidate_id": "4242", "sex": "male", "race": "white"})
        if role == "admin":
            assert page.status_code == 200 and enter.status_code == 303, role
            # Aggregates only: the page never names the person (one answer is under 5).
            assert b"race=american_indian_alaska_native" not in page.content
            assert b"Race / ethnicity: American Indian" not in page.content
        else:
            assert (page.status_code, enter.status_code) == (403, 403), role
            assert not iam_api.can(user, "fairness.view") and not iam_api.can(user, "selfid.enter")
        if role != "admin":
            with pytest.raises(selfid_api.NotAllowed):
                selfid_api.fairness_report_run(actor=user)
            with pytest.raises(selfid_api.NotAllowed):
                selfid_api.selfid_record(
                    candidate_id=4242, sex="male", race_ethnicity="white", source="admin_survey", actor=user
                )
    # The admin's entry replaced the answer; a recruiter's attempt changed nothing.
    assert SelfIdentification.objects.get(candidate_id=4242).sex == "male"
    # No role can read a single answer: iam has no such action and no URL shows one.
    assert not any(action.startswith("selfid.") and action != "selfid.enter" for action in iam_api_rules())


def iam_api_rules() -> list[str]:
    from ats.iam.policy import RULES

    return list(RULES)


@pytest.mark.django_db
def test_the_form_link_records_the_persons_own_answer(client: Any) -> None:
    token = selfid_api.selfid_token(candidate_id=31337)
    assert client.get(f"/self-identification/{token}").status_code == 200
    assert client.get("/self-identification/forged").status_code == 404
    res = client.post(f"/self-identification/{token}", {"sex": "prefer_not_to_say", "race": "asian"})
    assert res.status_code == 200 and b"Thank you" in res.content
    row = SelfIdentification.objects.get(candidate_id=31337)
    assert (row.sex, row.race_ethnicity, row.source, row.entered_by) == (
        "prefer_not_to_say",
        "asian",
        "candidate_form",
        "candidate",
    )


@pytest.mark.django_db
def test_the_cli_enters_a_survey_only_for_a_real_candidate() -> None:
    from django.core.management.base import CommandError

    sam = Candidate.objects.create(display_name="Sam Survey", email="sam.cli@example.org")
    call_command("selfid", "enter", str(sam.pk), "--sex", "female", stdout=io.StringIO())
    assert SelfIdentification.objects.get(candidate_id=sam.pk).source == "admin_survey"
    with pytest.raises(CommandError, match="no candidate number 987654"):
        call_command("selfid", "enter", "987654", "--sex", "female", stdout=io.StringIO())
    assert not SelfIdentification.objects.filter(candidate_id=987654).exists()
