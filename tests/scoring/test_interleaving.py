"""Forced interleaving with real parallel workers.

1. Racing score jobs: two score jobs for one application run at once, one per worker. The
   pause seam (ATS_TEST_SCORE_PAUSE_S: a pg_sleep between "is there a result for this
   fingerprint?" and the insert) makes both pass the check before either inserts. Two
   guards stand between that and two `ats_result` rows for one fingerprint: the unique
   constraint (application, input_fingerprint) and the application row lock. Each alone
   suffices; the `neither` variant asserts the duplicate rows it then gets - the test is
   shown able to fail.
2. Two rescore triggers for one requisition version: the coordinator's `lock` makes them
   run one after the other (ATS_TEST_RESCORE_PAUSE_S keeps each inside its transaction
   long enough to overlap); without the lock they overlap.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, transaction

from ats.jobs import api as jobs_api
from ats.scoring import api as scoring_api
from ats.scoring.models import RESULT_UNIQUE, AtsResult, RescoreRun
from tests.conftest import start_side_by_side
from tests.jobs.helpers import wait_for
from tests.scoring.helpers import candidate, count, requisition

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PAUSE_S = "1.5"


@pytest.fixture
def constraint_removed() -> Iterator[None]:
    with connection.cursor() as cur:
        cur.execute(f"ALTER TABLE ats_result DROP CONSTRAINT {RESULT_UNIQUE}")
    try:
        yield
    finally:
        with connection.cursor() as cur:
            cur.execute("UPDATE scoring_application SET current_result_id = NULL")
            cur.execute(
                "DELETE FROM ats_result p USING ats_result q WHERE p.application_id = q.application_id"
                " AND p.input_fingerprint = q.input_fingerprint AND p.id > q.id"
            )
            cur.execute(
                f"ALTER TABLE ats_result ADD CONSTRAINT {RESULT_UNIQUE} UNIQUE (application_id, input_fingerprint)"
            )


def _race(start_worker: Any, env: dict[str, str]) -> tuple[int, list[str]]:
    workers = start_side_by_side(start_worker, 2, "default", extra=["--concurrency=1"], env=env)
    v = requisition()
    cid = candidate(skills=("Python", "PostgreSQL"), years=5)
    with transaction.atomic():  # both jobs committed together: one idle worker picks each
        app = scoring_api.application_apply(candidate_id=cid, requisition_id=v.requisition_id)
        assert jobs_api.defer("scoring.score_application", payload={"application_id": app.id}) is not None

    def done() -> list[Any] | None:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT status::text, worker_id FROM procrastinate_jobs WHERE task_name = 'scoring.score_application'"
                " AND (args->>'application_id')::bigint = %s",
                [app.id],
            )
            rows = cur.fetchall()
        return rows if rows and all(s in ("succeeded", "failed") for s, _ in rows) else None

    rows = wait_for(done, 60, "both score jobs finished")
    assert len({w for _, w in rows}) == 2, "each worker ran one job (a real race)"
    assert all(s == "succeeded" for s, _ in rows), [w.tail() for w in workers]
    with connection.cursor() as cur:
        cur.execute("SELECT outcome FROM scoring_event WHERE application_id = %s ORDER BY id", [app.id])
        outcomes = [r[0] for r in cur.fetchall()]
    return app.id, outcomes


def test_racing_score_jobs_constraint_and_lock(stack_env: Any, start_worker: Any) -> None:
    app, outcomes = _race(start_worker, {"ATS_TEST_SCORE_PAUSE_S": PAUSE_S})
    assert AtsResult.objects.filter(application_id=app).count() == 1
    assert sorted(outcomes) == ["scored", "unchanged"]


def test_racing_score_jobs_constraint_alone(stack_env: Any, start_worker: Any) -> None:
    app, outcomes = _race(start_worker, {"ATS_TEST_SCORE_PAUSE_S": PAUSE_S, "ATS_TEST_SCORE_NO_ROW_LOCK": "1"})
    # Both passed the lookup; the constraint made the second insert a quiet no-op.
    assert AtsResult.objects.filter(application_id=app).count() == 1
    assert sorted(outcomes) == ["scored", "unchanged"]


def test_racing_score_jobs_lock_alone(stack_env: Any, start_worker: Any, constraint_removed: None) -> None:
    app, outcomes = _race(start_worker, {"ATS_TEST_SCORE_PAUSE_S": PAUSE_S})
    assert AtsResult.objects.filter(application_id=app).count() == 1
    assert sorted(outcomes) == ["scored", "unchanged"]


def test_racing_score_jobs_neither_guard_duplicates(
    stack_env: Any, start_worker: Any, constraint_removed: None
) -> None:
    app, outcomes = _race(start_worker, {"ATS_TEST_SCORE_PAUSE_S": PAUSE_S, "ATS_TEST_SCORE_NO_ROW_LOCK": "1"})
    # The failure the guards prevent: two ats_result rows for one fingerprint.
    rows = list(AtsResult.objects.filter(application_id=app).values_list("input_fingerprint", flat=True))
    assert len(rows) == 2 and rows[0] == rows[1]
    assert outcomes == ["scored", "scored"]


def _coordinator_jobs(version_id: int, *, lock: str | None) -> list[int]:
    """Two triggers as two queued coordinator jobs (what a second trigger during a run would
    be without the queueing lock's coalescing); `lock` = the policy's, or none."""
    policy = jobs_api.policy_for("scoring.rescore_requisition_version")
    args = json.dumps({"requisition_version_id": version_id, "v": policy.payload_version})
    with connection.cursor() as cur:
        cur.execute(
            "SELECT procrastinate_defer_jobs_v1(ARRAY["
            "ROW(%s, %s, %s, %s, NULL, %s::jsonb, NULL)::procrastinate_job_to_defer_v1,"
            " ROW(%s, %s, %s, %s, NULL, %s::jsonb, NULL)::procrastinate_job_to_defer_v1])",
            [policy.queue, policy.task_name, policy.priority, lock, args] * 2,
        )
        return list(cur.fetchone()[0])


def _spans(job_ids: list[int]) -> list[tuple[Any, Any]]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT job_id, min(at) FILTER (WHERE type = 'started'), max(at) FILTER (WHERE type = 'succeeded')"
            " FROM procrastinate_events WHERE job_id = ANY(%s) GROUP BY job_id ORDER BY 2",
            [job_ids],
        )
        return [(s, e) for _, s, e in cur.fetchall()]


def _two_triggers(start_worker: Any, *, lock: bool) -> tuple[list[tuple[Any, Any]], int]:
    env = {"ATS_TEST_RESCORE_PAUSE_S": PAUSE_S}
    start_side_by_side(start_worker, 2, "default", extra=["--concurrency=1"], env=env)
    v = requisition()
    for skills in (("Python",), ("PostgreSQL", "Kubernetes"), ()):
        with transaction.atomic():
            scoring_api.application_apply(
                candidate_id=candidate(skills=skills, years=4), requisition_id=v.requisition_id
            )
    with transaction.atomic():
        ids = _coordinator_jobs(v.id, lock=scoring_api_lock(v.id) if lock else None)
    wait_for(lambda: len([e for _, e in _spans(ids) if e]) == 2, 60, "both coordinators finished")
    runs = list(RescoreRun.objects.filter(requisition_version_id=v.id).order_by("pk"))
    assert len(runs) == 2 and all(r.total == 3 for r in runs)
    wait_for(
        lambda: all(r.state == "completed" for r in RescoreRun.objects.filter(requisition_version_id=v.id)),
        60,
        "runs done",
    )
    return _spans(ids), v.id


def scoring_api_lock(version_id: int) -> str:
    return jobs_api.policy_for("scoring.rescore_requisition_version").lock_for({"requisition_version_id": version_id})  # type: ignore[return-value]


def test_two_rescore_triggers_for_one_version_run_serially(stack_env: Any, start_worker: Any) -> None:
    spans, version_id = _two_triggers(start_worker, lock=True)
    (_, first_end), (second_start, _) = spans
    # Event times are each transaction's start (now()): the second worker's fetch may BEGIN a
    # moment before the first's finish transaction does and still run only after it commits.
    # So allow 50 ms; overlapping runs (the unlocked control) overlap by the 1.5 s pause.
    assert second_start >= first_end - datetime.timedelta(milliseconds=50), spans
    # One result per (application, fingerprint) however the per-application jobs ran.
    assert (
        count(
            "ats_result r JOIN scoring_application a ON a.id = r.application_id",
            "a.requisition_version_id = %s",
            [version_id],
        )
        == 3
    )


def test_two_rescore_triggers_overlap_without_the_lock(stack_env: Any, start_worker: Any) -> None:
    spans, _ = _two_triggers(start_worker, lock=False)
    (_, first_end), (second_start, _) = spans
    assert second_start < first_end, spans  # the lock is what made them serial
