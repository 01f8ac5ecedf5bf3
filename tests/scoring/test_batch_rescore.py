"""A new requisition version rescoring 500 applications through real workers, some of
them made to fail (erased and vanished candidates): the run completes with a correct
partial-failure summary, failed applications say why and carry no score, and the same
rescore again is a no-op for every application that scored."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from ats.candidates.models import Candidate, CandidateField, CandidateStatus
from ats.jobs import ops_api as jobs_ops
from ats.scoring import api as scoring_api
from ats.scoring.models import Application, AtsResult, RescoreRun
from tests.conftest import run_ats_in_process, start_side_by_side
from tests.jobs.helpers import wait_for
from tests.scoring.helpers import ACTOR, requisition

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

N = 500
SKILLS = ("Python", "PostgreSQL", "Kubernetes", "Docker", "Go")


def _population(requisition_id: int, version_id: int) -> list[int]:
    """500 candidates with varied skills/years and one application each (bulk: the set-up
    is not what is measured; the candidates module's own tests cover its writes)."""
    cands = Candidate.objects.bulk_create([Candidate(display_name=f"p{i}") for i in range(N)])
    fields = []
    for i, c in enumerate(cands):
        have = [s for j, s in enumerate(SKILLS) if (i >> j) & 1]
        src = [{"text": "Skills: ...", "rule": "skill.section", "attachment_id": None, "page": 1}]
        fields.append(CandidateField(candidate=c, field="skills", values=[{"value": s, "sources": src} for s in have]))
        fields.append(CandidateField(candidate=c, field="years_experience", values=[{"value": i % 12, "sources": src}]))
    CandidateField.objects.bulk_create(fields)
    apps = Application.objects.bulk_create(
        [
            Application(candidate_id=c.pk, requisition_id=requisition_id, requisition_version_id=version_id)
            for c in cands
        ]
    )
    return [a.pk for a in apps]


def test_500_applications_rescored_with_partial_failures(start_worker: Any) -> None:
    v1 = requisition(must="Python,PostgreSQL", nice="Kubernetes,Docker", min_years=3)
    app_ids = _population(v1.requisition_id, v1.id)
    apps = dict(Application.objects.filter(pk__in=app_ids).values_list("pk", "candidate_id"))
    erased = app_ids[7::50]  # 10 erased candidates
    vanished = app_ids[13::100]  # 5 applications whose candidate row is gone
    Candidate.objects.filter(pk__in=[apps[a] for a in erased]).update(status=CandidateStatus.ERASED)
    with connection.cursor() as cur:
        cur.execute("UPDATE scoring_application SET candidate_id = -candidate_id WHERE id = ANY(%s)", [vanished])
    failing = set(erased) | set(vanished)

    start_side_by_side(start_worker, 2, "default", extra=["--concurrency=2"])
    v2 = scoring_api.requisition_update(requisition_id=v1.requisition_id, min_years=4, actor=ACTOR)

    def finished() -> RescoreRun | None:
        return RescoreRun.objects.filter(requisition_version_id=v2.id, state="completed").first()

    run = wait_for(finished, 240, "the rescore run completed", interval=0.5)
    s = scoring_api.rescore_summary(run)
    assert (s["total"], s["scored"], s["unchanged"], s["failed"], s["pending"]) == (
        N,
        N - len(failing),
        0,
        len(failing),
        0,
    ), s
    assert {f["application_id"] for f in s["failures"]} == failing
    reasons = {f["application_id"]: f["reason"] for f in s["failures"]}
    assert all("erased" in reasons[a] for a in erased) and all("missing" in reasons[a] for a in vanished)
    # Failed: scoring_failed with the reason, no score; every other one scored, explained.
    assert set(Application.objects.filter(state="scoring_failed").values_list("pk", flat=True)) == failing
    assert Application.objects.filter(state="scored").count() == N - len(failing)
    assert not AtsResult.objects.filter(application_id__in=failing).exists()
    for a in AtsResult.objects.filter(application_id__in=app_ids[:40]):
        assert a.score == sum(e["contribution"] for e in a.explanation)
    # No job left behind, none lost.
    assert jobs_ops.queue_stats() and scoring_api.lost_applications() == []

    # Again through the CLI (in the test process: the command and its JSON, not the entry
    # point; the real workers still do the rescoring): nothing changed, so every scored
    # application is a no-op.
    before = AtsResult.objects.count()
    res = run_ats_in_process("rescore", "--requisition", str(v1.requisition_id), "--wait", "--json", "--timeout", "240")
    assert res.returncode == 0, res.stderr + res.stdout
    again = json.loads(res.stdout)
    assert (again["state"], again["total"], again["scored"], again["unchanged"], again["failed"]) == (
        "completed",
        N,
        0,
        N - len(failing),
        len(failing),
    ), again
    assert AtsResult.objects.count() == before
